"""``make serve`` only: a notebook whose cache misses keeps its outputs, marked stale, and executes after the
rebuild, which another follows (DECISIONS.md: 4 s against 17 s to the entry).
"""

from __future__ import annotations

import html
import threading
from pathlib import Path

from journal_tools.compat import jupyter
from journal_tools.serve import panels

__all__ = ["BackgroundNotebooks"]


class BackgroundNotebooks:
    """A cache-missing notebook keeps its last outputs, marked stale, while a thread executes it into the cache; then a rebuild."""

    def __init__(self, rebuild):
        self.last: dict[str, tuple[str, object, str | None]] = {}  # src -> (content, toc, title)
        self.running: set[str] = set()
        self.failed: dict[str, str] = {}  # cache path -> message
        self.pending: dict[str, tuple] = {}  # src -> what _start needs, until the build ends
        self.request_rebuild = rebuild  # asks the live-reload server for the next rebuild

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
