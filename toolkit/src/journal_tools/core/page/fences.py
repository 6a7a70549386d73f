"""The one fence scanner, with pymdownx.superfences' rules: a run of three or more backticks or tildes after any
indent opens a fence; only the same run, indented alike, closes it; an unclosed fence is no code.
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
    """One fenced block: ``start`` and ``end`` are the 0-based lines of its opening and closing fence lines."""

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
