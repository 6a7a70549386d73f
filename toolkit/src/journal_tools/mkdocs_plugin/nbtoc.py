"""A notebook page's TOC that lands on its headings: mkdocs-jupyter makes the TOC with Python-Markdown and the
headings with nbconvert, which disagree on a heading with inline code; :func:`align_toc` gives each entry its
heading's id and text when the counts match.
"""

from __future__ import annotations

import re

__all__ = ["headings", "align_toc"]

_HEADING = re.compile(r'<h(?P<level>[1-6])\b[^>]*?\bid="(?P<id>[^"]+)"[^>]*>(?P<body>.*?)</h(?P=level)>',
                      re.DOTALL | re.IGNORECASE)
_PERMALINK = re.compile(r'<a\b[^>]*\bclass="(?:anchor-link|headerlink)"[^>]*>.*?</a>', re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def headings(html: str) -> list[tuple[str, str]]:
    """(id, text) of every heading with an id, in document order; the text without permalink and tags, entities kept (as TOC titles are)."""
    found = []
    for m in _HEADING.finditer(html):
        text = " ".join(_TAG.sub("", _PERMALINK.sub("", m["body"])).split())
        found.append((m["id"], text))
    return found


def _flat(items) -> list:
    out = []
    for item in items:
        out.append(item)
        out += _flat(item.children)
    return out


def align_toc(html: str, toc) -> bool:
    """Point ``toc`` (MkDocs' TableOfContents) at the headings of ``html``; return whether anything changed (see the module doc)."""
    items = _flat(list(toc or []))
    found = headings(html)
    ids = {i for i, _ in found}
    if not items or all(item.id in ids for item in items) or len(items) != len(found):
        return False
    for item, (hid, text) in zip(items, found):
        item.id = hid
        item.title = text
    return True
