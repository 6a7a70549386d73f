"""MkDocs' live-reload server (1.6), which documents only ``watch``/``unwatch``: wait for the rebuild under way,
give a page of ours its script and epoch, ask for a rebuild, and replace its ``builder`` and request handler
on the one instance (no hook sees a failed build), for serve's error pages.
"""

from __future__ import annotations

from journal_tools.compat import require

__all__ = ["request_rebuild", "visible_epoch", "with_livereload_script", "wrap_app", "wrap_builder"]

DIST = "mkdocs"


def visible_epoch(server) -> int:
    """Wait until no rebuild is under way; return the epoch browsers now see (as the server's own requests do)."""
    cond = require(server, "_epoch_cond", DIST, "wait for the rebuild under way")
    require(server, "_wanted_epoch", DIST, "tell a rebuild under way")
    with cond:
        cond.wait_for(lambda: server._visible_epoch == server._wanted_epoch)
        return require(server, "_visible_epoch", DIST, "know the epoch browsers see")


def with_livereload_script(server, content: bytes, epoch: int) -> bytes:
    """``content`` with the server's (private) live-reload script for ``epoch`` before ``</body>``."""
    return require(server, "_inject_js_into_html", DIST, "add the live-reload script to an error page")(content, epoch)


def request_rebuild(server) -> None:
    """Ask the server for a rebuild, as its file watcher does on a change."""
    cond = require(server, "_rebuild_cond", DIST, "ask for a rebuild")
    require(server, "_want_rebuild", DIST, "ask for a rebuild")  # setting a renamed flag would do nothing, silently
    with cond:
        server._want_rebuild = True
        cond.notify_all()


def wrap_builder(server, around) -> None:
    """Make the server rebuild with ``around(its builder)``: the attribute its watcher thread calls."""
    build = require(server, "builder", DIST, "show a failed rebuild in the browser")
    server.builder = around(build)


def wrap_app(server, around) -> None:
    """Make the server answer requests with ``around(its WSGI app)`` (wsgiref's ``get_app``/``set_app``)."""
    server.set_app(around(server.get_app()))
