"""The editors' words marked in a page's HTML, so a reader sees them as the editors' (journal.css draws the rule
and the label), and the one line that says so at the top of the page: the forms of ``core/page/editors.py``.

- an admonition (or collapsible one) titled "Editor...": the class ``journal-editors``, its title says the rest;
- a section whose heading names the editors: wrapped in ``<section class="journal-editors">``, to the next heading
  of its level or above, the label "Editors" first;
- an element of class ``editor``: the class ``journal-editors`` and a label, "Editors", as its first child.

Regular expressions on the HTML Python-Markdown wrote, as the other HTML passes of this plugin: a parser round trip
would re-serialise the MathML and every entity of the page for a few classes.
"""

from __future__ import annotations

import html as html_lib
import re

from journal_tools.core.page.editors import LABEL, NOTICE, heading_is_editors, title_is_editors

__all__ = ["add_notice", "mark", "notice_html"]

_ADMONITION = re.compile(r'<(?P<tag>div|details)(?P<open> [^>]*)?class="(?P<classes>(?:admonition\b)?[^"]*)"(?P<rest>[^>]*)>'
                         r'(?P<gap>\s*)<(?P<title_tag>p|summary)(?P<title_attrs>(?:\s[^>]*)?)>(?P<title>.*?)</(?P=title_tag)>',
                         re.S)
_EDITOR_CLASS = re.compile(r'<(?P<tag>p|div|section|aside|blockquote|li)\b(?P<before>[^>]*?)class="(?P<classes>'
                           r'(?:[^"]*\s)?editor(?:\s[^"]*)?)"(?P<after>[^>]*)>')
_HEADING = re.compile(r"<h(?P<level>[1-6])\b[^>]*>(?P<text>.*?)</h(?P=level)>", re.S)
_HEADERLINK = re.compile(r'<a\b[^>]*\bclass="headerlink"[^>]*>.*?</a>', re.S)
_TAG = re.compile(r"<[^>]+>")
_H1_END = re.compile(r"</h1>", re.IGNORECASE)


def _text(fragment: str) -> str:
    return html_lib.unescape(_TAG.sub("", _HEADERLINK.sub("", fragment)))


def _admonitions(html: str) -> tuple[str, int]:
    def sub(m: re.Match) -> str:
        is_admonition = m["tag"] == "details" or "admonition" in m["classes"].split()
        if not is_admonition or not title_is_editors(_text(m["title"])) or "journal-editors" in m["classes"]:
            return m.group(0)
        return m.group(0).replace(f'class="{m["classes"]}"', f'class="{m["classes"]} journal-editors"', 1)

    out = _ADMONITION.sub(sub, html)
    return out, out.count("journal-editors") - html.count("journal-editors")


_LABEL = f'<span class="journal-editors__label" data-search-exclude>{LABEL}</span>'  # no part of any text


def _classed(html: str) -> tuple[str, int]:
    label = _LABEL
    out = _EDITOR_CLASS.sub(lambda m: (f'<{m["tag"]}{m["before"]}class="{m["classes"]} journal-editors"{m["after"]}>'
                                       f"{label}"), html)
    return out, out.count(label) - html.count(label)


def _sections(html: str) -> tuple[str, int]:
    """Each section whose heading names the editors, wrapped, to the next heading of its level or above."""
    parts, at, count = [], 0, 0
    for m in _HEADING.finditer(html):
        if m.start() < at or m["level"] == "1" or not heading_is_editors(_text(m["text"])):
            continue
        level = int(m["level"])
        end = next((n.start() for n in _HEADING.finditer(html, m.end()) if int(n["level"]) <= level), len(html))
        parts += [html[at:m.start()], '<section class="journal-editors journal-editors--section">', _LABEL,
                  html[m.start():end].rstrip("\n"), "</section>\n"]
        at, count = end, count + 1
    return "".join(parts) + html[at:], count


def mark(html: str) -> tuple[str, bool]:
    """``html`` with every mark of the editors' words styled as theirs, and whether it holds any."""
    found = 0
    for marker in (_sections, _admonitions, _classed):
        html, n = marker(html)
        found += n
    return html, found > 0


def notice_html() -> str:
    """The line at the top of a page holding editors' words (left out of search: it is no part of any page's text)."""
    return f'<p class="journal-editors-notice" data-search-exclude>{html_lib.escape(NOTICE, quote=False)}</p>'


def add_notice(html: str) -> str:
    """``html`` with the notice right after its title (first when it has none)."""
    m = _H1_END.search(html)
    if m is None:
        return notice_html() + "\n" + html
    return html[: m.end()] + "\n" + notice_html() + html[m.end():]
