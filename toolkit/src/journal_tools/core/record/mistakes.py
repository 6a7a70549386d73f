"""Every ``file:line`` mistake a build finds, reported together in one error.

An author who made three mistakes should not need three builds (or three saves
in ``make serve``) to learn of them. The build goes on past a page's mistake
while that is safe, and stops at one point with all of them:

- the source checks of every page (front matter, excerpt separator, includes)
  run before the blog reads the posts; they stop the build there, since the
  blog would fail on a bad date with its own message;
- a formula, a citation or a notebook cell that fails while its page renders is
  noted, the page gets empty content, and the build stops once every page is
  rendered (``on_env``), before any template runs.

The message's first line is still the first mistake's ``path:line:``; each
further mistake follows on its own line, then the count. ``make build`` keeps
the old site when the build stops (``journal_tools.commands.build``), and
``make serve`` shows the message on its error page.
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
