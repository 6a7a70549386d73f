"""MkDocs' live-reload server (``mkdocs.livereload.LiveReloadServer``, MkDocs 1.6).

MkDocs hands plugins the server in ``on_serve`` and documents only ``watch``
and ``unwatch`` on it. Showing a build error in the browser
(``journal_tools.serve.error_pages``, ``journal_tools.serve.rebuild_requests``) needs three things it has no public way to do: wait
for the rebuild under way (so a request never sees half a build), give a page
of ours the live-reload script with the epoch the browser polls, and ask for a
rebuild when a background job (a notebook, a figure) is done, as its own file
watcher does; and it offers no hook for a failed build, so the server's
``builder`` attribute and its request handler (wsgiref's ``get_app``/``set_app``)
are replaced on the one server instance (:func:`wrap_builder`, :func:`wrap_app`).
"""

from __future__ import annotations

from journal_tools.compat import require

__all__ = ["request_rebuild", "visible_epoch", "with_livereload_script", "wrap_app", "wrap_builder"]

DIST = "mkdocs"


def visible_epoch(server) -> int:
    """Wait until no rebuild is under way; return the epoch of the site browsers now see.

    What the server's own page requests do before answering (its
    ``_epoch_cond`` guards ``_visible_epoch`` and ``_wanted_epoch``).
    """
    cond = require(server, "_epoch_cond", DIST, "wait for the rebuild under way")
    require(server, "_wanted_epoch", DIST, "tell a rebuild under way")
    with cond:
        cond.wait_for(lambda: server._visible_epoch == server._wanted_epoch)
        return require(server, "_visible_epoch", DIST, "know the epoch browsers see")


def with_livereload_script(server, content: bytes, epoch: int) -> bytes:
    """``content`` (an HTML page) with the server's live-reload script for ``epoch`` before ``</body>``.

    The script's template is private too; the server's own injector keeps
    the page polling exactly as MkDocs' pages do.
    """
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
