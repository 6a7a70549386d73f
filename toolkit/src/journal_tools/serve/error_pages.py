"""``make serve`` only: a failed rebuild serves an error page with the build's ``file:line`` messages, and live
reload brings the site back once fixed.
"""

from __future__ import annotations

import html
import logging
import time
from typing import TYPE_CHECKING

from journal_tools.compat import livereload

if TYPE_CHECKING:
    from journal_tools.serve.state import ServeState

__all__ = ["error_page", "install_error_pages"]

log = logging.getLogger("mkdocs.plugins.journal.serve")


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
    """Keep a failed rebuild visible: the server's builder stops raising and its pages show the error."""

    def around_build(build):
        def builder(*args, **kwargs):
            # build_error changes only when a build ends, so a request never sees a half state; the plugin's on_build_error leaves the real
            # message in last_error (MkDocs then raises a bare Abort).
            state.last_error = None
            state.rebuilds += 1
            start = time.monotonic()
            try:
                build(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every build error goes to the browser
                state.build_error = state.last_error or str(exc) or type(exc).__name__
                state.save_log.scheduled({})  # its pages are not served: their runs report on their pages
                state.save_log.failed(state.build_error)  # the build that ends next says it is fixed
                log.error("rebuild %d failed; the browser shows: %s", state.rebuilds, state.build_error.split("\n", 1)[0])
            else:
                state.build_error = None
                # Every rebuild ends in this line (save_log: once its code is done too) or the one above. MkDocs' own "Documentation built
                # in 0.45 seconds" went through a filter that drops a message seen before (mkdocs.__main__ puts utils.DuplicateFilter on the
                # build logger), so a rebuild as fast as an earlier one used to end with no line at all.
                state.save_log.built(f"rebuild {state.rebuilds}", time.monotonic() - start)

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
    state.rebuild_requests.attach(server)  # and a rebuild asked for during the first build happens now
