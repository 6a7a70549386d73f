"""What a block may do: its time limit (``block_timeout``, a page's ``timeout:``, a notebook's
``execution: timeout:``), enforced per unit by ``sandbox``; and ``OUTPUT_LIMIT`` characters of output, the
rest counted, not kept.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass

from journal_tools.core.mistake import Mistake
from journal_tools.core.page.frontmatter import FrontMatter

__all__ = ["DEFAULT_TIMEOUT", "OUTPUT_LIMIT", "BoundedOutput", "Limit", "notebook_limit", "page_limit", "seconds"]

DEFAULT_TIMEOUT = 60.0  # seconds; the journal plugin's block_timeout default
OUTPUT_LIMIT = 100_000  # characters of printed output kept per block (and of stderr per request)
PAGE_KEY = "timeout"


@dataclass(frozen=True)
class Limit:
    """A time limit and where it was set (named in the report of a block that ran past it)."""

    seconds: float
    where: str  # "timeout in docs/x.md:3", "block_timeout in mkdocs.yml", ...

    def ran_past(self, what: str) -> str:
        """``the block ran past 60 s (limit: timeout in docs/x.md:3)``."""
        return f"the {what} ran past {self.seconds:g} s (limit: {self.where})"


def seconds(value) -> float:
    """``value`` as a time limit in seconds; ValueError (the problem, as text) if it is none."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{value!r} is not a number of seconds above 0 (write e.g. 120)")
    return float(value)


def page_limit(meta: FrontMatter, default: Limit) -> Limit:
    """The page's limit: its front matter's ``timeout``, else ``default``; a bad value is a FrontMatterError naming the line."""
    if PAGE_KEY not in meta.data:
        return default
    try:
        value = seconds(meta.data[PAGE_KEY])
    except ValueError as exc:
        raise meta.error(PAGE_KEY, f"timeout: {exc}") from None
    return Limit(value, f"timeout in {meta.path}:{meta.line(PAGE_KEY)}")


_NOTEBOOK_TIMEOUT = re.compile(r"^#\s+timeout\s*:", re.MULTILINE)


def notebook_limit(metadata: dict, text: str, path: str, default: Limit) -> Limit:
    """``execution: timeout:`` from the notebook metadata (a percent script's ``# jupyter:`` header), else ``default``; Mistake at it."""
    execution = metadata.get("execution")
    if not isinstance(execution, dict) or "timeout" not in execution:
        return default
    m = _NOTEBOOK_TIMEOUT.search(text)
    line = text.count("\n", 0, m.start()) + 1 if m else 1
    try:
        value = seconds(execution["timeout"])
    except ValueError as exc:
        raise Mistake(path, line, f"execution.timeout: {exc}") from None
    return Limit(value, f"execution.timeout in {path}:{line}")


class BoundedOutput(io.TextIOBase):
    """A text stream keeping the first ``limit`` characters written and counting the rest: a runaway loop costs a counter."""

    def __init__(self, limit: int = OUTPUT_LIMIT):
        super().__init__()
        self.limit = limit
        self._kept = io.StringIO()
        self._size = 0  # characters kept
        self.dropped = 0  # characters written past the limit

    def writable(self) -> bool:
        """A stream ``print`` can write to."""
        return True

    def write(self, text: str) -> int:
        """Keep what fits under the limit, count the rest."""
        room = self.limit - self._size
        if room > 0:
            kept = text[:room]
            self._kept.write(kept)
            self._size += len(kept)
            self.dropped += len(text) - len(kept)
        else:
            self.dropped += len(text)
        return len(text)

    def getvalue(self) -> str:
        """What was kept, and a note when something was cut."""
        text = self._kept.getvalue()
        if not self.dropped:
            return text
        return (f"{text}\n[output cut: {self._size + self.dropped:,} characters were printed; "
                f"the first {self.limit:,} are kept]\n")
