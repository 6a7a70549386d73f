"""``make serve``'s MkDocs plugin (``journal-serve``), idle under ``mkdocs build``: the recent window, each saved
page's code in a warm worker, figures and notebooks in the background, a line per save, failed rebuilds in
the browser. It imports nothing of the journal plugin and sets its ``draw_figures`` and ``page_mistake``.
"""

from __future__ import annotations

import logging
import time
import urllib.parse
from pathlib import Path

from mkdocs.config import base
from mkdocs.plugins import BasePlugin, event_priority

from journal_tools.compat import jupyter, livereload, mkdocs_config, mkdocs_log, pages
from journal_tools.core.code import figures
from journal_tools.core.page import fences
from journal_tools.core.settings import Settings
from journal_tools.serve import error_pages, live_panels, panels, save_log, state
from journal_tools.serve import window as serve_window

__all__ = ["ServeConfig", "ServePlugin"]

log = logging.getLogger("mkdocs.plugins.journal.serve")


class ServeConfig(base.Config):
    """The ``journal-serve`` plugin has no options."""


class ServePlugin(BasePlugin[ServeConfig]):
    """What ``mkdocs serve`` adds to a build of the journal."""

    serving = False
    settings: Settings
    serve_state: state.ServeState | None = None
    window: serve_window.Window | None = None  # the recent window (None: every entry)
    window_note: str | None = None  # what the window leaves out, shown on the pages that list entries

    def on_startup(self, *, command, dirty):
        """Note whether MkDocs serves (defining this also keeps one plugin instance across rebuilds)."""
        self.serving = command == "serve"
        n = serve_window.size() if self.serving else None
        self.window = serve_window.Window(n) if n is not None else None

    @event_priority(90)  # after the journal plugin's on_config (100): its draw_figures hook exists
    def on_config(self, config):
        """Start the warm worker; hand the journal plugin the worker's figure drawing."""
        if not self.serving:
            return config
        self.settings = mkdocs_config.from_config(config)
        if self.serve_state is None:
            self.serve_state = state.ServeState(self.settings)
            self.serve_state.runner.warm_up()
        journal = config.plugins.get("journal")
        if self.serve_state is not None and journal is not None:
            journal.draw_figures = self._draw_figures
            journal.page_mistake = self._page_mistake  # one broken page breaks only itself
        return config

    def on_pre_build(self, *, config):
        """Start this build's list of the pages that list entries."""
        self.listing_pages: set[str] = set()  # src_uri: the window's line goes there
        self.page_mistakes: dict[Path, list] = {}  # this build's mistakes of pages served all the same
        self.build_started = time.monotonic()

    @event_priority(110)  # before the journal plugin (100) checks the pages and the blog (-50) reads the posts
    def on_files(self, files, *, config):
        """Leave out the entries outside the recent window."""
        if self.window is not None and self.settings.blog is not None:
            note = self.window.apply(files, self.settings.blog.post_dir)
            if note != self.window_note and note is not None:
                log.info(note)
            self.window_note = note
        # The pages as served, before the blog (-50) turns its posts into views of its own.
        self.pages = [] if self.serve_state is None else [
            Path(f.abs_src_path) for f in files.documentation_pages() if f.abs_src_path and f.src_uri.endswith(".md")]
        return files

    def on_nav(self, nav, *, config, files):
        """Start running the code of changed pages (after every on_files: the journal plugin's figures are drawn first, same worker)."""
        if self.serve_state is not None:
            self.serve_state.schedule(self.pages, self.settings)
        return nav

    def _page_mistake(self, path: Path, mistake) -> None:
        """A mistake of this page: served under its panel, the build goes on (``make build`` stops at it)."""
        self.page_mistakes.setdefault(path, []).append(mistake)

    def _draw_figures(self, refs: list, dirs: list[Path], record) -> dict[str, str]:
        """The journal plugin's figures, drawn by the warm worker; a changed one shows its last drawing until redrawn."""
        shared = self.serve_state.figures
        shared.stale = dict(shared.last)
        svgs = figures.prepare(refs, dirs, record, self.serve_state.runner.draw, shared.stale)
        shared.last, shared.record = {t: svg for t, svg in svgs.items() if not svg.startswith("error: ")}, record
        return svgs

    @event_priority(-90)  # after mkdocs-jupyter's on_pre_page (0) gives notebooks their render, before the journal's (-100)
    def on_pre_page(self, page, *, config, files):
        """A notebook whose cache misses keeps its last outputs, marked stale, while it executes in the background."""
        render = page.render
        if self.serve_state is not None and page.file.abs_src_path and self.settings.is_notebook(Path(page.file.abs_src_path)) \
                and hasattr(render, "__func__"):
            pages.replace_render(page, self.serve_state.notebooks.wrap(
                page, render, jupyter.cache_path(config, page.file.abs_src_path)))
        return page

    def on_page_markdown(self, markdown, *, page, config, files):
        """Note a page listing tags (the window's line goes there)."""
        if self.window_note is not None and _lists_tags(markdown, config):
            self.listing_pages.add(page.file.src_uri)
        return markdown

    @event_priority(-110)  # after the blog's (-100), which gives a view the posts it lists
    def on_page_context(self, context, *, page, config, nav):
        """Note a page of the blog that lists entries (the window's line goes there)."""
        if self.window_note is not None and context.get("posts") is not None:
            self.listing_pages.add(page.file.src_uri)
        return context

    @event_priority(-110)  # after the journal plugin's (-100): the page as make build makes it, then ours on top
    def on_post_page(self, output, *, page, config):
        """The window's line on listing pages; anchors on the blocks of pages whose code runs (status lines added on request)."""
        if self.window_note is not None and page.file.src_uri in self.listing_pages:
            output = panels.with_panel(output, serve_window.note_html(self.window_note))
        path = Path(page.file.abs_src_path) if page.file.abs_src_path else None
        if self.serve_state is None or path is None or (path not in self.serve_state.results
                                                        and path not in self.page_mistakes):
            return output
        lines = path.read_text(encoding="utf-8").split("\n")
        try:
            starts = [f.start + 1 for f in fences.scan(lines)]
        except fences.FenceError:
            starts = []
        self.serve_state.served[page.file.dest_uri] = (path, starts)
        return panels.anchor_blocks(output, starts)

    def on_serve(self, server, *, config, builder):
        """Build errors shown in the browser, status lines on pages as requested; MkDocs' per-rebuild lines left to ours (``save_log``)."""
        if self.serve_state is not None:
            error_pages.install_error_pages(server, self.serve_state)
            mount = urllib.parse.urlsplit(config.site_url or "/").path or "/"
            livereload.wrap_app(server, live_panels.around_app(self.serve_state, mount if mount.endswith("/") else mount + "/"))
            mkdocs_log.quiet_rebuilds()
        return server

    def on_build_error(self, *, error):
        """Keep the build error's own message for the browser (MkDocs then raises a bare Abort)."""
        if self.serve_state is not None:
            self.serve_state.last_error = str(error)

    def on_shutdown(self):
        """Stop the code runner."""
        if self.serve_state is not None:
            self.serve_state.runner.close()

    def on_post_build(self, *, config):
        """Start the notebook runs and figure redraws this rebuild deferred; the first build's line."""
        if self.serve_state is not None:
            # The pages served under a panel for a mistake of their own: known before the build's
            # line (save_log) and before the next request (the server answers after the build).
            self.serve_state.build_problems = {
                path: [panels.build_problem(m) for m in found] for path, found in self.page_mistakes.items()}
            self.serve_state.save_log.build_problems(self.serve_state.build_problems)
            if self.serve_state.rebuild_requests.server is None:  # the first build (later ones: error_pages)
                self.serve_state.save_log.built(save_log.FIRST, time.monotonic() - self.build_started)
            self.serve_state.notebooks.start_pending()
            self.serve_state.figures.redraw_stale(self.serve_state.runner, list(self.settings.snippet_dirs))


def _lists_tags(markdown: str, config) -> bool:
    """Does the page hold a listing of Material's tags plugin (its ``<!-- material/tags -->`` directive)?"""
    tags = config.plugins.get("material/tags")
    return tags is not None and f"<!-- {tags.config.listings_directive}" in markdown
