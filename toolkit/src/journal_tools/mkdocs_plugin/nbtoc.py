"""A table of contents whose links land on the page's headings.

mkdocs-jupyter 0.26.3 makes a notebook page's headings and its table of
contents in two different ways: the headings (and their ids) come from
nbconvert's Markdown renderer, the TOC from Python-Markdown's toc extension
run on a Markdown export of the notebook. For a heading with inline code the
two disagree: ``### Check 2: `nn.MultiheadAttention` with copied weights``
gets ``id="check-2-nnmultiheadattention-with-copied-weights"`` on the page
and ``#check-2-with-copied-weights`` (title "Check 2: with copied weights")
in the TOC, a link to nowhere.

:func:`align_toc` fixes the TOC from the page: when a TOC link names an id
that is not on the page and the TOC has exactly one entry per heading, each
entry takes its heading's id and text, in document order. A page whose TOC
already matches (every Markdown page) is left as it is. tests/test_links.py
checks every link and anchor of the built site.
"""

from __future__ import annotations

import re

__all__ = ["headings", "align_toc"]

_HEADING = re.compile(r'<h(?P<level>[1-6])\b[^>]*?\bid="(?P<id>[^"]+)"[^>]*>(?P<body>.*?)</h(?P=level)>',
                      re.DOTALL | re.IGNORECASE)
_PERMALINK = re.compile(r'<a\b[^>]*\bclass="(?:anchor-link|headerlink)"[^>]*>.*?</a>', re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def headings(html: str) -> list[tuple[str, str]]:
    """(id, text) of every heading with an id, in document order; the text
    without permalink and tags, entities kept (as TOC titles are)."""
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
    """Point ``toc`` (MkDocs' TableOfContents) at the headings of ``html``;
    return whether anything changed (see the module doc)."""
    items = _flat(list(toc or []))
    found = headings(html)
    ids = {i for i, _ in found}
    if not items or all(item.id in ids for item in items) or len(items) != len(found):
        return False
    for item, (hid, text) in zip(items, found):
        item.id = hid
        item.title = text
    return True
