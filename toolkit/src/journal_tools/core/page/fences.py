"""The one fence scanner: where the code fences of a Markdown page are.

Used by the page tests (which blocks run), the figures (figure lines inside a
fence are shown, not drawn) and the render check. Rules, as pymdownx.superfences
reads a page: a fence opens on a line whose text (after any indent, so fences
inside admonitions, tabs and lists count) starts with three or more backticks
or tildes; it closes at the first later line holding only the same run of that
character (exactly as many: superfences' end pattern is the opening run itself),
indented as the opening line (tabs count 4). A backtick fence's info string holds
no backtick. A run that is longer, shorter or indented differently is a line of
the code; a fence without its closing run is never closed, as superfences
shows it (not as code).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Fence", "FenceError", "fence_lang", "inside_fence", "scan"]

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<mark>`{3,}|~{3,})(?P<info>.*)$")


class FenceError(Exception):
    """A fence opened and never closed; ``index`` is its 0-based line."""

    def __init__(self, index: int):
        self.index = index
        super().__init__("a code fence opened here is never closed")


@dataclass(frozen=True)
class Fence:
    """One fenced block: ``start`` and ``end`` are the 0-based lines of its
    opening and closing fence lines."""

    start: int
    end: int
    info: str
    indent: int
    mark: str  # the opening run of backticks or tildes

    @property
    def lang(self) -> str:
        """The language of the info string ('' for a bare fence)."""
        return fence_lang(self.info)

    @property
    def body(self) -> range:
        """The 0-based lines between the fence lines."""
        return range(self.start + 1, self.end)

    def code(self, lines: list[str]) -> str:
        """The block's text, its opening indent removed (at most that much per line)."""
        body = []
        for i in self.body:
            line = lines[i]
            cut = min(self.indent, len(line) - len(line.lstrip()))
            body.append(line[cut:])
        return "\n".join(body) + ("\n" if body else "")


def fence_lang(info: str) -> str:
    """The language of an info string: 'py', '{.python .x}', 'python title="a.py"'."""
    info = info.strip()
    if info.startswith("{"):
        info = info.strip("{} ")
    words = info.split()
    return words[0].lstrip(".").lower() if words else ""


def scan(lines: list[str]) -> list[Fence]:
    """Every fence of ``lines`` (without line endings), in order."""
    fences = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if m is None or (m["mark"][0] == "`" and "`" in m["info"]):
            i += 1
            continue
        mark = m["mark"]
        close = re.compile(rf"^(?P<indent>[ \t]*){re.escape(mark)}[ \t]*$")
        width = _width(m["indent"])
        j = i + 1
        while j < len(lines) and not ((c := close.match(lines[j])) and _width(c["indent"]) == width):
            j += 1
        if j == len(lines):
            raise FenceError(i)
        fences.append(Fence(i, j, m["info"].strip(), len(m["indent"]), mark))
        i = j + 1
    return fences


def _width(indent: str) -> int:
    return len(indent.expandtabs(4))  # Python-Markdown's tab_length


def inside_fence(fences: list[Fence]) -> set[int]:
    """The 0-based line indices that belong to a fence (fence lines included)."""
    return {i for f in fences for i in range(f.start, f.end + 1)}
