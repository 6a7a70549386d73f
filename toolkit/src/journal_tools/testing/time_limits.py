"""Every test's time limit (pytest-timeout), and what a test stopped at its limit says.

pytest-timeout's ``signal`` method (the pyproject.toml settings) fails the test that ran too long and the
run goes on; its ``thread`` method would end the whole process (an xdist worker: a crash naming no line).
A journal's own tests of its code (its snippet tests: not a site build, not a browser check) get the block
limit (``block_timeout`` in mkdocs.yml, 60 s), the limit its page blocks run under; the rest keep the
``timeout`` setting, generous enough for a site build under load. Page tests set theirs (pagetest/items.py).

pytest-timeout says only ``Timeout (>60.0s) from pytest-timeout.``; the report made here names the test's
file and line, the journal line that was running when it was stopped, and the journal lines below it
(files of the journal: not a library's, not the toolkit's).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import journal_tools
from journal_tools.pagetest import state

__all__ = ["limit_tests", "stopped_report"]

_STOPPED = re.compile(r"Timeout \(>(?P<seconds>[\d.]+)s\) from pytest-timeout")
_SET_BY_US = pytest.StashKey[str]()  # where this plugin took a test's limit from
_TOOLKIT = Path(journal_tools.__file__).resolve().parent


def limit_tests(config, items) -> None:
    """The block limit on each of a journal's own tests of its code (a Python test neither slow nor limited already)."""
    settings = state.settings(config)
    if settings is None:  # not a journal: the toolkit's suite keeps its timeout setting
        return
    limit = settings.block_timeout
    for item in items:
        if isinstance(item, pytest.Function) and not item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(limit.seconds))
            item.stash[_SET_BY_US] = limit.where


def _journal_lines(root: Path, traceback) -> list[tuple[str, int, str, str]]:
    """(file, line, function, source) of each frame in a file of the journal, outermost first."""
    lines = []
    for entry in traceback:
        path = Path(entry.path).resolve()
        if root not in path.parents or _TOOLKIT in path.parents:
            continue
        rel = path.relative_to(root)
        if any(part.startswith(".") or part == "site-packages" for part in rel.parts):
            continue  # .venv/, a library
        source = entry.statement.lines[0].strip() if entry.statement.lines else ""
        lines.append((rel.as_posix(), entry.lineno + 1, entry.name, source))
    return lines


def stopped_report(item, excinfo) -> str | None:
    """``<test file>:<line>: stopped after 60 s at snippets/x.py:42 (in f) ...`` with the journal lines below, for a
    test pytest-timeout stopped; None for any other failure."""
    m = _STOPPED.search(str(excinfo.value))
    if m is None:
        return None
    root = item.config.rootpath.resolve()
    lines = _journal_lines(root, excinfo.traceback)
    test_file = item.path.resolve().relative_to(root).as_posix() if root in item.path.resolve().parents else str(item.path)
    in_test = [line for line in lines if line[0] == test_file]
    at_line = in_test[-1][1] if in_test else (item.reportinfo()[1] or 0) + 1
    where = item.stash.get(_SET_BY_US, "pytest-timeout's timeout setting")
    head = f"{test_file}:{at_line}: stopped after {float(m['seconds']):g} s, the test's time limit ({where})"
    if not lines:
        return f"{head}, in no file of the journal (a library's or the toolkit's code ran)"
    file, line, name, _ = lines[-1]
    stack = "\n".join(f"  {f}:{n} in {fn}: {src}" for f, n, fn, src in reversed(lines))
    return f"{head}, while running {file}:{line} (in {name})\nthe journal lines running, innermost first:\n{stack}"
