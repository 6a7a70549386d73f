"""Whose words a reader reads: the editors' text on a page, found where the page marks it, and the one line that
says so. A journal's pages are its author's; what its editors add is theirs only where it is marked, in one of
three forms (toolkit/DECISIONS.md, "The editors' words"):

- an admonition whose title starts with "Editor" (``!!! note "Editor's note: why scale"``);
- a section whose heading says it is the editors' (``## The editors' check``: the word "editor" or "editors"; a
  page's title is no section heading);
- a paragraph or ``<div>`` with the class ``editor`` (``{ .editor }`` after a paragraph, with attr_list;
  ``<div class="editor" markdown>`` ... ``</div>``, with md_in_html).

This module reads them in a page's Markdown (the downloads say which code is the editors'); the build marks the
same forms in the page's HTML (``mkdocs_plugin/editors.py``). ``NOTICE`` is the line every page, feed item and
download that holds editors' words opens with, written here only.
"""

from __future__ import annotations

import re

from journal_tools.core.page.fences import FenceError, inside_fence, scan

__all__ = ["LABEL", "NOTICE", "TITLE", "heading_is_editors", "line_ranges", "title_is_editors"]

NOTICE = ("Text marked \u201cEditor\u2019s note\u201d or \u201cEditors\u201d is by the journal\u2019s editors, "
          "not the author.")
LABEL = "Editors"  # the label a paragraph or <div> of class editor shows
TITLE = re.compile(r"\s*editor", re.IGNORECASE)  # an admonition title that starts so is the editors' note
_WORD = re.compile(r"\beditor(?:s|['\u2019]s|s['\u2019])?(?![\w-])", re.IGNORECASE)

_ADMONITION = re.compile(r"^(?P<indent> *)(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+[\w-]+)*[ \t]+\"(?P<title>[^\"]*)\"")
_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)[ \t#]*$")
_CLASS_EDITOR = re.compile(r"""\bclass=(?P<q>["'])(?:[^"']*\s)?editor(?:\s[^"']*)?(?P=q)""")
_ATTR_EDITOR = re.compile(r"\{:?[^{}\n]*(?<![\w-])\.editor(?![\w-])[^{}\n]*\}\s*$")
_DIV_OPEN = re.compile(r"^\s*<div\b[^>]*>")
_DIV_CLOSE = re.compile(r"</div\s*>")


def title_is_editors(title: str) -> bool:
    """Whether an admonition titled ``title`` is the editors' ("Editor's note", "Editors: ...")."""
    return TITLE.match(title) is not None


def heading_is_editors(text: str) -> bool:
    """Whether a heading reading ``text`` says its section is the editors' (it names the editor or editors)."""
    return _WORD.search(text) is not None


def line_ranges(text: str) -> list[range]:
    """The 1-based line ranges of ``text`` (a page's Markdown as written) that are the editors' words, in page order.

    Lines inside code fences are code, never a mark (a fence inside an editors' block is the editors' code); the
    front matter is never a mark.
    """
    lines = text.split("\n")
    try:
        fenced = inside_fence(scan(lines))
    except FenceError:  # the page's own test reports the unclosed fence; read what is readable
        fenced = set()
    fenced |= set(range(_front_matter_end(lines)))
    found = []
    for i in range(len(lines)):
        if i not in fenced:
            found.append(_admonition(lines, i) or _section(lines, i, fenced) or _div(lines, i, fenced)
                         or _paragraph(lines, i, fenced))
    return _merged([r for r in found if r])


def _front_matter_end(lines: list[str]) -> int:
    """The 0-based line after the front matter (0 without one)."""
    if not lines or lines[0].strip() != "---":
        return 0
    return next((j + 1 for j in range(1, len(lines)) if lines[j].strip() in ("---", "...")), 0)


def _admonition(lines: list[str], i: int) -> range | None:
    """An editors' admonition opening at ``i``: its title line and body (the lines indented deeper)."""
    m = _ADMONITION.match(lines[i])
    if m is None or not title_is_editors(m["title"]):
        return None
    indent, end = len(m["indent"]), i + 1
    for j in range(i + 1, len(lines)):
        if lines[j].strip() and len(lines[j]) - len(lines[j].lstrip(" ")) <= indent:
            break
        if lines[j].strip():
            end = j + 1
    return range(i + 1, end + 1)


def _section(lines: list[str], i: int, fenced: set[int]) -> range | None:
    """An editors' section whose heading is line ``i``: up to the next heading of its level or above."""
    m = _HEADING.match(lines[i])
    if m is None or len(m["hashes"]) == 1 or not heading_is_editors(_ATTR_EDITOR.sub("", m["text"])):
        return None  # a page's title is no section: a page of the editors' own says so in its byline
    level = len(m["hashes"])
    end = next((j for j in range(i + 1, len(lines)) if j not in fenced and (other := _HEADING.match(lines[j]))
                and len(other["hashes"]) <= level), len(lines))
    return range(i + 1, _trimmed(lines, end) + 1)


def _div(lines: list[str], i: int, fenced: set[int]) -> range | None:
    """A ``<div class="editor">`` opening at ``i``, to its closing tag (nested divs counted)."""
    m = _DIV_OPEN.match(lines[i])
    if m is None or not _CLASS_EDITOR.search(m.group(0)):
        return None
    depth = 0
    for j in range(i, len(lines)):
        if j not in fenced:
            depth += len(re.findall(r"<div\b", lines[j])) - len(_DIV_CLOSE.findall(lines[j]))
            if depth <= 0:
                return range(i + 1, j + 2)
    return range(i + 1, len(lines) + 1)


def _paragraph(lines: list[str], i: int, fenced: set[int]) -> range | None:
    """A paragraph that line ``i`` ends with ``{ .editor }`` (attr_list), or a ``<p class="editor">`` line."""
    line = lines[i]
    if _HEADING.match(line) is not None:
        return None
    opening = re.match(r"^\s*<p\b[^>]*>", line)
    if opening is not None and _CLASS_EDITOR.search(opening.group(0)):
        return range(i + 1, i + 2)
    if not _ATTR_EDITOR.search(line):
        return None
    start = i
    while start > 0 and lines[start - 1].strip() and (start - 1) not in fenced and not _HEADING.match(lines[start - 1]):
        start -= 1
    return range(start + 1, i + 2)


def _trimmed(lines: list[str], end: int) -> int:
    """``end`` moved back over trailing blank lines."""
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    return end


def _merged(found: list[range]) -> list[range]:
    """Ranges in order, one where they overlap (an editors' note inside an editors' section)."""
    out: list[range] = []
    for r in sorted(found, key=lambda r: r.start):
        if out and r.start <= out[-1].stop:
            out[-1] = range(out[-1].start, max(out[-1].stop, r.stop))
        else:
            out.append(r)
    return out
