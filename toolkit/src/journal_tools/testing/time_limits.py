"""Every test's time limit (pytest-timeout), and what a test stopped at its limit says.

pytest-timeout's ``signal`` method (the pyproject.toml settings) fails the test that ran too long and the
run goes on; its ``thread`` method would end the whole process (an xdist worker: a crash naming no line).
A journal's own tests of its code (its snippet tests: not a site build, not a browser check) get the block
limit (``block_timeout`` in mkdocs.yml, 60 s), the limit its page blocks run under; the rest keep the
``timeout`` setting, generous enough for a site build under load. Page tests set theirs (pagetest/items.py).

pytest-timeout says only ``Timeout (>60.0s) from pytest-timeout.``; the report made here names the test's
file and line, the journal line that was running when it was stopped, and the journal lines below it
(files of the journal: not a library's, not the toolkit's).

One mistake, one failure: the function a test was stopped in is noted (pytest's cache, shared by xdist's
workers); a later test of the run that stays in one call of it for ``SAME_LOOP_SECONDS`` is stopped then
and skips, naming the test that failed there, instead of running to its own limit.
"""

from __future__ import annotations

import contextlib
import re
import signal
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

import journal_tools
from journal_tools.pagetest import state

__all__ = ["CollectionPastLimit", "Watcher", "collection_limit", "limit_tests", "shape_report", "watching"]

_STOPPED = re.compile(r"Timeout \(>(?P<seconds>[\d.]+)s\) from pytest-timeout")
_SET_BY_US = pytest.StashKey[str]()  # where this plugin took a test's limit from
_TOOLKIT = Path(journal_tools.__file__).resolve().parent
SAME_LOOP_SECONDS = 10
_CACHE_KEY = "journal_tools/stopped_in"  # {"run": id, "functions": {"file:first line": test id}}
_RUN = pytest.StashKey[str]()
_NOTED = pytest.StashKey[dict]()  # _CACHE_KEY's value where pytest's cache is off
_WATCHER = pytest.StashKey["Watcher"]()


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


def _journal_file(root: Path, filename: str) -> str | None:
    """``filename`` relative to the journal, or None for a library's, the toolkit's, .venv's or Python's own (``<frozen ...>``)."""
    if filename.startswith("<"):
        return None
    path = Path(filename).resolve()
    if root not in path.parents or _TOOLKIT in path.parents:
        return None
    rel = path.relative_to(root)
    return None if any(part.startswith(".") or part == "site-packages" for part in rel.parts) else rel.as_posix()


def _journal_lines(root: Path, traceback) -> list[tuple[str, int, str, str]]:
    """(file, line, function, source) of each frame in a file of the journal, outermost first."""
    lines = []
    for entry in traceback:
        rel = _journal_file(root, str(entry.path))
        if rel is not None:
            source = entry.statement.lines[0].strip() if entry.statement.lines else ""
            lines.append((rel, entry.lineno + 1, entry.name, source))
    return lines


def _function(root: Path, frame) -> tuple[str, object] | None:
    """(``file:first line`` of the innermost journal function running in ``frame``'s stack, its frame), or None."""
    while frame is not None:
        rel = _journal_file(root, frame.f_code.co_filename)
        if rel is not None:
            return f"{rel}:{frame.f_code.co_firstlineno}", frame
        frame = frame.f_back
    return None


def run_id(config) -> str:
    """One id for the whole run, the same in every xdist worker."""
    if _RUN not in config.stash:
        config.stash[_RUN] = getattr(config, "workerinput", {}).get("testrunuid") or uuid.uuid4().hex
    return config.stash[_RUN]


def _stopped_in(config) -> dict[str, str]:
    """{function: the test of this run stopped in it}."""
    cache = getattr(config, "cache", None)
    noted = cache.get(_CACHE_KEY, {}) if cache is not None else config.stash.get(_NOTED, {})
    return noted.get("functions", {}) if noted.get("run") == run_id(config) else {}


def _note_stopped_in(config, function: str, nodeid: str) -> None:
    noted = {"run": run_id(config), "functions": {**_stopped_in(config), function: nodeid}}
    cache = getattr(config, "cache", None)
    if cache is not None:
        cache.set(_CACHE_KEY, noted)
    else:
        config.stash[_NOTED] = noted


