"""One located type for every author's mistake: ``path``, ``line`` (and for a snippet line the page line that
included it) and ``problem``; ``str(mistake)`` is ``path:line: problem``, and callers read the fields, never
the text. ``path`` is None until a caller that knows the page locates it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Mistake", "Origin"]


@dataclass(frozen=True)
class Origin:
    """Where one expanded line was written: a file (relative path) and a 1-based line."""

    path: str
    line: int
    # For a line brought in by an include: the page line of the include.
    included_at: tuple[str, int] | None = None

    def describe(self) -> str:
        """``path:line``, with the including page line for a snippet line."""
        text = f"{self.path}:{self.line}"
        if self.included_at:
            text += f" (included at {self.included_at[0]}:{self.included_at[1]})"
        return text


def _rebuilt(cls: type, state: dict) -> Mistake:
    mistake = Exception.__new__(cls)
    mistake.__dict__.update(state)
    mistake.args = (str(mistake),)
    return mistake


class Mistake(Exception):
    """A mistake in the journal's sources at ``path:line`` (``line`` None: the whole file)."""

    def __init__(self, path: str | None, line: int | None, problem: str, included_at: tuple[str, int] | None = None):
        self.path, self.line, self.problem, self.included_at = path, line, problem, included_at
        super().__init__(str(self))

    @classmethod
    def at(cls, origin: Origin, problem: str) -> Mistake:
        """The mistake at an expanded line's origin."""
        return cls(origin.path, origin.line, problem, origin.included_at)

    @classmethod
    def like(cls, other: Mistake) -> Mistake:
        """``other``'s location and problem, as this kind of mistake."""
        return cls(other.path, other.line, other.problem, other.included_at)

    @property
    def origin(self) -> Origin | None:
        """Where it is, as an Origin (None without a path or a line)."""
        return None if self.path is None or self.line is None else Origin(self.path, self.line, self.included_at)

    def __str__(self) -> str:
        if self.path is None:
            return self.problem
        where = self.origin.describe() if self.origin else self.path
        return f"{where}: {self.problem}"

    def __reduce__(self):
        # Subclasses take other constructor arguments; rebuild from the fields (pickling
        # across the sandbox's processes, pytest-xdist's reports).
        return _rebuilt, (type(self), dict(self.__dict__))
