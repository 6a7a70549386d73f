"""The author's loop: what ``make serve`` adds to a build (never ``make build``).

- **Code runs on save.** A warm worker process (``sandbox``, PyTorch
  imported once; ``runner`` says what it runs) runs the blocks of every
  page whose inputs changed since the last build: the page itself, the snippet
  files it includes, the snippet modules its code imports (followed through
  snippet-to-snippet imports). It runs while MkDocs renders the other pages;
  each page then shows a discreet status line, or a panel naming ``file:line``
  with the message and the mapped traceback and a link to the failing block.
  A block past its time limit is stopped and shown the same way, and so is
  one that ends or crashes the worker; a new worker serves the next save. A
  page saved again while its old code still runs has that run stopped. A
  render waits a few seconds for its page's code, then shows "code still
  running" and the page is rebuilt when the code is done.
- **Build errors show in the browser.** A failed rebuild (bad TeX, bad front
  matter, a missing include) no longer leaves the browser waiting: every page
  request gets an error page with the message, and live reload brings the
  site back once the file is fixed.
- **Notebooks never hold up a reload.** When a notebook's cache misses, the
  page keeps its previous outputs, marked stale, while the notebook executes
  in the background; a rebuild follows when it is done.
"""

from __future__ import annotations

import html
import logging
import queue
import threading
import time
from concurrent.futures import Future
from pathlib import Path

from journal_tools.compat import jupyter, livereload
from journal_tools.core import verified
from journal_tools.core.sandbox import Aborted, Sandbox
from journal_tools.core.settings import Settings
from journal_tools.serve import panels, runner

__all__ = ["BackgroundFigures", "BackgroundNotebooks", "CodeRunner", "ServeState", "error_page", "install_error_pages"]

log = logging.getLogger("mkdocs.plugins.journal.serve")

WAIT_SECONDS = 2  # how long a page's render waits for its code; then "code still running", and a rebuild when done


class CodeRunner:
    """The warm worker process and the queue of pages to run in it, one page at a time."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.sandbox = Sandbox(spare=True)
        self._queue: queue.Queue = queue.Queue()
        self._latest: dict[Path, Future] = {}  # each page's newest run: older ones are stale
        self._running: Path | None = None
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None

    def warm_up(self) -> None:
        """Start the worker now, in the background, so the first save finds it warm."""
        self.sandbox.start_in_background()

    def run(self, pages: list[Path]) -> dict[Path, Future]:
        """Queue ``pages``; a future per page. A page queued again replaces its older run,
        and its run in progress, if any, is stopped (it runs code that was since edited)."""
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
                outcome = runner.run_page(self.sandbox, self.settings, page,
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

    def draw(self, targets: list[str], dirs) -> dict[str, str]:
        """Draw build-time figures in the warm worker (``figures.prepare``'s ``draw``)."""
        return runner.figures_in(self.sandbox, self.settings, targets)

    def close(self) -> None:
        """Stop the worker."""
        self.sandbox.close()


def _superseded(page: Path) -> dict:
    return {"page": str(page), "ran": 0, "seconds": 0.0, "pending": True, "superseded": True, "failures": []}


class ServeState:
    """What the plugin keeps between rebuilds of one ``mkdocs serve``."""

    def __init__(self, settings: Settings):
        self.runner = CodeRunner(settings)
        self.fingerprints: dict[Path, str] = {}
        self.results: dict[Path, Future] = {}
        self.build_error: str | None = None  # what the browser shows instead of pages
        self.rebuilds = 0  # rebuilds after the first build, each logged as done or failed
        self.last_error: str | None = None  # the current build's error, until it ends
        self.notebooks = BackgroundNotebooks()
        self.figures = BackgroundFigures(self.notebooks)
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
            self.notebooks.request_rebuild()


def error_page(message: str) -> bytes:
    """A page showing a build error (live reload is added by the server)."""
    return (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Build failed</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}"
        "pre{white-space:pre-wrap;background:#f5f5f5;padding:1rem;border-left:4px solid #c62828}</style></head>"
        "<body><h1>The site did not build</h1><p>Fix the file named below and save: this page reloads by itself.</p>"
        f"<pre>{html.escape(message)}</pre></body></html>"
    ).encode()


