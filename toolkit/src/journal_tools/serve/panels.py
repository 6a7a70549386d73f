"""What ``make serve`` adds to a served page's final HTML (never its content, so search, reading time and feeds
stay as built): the status line or failure panel, block anchors, the window's line.
"""

from __future__ import annotations

import html
import json
import re
import time

__all__ = ["PANEL_STYLE", "anchor_blocks", "build_problem", "panel_html", "ran_of", "status_html", "with_build_problems",
           "with_panel"]

PANEL_STYLE = (
    "<style>.journal-run{font-size:.7rem;margin:0 0 1em;padding:.3em .6em;border-radius:.2rem}"
    ".journal-run--ok,.journal-run--running{color:var(--md-default-fg-color--light)}"
    ".journal-run--failed{border:2px solid #c62828;background:var(--md-code-bg-color)}"
    ".journal-run--failed pre{white-space:pre-wrap;font-size:.65rem;margin:.4em 0}</style>"
)


def panel_html(outcome: dict, poll: str | None = None) -> str:
    """The status line or failure panel as HTML for the page top; ``poll``: where a running status line asks for the outcome."""
    return PANEL_STYLE + status_html(outcome, poll)


def status_html(outcome: dict, poll: str | None = None) -> str:
    """``panel_html`` without its stylesheet: what replaces a status line in place."""
    when = outcome.get("at") or time.strftime("%H:%M:%S")
    if outcome.get("pending"):
        line = f'<p class="journal-run journal-run--running" role="status">code still running since {when}…</p>'
        return line + (_POLL_SCRIPT.replace("URL", json.dumps(poll)) if poll else "")
    failures = outcome["failures"]
    fill = outcome.get("to_fill", [])
    if not failures:
        extra = ""
        if fill:
            where = ", ".join(f'<a href="#block-{f["line"]}">{html.escape(f["where"])}</a>' for f in fill)
            extra = f' · {len(fill)} output{"s" if len(fill) > 1 else ""} to fill (<code>make update-outputs</code>): {where}'
        return (f'<p class="journal-run journal-run--ok" role="status">✓ {ran_of(outcome)} code blocks ran '
                f'in {outcome["seconds"]:.1f} s{extra} · {when}</p>')
    items = []
    for f in failures:
        link = f' <a href="#block-{f["line"]}">go to the block</a>' if f.get("line") else ""
        said = f'{f["where"]}: {f["message"]}'  # a one-line mistake's report says nothing more
        report = f'<pre><code>{html.escape(f["report"])}</code></pre>' if f["report"].strip() not in ("", said) else ""
        items.append(f'<p><strong>{html.escape(f["where"])}</strong>: {html.escape(f["message"])}{link}</p>{report}')
    built = sum(1 for f in failures if f.get("build"))
    code = len(failures) - built
    heads = [f'<p>✗ {built} mistake{"s" if built > 1 else ""} in this page\'s sources: <code>make build</code> stops '
             f'at {"them" if built > 1 else "it"}; this page is served without {"them" if built > 1 else "it"}, '
             f'the rest of the site as built</p>'] if built else []
    if code or not built:
        heads.append(f'<p>✗ {code} failing block{"s" if code > 1 else ""} ({ran_of(outcome)} ran · {when})</p>')
    return f'<div class="journal-run journal-run--failed" role="alert">{"".join(heads)}{"".join(items)}</div>'


def with_build_problems(problems: list[dict], failures: list[dict]) -> list[dict]:
    """A page's build mistakes, then its code's failures that are not one of them (the tests meet the same include: said once)."""
    return problems + [f for f in failures if not any(
        p["where"] == f["where"] and p["message"].startswith(f["message"]) for p in problems)]


def build_problem(mistake) -> dict:
    """A mistake of the page's own the build met, as an item of the page's panel and the save line; ``build``: not its code's."""
    where = mistake.origin.describe() if mistake.origin else (mistake.path or "")
    return {"where": where, "line": None, "message": mistake.problem.split("\n", 1)[0], "report": str(mistake),
            "build": True}


def ran_of(outcome: dict) -> str:
    """``12`` when every block of the page ran, ``5 of 12`` when some did not (a failure ended a chain)."""
    ran, blocks = outcome["ran"], outcome.get("blocks", 0)
    return f"{ran:,} of {blocks:,}" if ran < blocks else f"{ran:,}"


# The status line of code still running asks the server for the outcome (a long poll: the server
# answers when the code is done, 204 meanwhile) and puts the answer in its own place. A script of
# ours, served by make serve only: no rebuild, no reload, the reader's scroll position kept.
_POLL_SCRIPT = (
    "<script>(function(s){var p=s.previousElementSibling;function ask(){fetch(URL,{cache:'no-store'})"
    ".then(function(r){if(r.status!==200){setTimeout(ask,r.status===204?0:1000);return;}"
    "return r.text().then(function(h){s.remove();p.outerHTML=h;});})"
    ".catch(function(){setTimeout(ask,1000);});}ask();})(document.currentScript)</script>"
)


_CODE_DIV = re.compile(r'<div class="language-[\w+-]+ highlight[^"]*"')


def anchor_blocks(content: str, fence_lines: list[int]) -> str:
    """Give the n-th code block of the page the id ``block-<line of its fence>``."""
    it = iter(fence_lines)

    def add_id(m: re.Match) -> str:
        line = next(it, None)
        return m.group(0) if line is None else f'{m.group(0)} id="block-{line}"'

    return _CODE_DIV.sub(add_id, content)


_ARTICLE = re.compile(r'<(?:article|div) class="md-content__inner(?: md-typeset)?">')  # a page's article; the home page's div


def with_panel(output: str, panel: str) -> str:
    """``output`` (a page's final HTML) with ``panel`` at the top of its article, where the content starts."""
    m = _ARTICLE.search(output)
    if m is None:  # a template without Material's article: the top of the body
        m = re.search(r"<body[^>]*>", output)
    return output if m is None else output[:m.end()] + panel + output[m.end():]
