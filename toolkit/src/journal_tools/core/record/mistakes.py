"""Every ``file:line`` mistake of one build in one error: the source checks stop before the blog reads the
posts, render mistakes once every page is rendered (``on_env``); the first line is the first mistake's.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from journal_tools.core.mistake import Mistake, SeveralMistakes

__all__ = ["TOLD", "Mistakes"]

TOLD = "build-mistakes.json"  # under the journal's .cache/: the last build's stopping mistakes and their page tests


class Mistakes:
    """The mistakes of one stage of a build, each with the page test that reports it too (None: only the build sees it)."""

    def __init__(self):
        self.found: list[Mistake] = []
        self.tests: list[str | None] = []

    def add(self, mistake: Mistake, test: str | None = None) -> None:
        """Note a mistake, and the node id of the page test that judges it the same way (``page.md::render``), if one does."""
        self.found.append(mistake)
        self.tests.append(test)

    def stop_if_any(self, told: Path | None = None) -> None:
        """Raise one SeveralMistakes holding every mistake noted so far (and forget them); ``told``: a JSON file that lists them first,
        each with its page test, so a test of the build defers to the page tests that report them (testing/checks/build.py)."""
        found, tests, self.found, self.tests = self.found, self.tests, [], []
        if not found:
            return
        if told is not None:
            with contextlib.suppress(OSError):  # only a test reads it: a read-only tree still stops here
                told.parent.mkdir(parents=True, exist_ok=True)
                told.write_text(json.dumps([{"where": str(m).split(": ", 1)[0], "test": t} for m, t in zip(found, tests)]),
                                encoding="utf-8")
        raise SeveralMistakes(found, in_one_build=True)
