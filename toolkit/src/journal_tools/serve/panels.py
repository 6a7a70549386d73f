"""What ``make serve`` adds to a served page: the code-run status line or failure panel, block anchors.

Added to the page's final HTML, never to its content: the search index, the
reading time, the feeds and the cached template output stay exactly what
``make build`` makes.
"""

from __future__ import annotations

import html
import re
import time

__all__ = ["PANEL_STYLE", "anchor_blocks", "panel_html", "with_panel"]

PANEL_STYLE = (
    "<style>.journal-run{font-size:.7rem;margin:0 0 1em;padding:.3em .6em;border-radius:.2rem}"
    ".journal-run--ok{color:var(--md-default-fg-color--light)}"
    ".journal-run--failed{border:2px solid #c62828;background:var(--md-code-bg-color)}"
    ".journal-run--failed pre{white-space:pre-wrap;font-size:.65rem;margin:.4em 0}</style>"
)


def panel_html(outcome: dict) -> str:
    """The status line (all passed) or the failure panel, as HTML for the top of the page."""
    when = outcome.get("at") or time.strftime("%H:%M:%S")
    if outcome.get("pending"):
        return f'{PANEL_STYLE}<p class="journal-run journal-run--ok" role="status">code still running at {when}…</p>'
    failures = outcome["failures"]
    if not failures:
        return (f'{PANEL_STYLE}<p class="journal-run journal-run--ok" role="status">✓ {outcome["ran"]} code blocks ran '
                f'in {outcome["seconds"]:.1f} s · {when}</p>')
    items = []
    for f in failures:
        link = f' <a href="#block-{f["line"]}">go to the block</a>' if f.get("line") else ""
        items.append(f'<p><strong>{html.escape(f["where"])}</strong>: {html.escape(f["message"])}{link}</p>'
                     f'<pre><code>{html.escape(f["report"])}</code></pre>')
    return (f'{PANEL_STYLE}<div class="journal-run journal-run--failed" role="alert"><p>✗ {len(failures)} failing '
            f'block{"s" if len(failures) > 1 else ""} ({outcome["ran"]} ran · {when})</p>{"".join(items)}</div>')


_CODE_DIV = re.compile(r'<div class="language-[\w+-]+ highlight"')


def anchor_blocks(content: str, fence_lines: list[int]) -> str:
    """Give the n-th code block of the page the id ``block-<line of its fence>``.

    pymdownx.highlight writes one such div per fence, in page order (the
    page's HTML as Python-Markdown wrote it, so a regex over its own
    attribute is enough; this runs in ``make serve`` only).
    """
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