class Watcher(threading.Thread):
    """Stops the running test (pytest-timeout's SIGALRM handler) once it has stayed in one call of a function an earlier test of
    the run was stopped in for ``_grace`` seconds."""

    def __init__(self, config):
        super().__init__(name="journal-tools same-loop watcher", daemon=True)
        self.config, self.item, self.main = config, None, threading.main_thread().ident
        self.root = config.rootpath.resolve()

    def run(self) -> None:
        """Look four times a second."""
        seen, since = None, 0.0
        while True:
            time.sleep(0.25)
            item = self.item
            found = _function(self.root, sys._current_frames().get(self.main)) if item is not None else None
            failed = _stopped_in(self.config).get(found[0]) if found is not None else None
            if failed is None or failed == item.nodeid:
                seen = None
                continue
            if seen is not found[1]:
                seen, since = found[1], time.monotonic()
            elif time.monotonic() - since >= _grace(item) and callable(signal.getsignal(signal.SIGALRM)):
                self.item = seen = None  # pytest-timeout's signal handler is set: it stops the test, shape_report makes it a skip
                signal.pthread_kill(self.main, signal.SIGALRM)


def _grace(item) -> float:
    """How long a test may stay in a call of a function an earlier test was stopped in: SAME_LOOP_SECONDS, within half its own limit."""
    marker = item.get_closest_marker("timeout")
    return min(SAME_LOOP_SECONDS, marker.args[0] / 2) if marker is not None and marker.args else SAME_LOOP_SECONDS


def watching(config) -> Watcher | None:
    """The run's watcher (started on first use), in a journal's run only."""
    if state.settings(config) is None:
        return None
    if _WATCHER not in config.stash:
        config.stash[_WATCHER] = Watcher(config)
        config.stash[_WATCHER].start()
    return config.stash[_WATCHER]


def shape_report(item, excinfo, report) -> None:
    """A test pytest-timeout stopped: its report names the journal lines it was running; one stopped in a function an earlier test
    of the run failed in skips, naming that test (one mistake, one failure)."""
    m = _STOPPED.search(str(excinfo.value))
    if m is None:
        return
    root = item.config.rootpath.resolve()
    innermost = _function(root, excinfo.traceback[-1].frame.raw) if len(excinfo.traceback) else None
    failed = _stopped_in(item.config).get(innermost[0]) if innermost is not None else None
    if failed is not None and failed != item.nodeid:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), (item.reportinfo()[1] or 0) + 1,
                           f"Skipped: stopped in {innermost[0]}, where {failed} ran past its time limit")
        return
    if innermost is not None:
        _note_stopped_in(item.config, innermost[0], item.nodeid)
    text = _stopped_text(item, root, float(m["seconds"]), _journal_lines(root, excinfo.traceback))
    report.longrepr = text  # pytest's own report field


def _stopped_text(item, root: Path, seconds: float, lines: list) -> str:
    """``<test file>:<line>: stopped after 60 s ... while running snippets/x.py:42 (in f)``, the journal lines below."""
    test_file = item.path.resolve().relative_to(root).as_posix() if root in item.path.resolve().parents else str(item.path)
    in_test = [line for line in lines if line[0] == test_file]
    at_line = in_test[-1][1] if in_test else (item.reportinfo()[1] or 0) + 1
    where = item.stash.get(_SET_BY_US, "pytest-timeout's timeout setting")
    head = f"{test_file}:{at_line}: stopped after {seconds:g} s, the test's time limit ({where})"
    if not lines:
        return f"{head}, in no file of the journal (a library's or the toolkit's code ran)"
    file, line, name, _ = lines[-1]
    stack = "\n".join(f"  {f}:{n} in {fn}: {src}" for f, n, fn, src in reversed(lines))
    return f"{head}, while running {file}:{line} (in {name})\nthe journal lines running, innermost first:\n{stack}"


class CollectionPastLimit(Exception):
    """Importing a test module ran past the block limit (a loop in a snippet module's own code): the module's collection error."""


@contextlib.contextmanager
def collection_limit(collector):
    """A journal's Python test module collected under the block limit: pytest-timeout limits a test's run, not the import of its
    module, where a loop in a snippet module's top-level code hung ``make test`` for good. Past it, one collection error names the
    journal line that was running and the journal lines below it; the run goes on."""
    settings = state.settings(collector.config) if isinstance(collector, pytest.Module) else None
    if settings is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    limit, root = settings.block_timeout, collector.config.rootpath.resolve()

    def stop(signum, frame):
        lines = []
        while frame is not None:
            rel = _journal_file(root, frame.f_code.co_filename)
            if rel is not None:
                lines.append((rel, frame.f_lineno, frame.f_code.co_name))
            frame = frame.f_back
        head = f"importing it ran past {limit.seconds:g} s, the block limit ({limit.where})"
        if lines:
            file, line, name = lines[0]
            head += f", while running {file}:{line} (in {name})\nthe journal lines running, innermost first:\n"
            head += "\n".join(f"  {f}:{n} in {fn}" for f, n, fn in lines)
        raise CollectionPastLimit(head)

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, limit.seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
