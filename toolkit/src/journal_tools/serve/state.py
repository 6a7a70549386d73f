"""``make serve`` only: what the serve plugin keeps between rebuilds; the code of each page whose inputs changed
runs in the warm worker while MkDocs renders, and no build waits for it.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from pathlib import Path

from journal_tools.core.record import verified
from journal_tools.core.record.inputs import Inputs
from journal_tools.core.settings import Settings
from journal_tools.serve import panels
from journal_tools.serve.background_figures import BackgroundFigures
from journal_tools.serve.background_notebooks import BackgroundNotebooks
from journal_tools.serve.code_runner import CodeRunner
from journal_tools.serve.rebuild_requests import RebuildRequests
from journal_tools.serve.save_log import SaveLog

__all__ = ["ServeState"]


class ServeState:
    """What the plugin keeps between rebuilds of one ``mkdocs serve``."""

    def __init__(self, settings: Settings):
        self.runner = CodeRunner(settings)
        self.read: dict[Path, Inputs] = {}  # what the page tests read of each page when its last run was queued
        self.results: dict[Path, Future] = {}
        self.started: dict[Path, str] = {}  # when each page's newest run was queued (its status line says so)
        self.served: dict[str, tuple[Path, list[int]]] = {}  # a page's output file (dest_uri) -> its source, its fences' lines
        self.build_error: str | None = None  # what the browser shows instead of pages
        # The last build's mistakes of pages it served all the same (``panels.build_problem``), by page.
        self.build_problems: dict[Path, list[dict]] = {}
        self.rebuilds = 0  # rebuilds after the first build, each logged as done or failed
        self.last_error: str | None = None  # the current build's error, until it ends
        self.rebuild_requests = RebuildRequests()
        self.save_log = SaveLog(settings)
        self.notebooks = BackgroundNotebooks(lambda: self.ask_rebuild("a notebook run in the background"))
        self.figures = BackgroundFigures(lambda: self.ask_rebuild("a figure redrawn in the background"))

    def ask_rebuild(self, reason: str) -> None:
        """Background work is done: the next rebuild shows it (its terminal line names ``reason``)."""
        self.save_log.asked_by(reason)
        self.rebuild_requests.ask()

    def schedule(self, pages: list[Path], settings: Settings) -> None:
        """Start running the pages whose inputs changed since the last build."""
        self.runner.settings = settings
        self.save_log.settings = settings
        changed = []
        for page in pages:
            try:
                read = Inputs.observe(verified.read_by_tests(page, settings), root=settings.root)
            except (OSError, UnicodeError):
                read = Inputs({settings.rel(page): "unreadable"})
            if page not in self.results or self.read.get(page) != read or self._code_read_changed(page, settings):
                self.read[page] = read
                changed.append(page)
        futures = self.runner.run(changed) if changed else {}
        now = time.strftime("%H:%M:%S")
        self.results.update(futures)
        self.started.update({p: now for p in futures})
        self.save_log.scheduled(futures)

    def _code_read_changed(self, page: Path, settings: Settings) -> bool:
        """Has a file or folder that the page's code read in its last finished run changed since?"""
        future = self.results.get(page)
        result = future.result() if future is not None and future.done() else None
        code_read = (result or {}).get("read")
        return code_read is not None and not Inputs(code_read["files"], code_read["folders"]).holds(settings.root)

    def outcome(self, page: Path) -> dict | None:
        """``page``'s run result now (never waits): None without a run, ``{"pending": True}`` until its newest is done; mistakes first."""
        future = self.results.get(page)
        problems = self.build_problems.get(page, [])
        if future is None:
            return None if not problems else {"page": str(page), "ran": 0, "seconds": 0.0, "failures": problems}
        result = future.result() if future.done() else None
        if result is None or result.get("superseded"):
            result = {"page": str(page), "ran": 0, "seconds": 0.0, "pending": not problems, "failures": [],
                      "at": self.started.get(page)}
        if not problems:
            return result
        return result | {"failures": panels.with_build_problems(problems, result["failures"])}

    def wait_for(self, page: Path, timeout: float) -> dict | None:
        """``outcome(page)`` once its newest run is done, or as it stands after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while (future := self.results.get(page)) is not None:
            try:
                result = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                break
            if not result.get("superseded") or self.results.get(page) is future:
                break  # done; or superseded by a run that is the newest now (the loop waits for that one)
            if time.monotonic() >= deadline:
                break
        return self.outcome(page)
