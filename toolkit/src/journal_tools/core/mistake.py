"""One located type for every author's mistake: ``path``, ``line`` (and for a snippet line the page line that
included it) and ``problem``; ``str(mistake)`` is ``path:line: problem``, and callers read the fields, never
the text. ``path`` is None until a caller that knows the page locates it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Mistake", "Origin", "SeveralMistakes"]


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


class SeveralMistakes(Mistake):
    """Several mistakes as one failure, located at the first (``found``, in the order a reader meets them): one chain's run in the page
    tests and make serve (``in_one_build`` False: the others follow the first whole), or one stage of a build (every one, then a count)."""

    def __init__(self, found: list[Mistake], *, in_one_build: bool = False):
        self.found, self.in_one_build = found, in_one_build
        first = found[0]
        super().__init__(first.path, first.line, first.problem, first.included_at)

    def __str__(self) -> str:
        texts = [Mistake.__str__(m) for m in self.found]
        if len(texts) == 1:
            return texts[0]
        if self.in_one_build:
            files = {text.split(":", 1)[0] for text in texts}
            return "\n".join([*texts, f"({len(texts)} mistakes in {len(files)} files, found in one build)"])
        more = "\n\n".join(texts[1:])
        return f"{texts[0]}\n\n{len(texts) - 1} more in the same run:\n{more}"
