"""``make serve`` only: what the serve plugin keeps between rebuilds of one ``mkdocs serve``.

The code of every page whose inputs changed since the last build (the page,
the snippet files it includes, the snippet modules its code imports) runs in
the warm worker (``code_runner``) while MkDocs renders; a render waits a few
seconds for its page's code, then shows "code still running" and the page is
rebuilt when the code is done. The other serve modules: ``error_pages`` (a
failed rebuild in the browser), ``background_notebooks`` and
``background_figures`` (work that would hold up a reload, done after it),
``rebuild_requests`` (asking the server for the next rebuild).
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from pathlib import Path

from journal_tools.core.record import verified
from journal_tools.core.settings import Settings
from journal_tools.serve.background_figures import BackgroundFigures
from journal_tools.serve.background_notebooks import BackgroundNotebooks
from journal_tools.serve.code_runner import CodeRunner
from journal_tools.serve.rebuild_requests import RebuildRequests

__all__ = ["ServeState"]

log = logging.getLogger("mkdocs.plugins.journal.serve")

WAIT_SECONDS = 2  # how long a page's render waits for its code; then "code still running", and a rebuild when done


class ServeState:
    """What the plugin keeps between rebuilds of one ``mkdocs serve``."""

    def __init__(self, settings: Settings):
        self.runner = CodeRunner(settings)
        self.fingerprints: dict[Path, str] = {}
        self.results: dict[Path, Future] = {}
        self.build_error: str | None = None  # what the browser shows instead of pages
        self.rebuilds = 0  # rebuilds after the first build, each logged as done or failed
        self.last_error: str | None = None  # the current build's error, until it ends
        self.rebuild_requests = RebuildRequests()
        self.notebooks = BackgroundNotebooks(self.rebuild_requests.ask)
        self.figures = BackgroundFigures(self.rebuild_requests.ask)
        self._rebuild_when_done: set[Future] = set()

    def schedule(self, pages: list[Path], settings: Settings) -> None:
        """Start running the pages whose inputs changed since the last build."""
        self.runner.settings = settings
        changed = []
        for page in pages:
            # The verified badge's digest: the page, the snippets it includes or
            # imports (the one include expander, imports followed), requirements.txt.
            fp = verified.page_digest(page, settings)
            if self.fingerprints.get(page) != fp or page not in self.results:
                self.fingerprints[page] = fp
                changed.append(page)
        if changed:
            # A count, and the names only of a few: the first build of a large journal runs every page.
            names = ", ".join(settings.rel(p) for p in changed[:3]) + (f" and {len(changed) - 3:,} more" if len(changed) > 3 else "")
            log.info("running the code of %s page%s: %s", f"{len(changed):,}", "" if len(changed) == 1 else "s", names)
            self.results.update(self.runner.run(changed))

    def outcome(self, page: Path) -> dict | None:
        """The run result for ``page`` (waiting for it), or None for a page that has no run."""
        future = self.results.get(page)
        if future is None:
            return None
        try:
            return future.result(timeout=WAIT_SECONDS)
        except TimeoutError:
            if future not in self._rebuild_when_done:  # show the outcome when it comes
                self._rebuild_when_done.add(future)
                future.add_done_callback(self._done_late)
            return {"page": str(page), "ran": 0, "seconds": WAIT_SECONDS, "pending": True, "failures": []}

    def _done_late(self, future: Future) -> None:
        self._rebuild_when_done.discard(future)
        if not future.result().get("superseded"):
            self.rebuild_requests.ask()
