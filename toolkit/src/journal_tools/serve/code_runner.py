"""``make serve`` only: the warm worker that runs saved pages' code, one page at a time, in a
thread of its own while MkDocs renders; a page queued again stops its old run.
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import Future
from pathlib import Path

from journal_tools.core.code import figures
from journal_tools.core.code.sandbox import Aborted, Sandbox
from journal_tools.core.record.inputs import Record
from journal_tools.core.settings import Settings
from journal_tools.serve import runner

__all__ = ["CodeRunner"]


class CodeRunner:
    """The warm worker process and the queue of pages to run in it, one page at a time."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.sandbox = Sandbox()
        self.record = Record(settings.root)  # the one record: the judge reuses what make test passed, and writes serve's passes
        self._queue: queue.Queue = queue.Queue()
        self._latest: dict[Path, Future] = {}  # each page's newest run: older ones are stale
        self._running: Path | None = None
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None

    def warm_up(self) -> None:
        """Start the worker now, in the background, so the first save finds it warm."""
        self.sandbox.start_in_background()

    def run(self, pages: list[Path]) -> dict[Path, Future]:
        """Queue ``pages``; a future per page. Queued again, a page replaces its older run and stops one in progress (code edited since)."""
        futures = {p: Future() for p in pages}
        with self._guard:
            for page, future in futures.items():
                self._latest[page] = future
                self._queue.put((page, future))
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, daemon=True, name="journal-code-runner")
                self._thread.start()
        return futures

    def _work(self) -> None:
        while True:
            page, future = self._queue.get()
            with self._guard:
                if self._latest.get(page) is not future:
                    future.set_result(_superseded(page))
                    continue
                self._running = page
            try:
                outcome = runner.run_page(self.sandbox, self.record, self.settings, page,
                                                stale=lambda p=page, f=future: self._latest.get(p) is not f)
            except Aborted:
                outcome = _superseded(page)
            except Exception as exc:  # the worker could not start: report on the page, try again next time
                outcome = {"page": str(page), "ran": 0, "seconds": 0.0, "failures": [
                    {"where": self.settings.rel(page), "line": None, "message": f"the code runner failed: {exc}", "report": ""}]}
            finally:
                with self._guard:
                    self._running = None
            # Stamped with when it ran (the panel shows it): an unchanged page then renders
            # the same bytes at every rebuild, and its template output is reused.
            future.set_result({**outcome, "at": time.strftime("%H:%M:%S")})

    @property
    def running(self) -> Path | None:
        """The page whose code runs now, if any."""
        return self._running

    def draw(self, targets: list[str], dirs, root=None, limit=None) -> dict[str, tuple[str, dict | None]]:
        """Draw build-time figures in the warm worker (``figures.prepare``'s ``draw``: {target: (svg, what it read)})."""
        return figures.draw_in(self.sandbox, targets, dirs, self.settings.root, self.settings.block_timeout)

    def close(self) -> None:
        """Stop the worker."""
        self.sandbox.close()


def _superseded(page: Path) -> dict:
    return {"page": str(page), "ran": 0, "seconds": 0.0, "pending": True, "superseded": True, "failures": []}
