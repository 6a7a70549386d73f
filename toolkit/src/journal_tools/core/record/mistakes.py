"""Every ``file:line`` mistake of one build in one error: the source checks stop before the blog reads the
posts, render mistakes once every page is rendered (``on_env``); the first line is the first mistake's.
"""

from __future__ import annotations

from journal_tools.core.mistake import Mistake
from journal_tools.core.record.validate import InputError

__all__ = ["BuildMistakes", "Mistakes", "report"]


def report(messages: list[str]) -> str:
    """One message for the mistakes, the first one first (its ``path:line:`` leads the message)."""
    if len(messages) == 1:
        return messages[0]
    files = {m.split(":", 1)[0] for m in messages}
    return "\n".join([*messages, f"({len(messages)} mistakes in {len(files)} files, found in one build)"])


class BuildMistakes(InputError):
    """Every mistake of one stage of a build (``found``); located at the first one."""

    def __init__(self, found: list[Mistake]):
        self.found = found
        super().__init__(found[0].path, found[0].line, found[0].problem, found[0].included_at)

    def __str__(self) -> str:
        return report([Mistake.__str__(m) for m in self.found])


class Mistakes:
    """The mistakes of one stage of a build."""

    def __init__(self):
        self.found: list[Mistake] = []

    def add(self, mistake: Mistake) -> None:
        """Note a mistake."""
        self.found.append(mistake)

    def stop_if_any(self) -> None:
        """Raise one BuildMistakes holding every mistake noted so far (and forget them)."""
        found, self.found = self.found, []
        if found:
            raise BuildMistakes(found)