def install_error_pages(server, state: ServeState) -> None:
    """Keep a failed rebuild visible: the server's builder stops raising, its pages show the error.

    LiveReloadServer (MkDocs 1.6) leaves browsers waiting when the builder
    raises, and offers no hook for a build error; so its builder and its
    request handler are wrapped on this one server instance
    (``journal_tools.compat.livereload``).
    """

    def around_build(build):
        def builder(*args, **kwargs):
            # build_error changes only when a build ends, so a request never sees a half state;
            # the plugin's on_build_error leaves the real message in last_error (MkDocs then
            # raises a bare Abort).
            state.last_error = None
            state.rebuilds += 1
            start = time.monotonic()
            try:
                build(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every build error goes to the browser
                state.build_error = state.last_error or str(exc) or type(exc).__name__
                log.error("rebuild %d failed; the browser shows: %s", state.rebuilds, state.build_error.split("\n", 1)[0])
            else:
                state.build_error = None
                # Every rebuild ends in this line or the one above. MkDocs' own "Documentation
                # built in 0.45 seconds" goes through a filter that drops a message seen before
                # (mkdocs.__main__ puts utils.DuplicateFilter on the build logger), so a rebuild
                # as fast as an earlier one used to end with no line at all.
                log.info("rebuild %d done in %.2f s", state.rebuilds, time.monotonic() - start)

        return builder

    def around_app(serve_request):
        def request(environ, start_response):
            path = environ.get("PATH_INFO", "")
            if "/livereload/" in path or not (path.endswith("/") or path.endswith(".html")):
                return serve_request(environ, start_response)
            epoch = livereload.visible_epoch(server)  # as the server does: never answer from the middle of a rebuild
            if state.build_error is not None:
                content = livereload.with_livereload_script(server, error_page(state.build_error), epoch)
                start_response("500 Internal Server Error", [("Content-Type", "text/html"), ("Content-Length", str(len(content)))])
                return [content]
            return serve_request(environ, start_response)

        return request

    livereload.wrap_builder(server, around_build)
    livereload.wrap_app(server, around_app)
    state.notebooks.server = server
    if state.notebooks.rebuild_wanted:  # asked for during the first build, before the server was handed over
        state.notebooks.request_rebuild()


class BackgroundNotebooks:
    """``make serve`` only: a notebook whose cache misses executes in the background.

    mkdocs-jupyter executes a notebook inside the page's ``render`` when its
    cache misses, holding up the whole rebuild (5 to 15 s here). While serving,
    the page instead keeps the outputs of its last render, marked stale, the
    execution runs in a thread (it writes mkdocs-jupyter's cache entry), and a
    rebuild is requested when it is done, which then hits the cache.
    """

    def __init__(self):
        self.last: dict[str, tuple[str, object, str | None]] = {}  # src -> (content, toc, title)
        self.running: set[str] = set()
        self.failed: dict[str, str] = {}  # cache path -> message
        self.pending: dict[str, tuple] = {}  # src -> what _start needs, until the build ends
        self.server = None
        self.rebuild_wanted = False  # a rebuild asked for before there was a server

    def start_pending(self) -> None:
        """Start the executions the build asked for (called when the build is done)."""
        pending, self.pending = self.pending, {}
        for src, (render, cache_path, config, files) in pending.items():
            self._start(src, render, cache_path, config, files)

    def wrap(self, page, render, cache_path: Path | None):
        """A render for ``page`` that never executes in the foreground once the page has outputs."""
        src = page.file.abs_src_path
        state = self

        def serve_render(config, files):
            if cache_path is None or cache_path.exists() or src not in state.last:
                render(config, files)  # first render, or a cache hit: as in a build (the journal plugin's
                # checked render, wrapped around this one, names a failing cell's line)
                state.last[src] = (page.content, page.toc, page.title)
                return
            content, toc, title = state.last[src]
            note = state.failed.get(str(cache_path))
            if note is None and src not in state.running:
                # Started when this build is done (start_pending): the kernel's start-up
                # would otherwise compete for the CPU with the rebuild the author waits for.
                state.pending[src] = (render, cache_path, config, files)
            banner = (f'<p class="journal-run journal-run--failed" role="alert">The notebook failed to run: '
                      f"{html.escape(note)}</p>" if note else
                      '<p class="journal-run journal-run--ok" role="status">⏳ These outputs are stale: the notebook is '
                      "running with your changes; this page reloads when it is done.</p>")
            page.content, page.toc = panels.PANEL_STYLE + banner + content, toc
            if title:
                page.title = title

        return serve_render

    def _start(self, src: str, render, cache_path: Path, config, files) -> None:
        self.running.add(src)

        def work():
            try:
                jupyter.render_detached(render, config, files)  # writes the cache entry, leaves the live page alone
            except Exception as exc:  # noqa: BLE001 - shown on the page at the next rebuild
                self.failed[str(cache_path)] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"
            finally:
                self.running.discard(src)
                self.request_rebuild()

        threading.Thread(target=work, daemon=True).start()

    def request_rebuild(self) -> None:
        """Ask the live-reload server for a rebuild, as its file watcher does (once it is
        known: MkDocs hands it over after the first build)."""
        server = self.server
        if server is None:
            self.rebuild_wanted = True
            return
        livereload.request_rebuild(server)


class BackgroundFigures:
    """``make serve`` only: a figure whose snippet changed is redrawn after the rebuild.

    Drawing takes the warm worker a second or more (matplotlib); the rebuild the
    author waits for serves the figure's last drawing instead, then the worker
    redraws it into the figure cache and a rebuild is requested, which hits the
    cache. A figure that was never drawn is drawn in the rebuild itself.
    """

    def __init__(self, notebooks: BackgroundNotebooks):
        self.last: dict[str, str] = {}  # target -> the SVG the last build showed
        self.stale: dict[str, str] = {}  # targets served from ``last`` in this build
        self.cache_dir: Path | None = None
        self._rebuild = notebooks.request_rebuild

    def redraw_stale(self, runner: CodeRunner, dirs: list[Path]) -> None:
        """Redraw this build's stale figures in the background; rebuild when done."""
        targets, self.stale = sorted(self.stale), {}
        if not targets:
            return

        def work():
            from journal_tools.core import figures
            try:
                digest = figures.snippets_digest(dirs)
                drawn = runner.draw(targets, dirs)
                for target, svg in drawn.items():
                    if self.cache_dir is not None and not svg.startswith("error: "):
                        figures.cache_store(self.cache_dir, target, digest, svg)
                    else:
                        self.last.pop(target, None)  # the next build draws it in the foreground, failing loudly
            except Exception:  # noqa: BLE001 - the next build draws in the foreground and reports
                for target in targets:
                    self.last.pop(target, None)
            self._rebuild()

        threading.Thread(target=work, daemon=True).start()
