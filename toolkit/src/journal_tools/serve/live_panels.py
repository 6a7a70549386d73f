"""``make serve`` only: each page's code-run status line, added as the page is sent, from the outcome known then.
A page whose code still runs asks ``<site>__journal__/run?page=...`` (a long poll of ``POLL_SECONDS``) and
replaces the line in place: no build waits for code, no second rebuild.
"""

from __future__ import annotations

import posixpath
import urllib.parse
from typing import TYPE_CHECKING

from journal_tools.serve import panels

if TYPE_CHECKING:
    from journal_tools.serve.state import ServeState

__all__ = ["POLL_SECONDS", "around_app", "poll_path"]

POLL_SECONDS = 20  # a long poll's longest wait; the page asks again after a 204
RUN_PATH = "__journal__/run"


def poll_path(mount: str, dest_uri: str) -> str:
    """Where the status line of the page written to ``dest_uri`` asks for its outcome."""
    return f"{mount}{RUN_PATH}?{urllib.parse.urlencode({'page': dest_uri})}"


def around_app(state: ServeState, mount: str):
    """Wrap the server's WSGI app: status lines on pages, and the outcome requests of ``poll_path``; ``mount``: the site's path."""

    def wrap(serve_request):
        def request(environ, start_response):
            path = environ.get("PATH_INFO", "")
            if path == f"{mount}{RUN_PATH}":
                return _outcome_request(state, environ, start_response)
            dest = _dest(path, mount)
            if dest is None or dest not in state.served:
                return serve_request(environ, start_response)
            return _with_status(state, mount, dest, serve_request, environ, start_response)

        return request

    return wrap


def _dest(path: str, mount: str) -> str | None:
    """The output file a page request asks for (``blog/x/index.html``), as the server maps it."""
    if not path.startswith(mount) or not (path.endswith("/") or path.endswith(".html")):
        return None
    rel = path[len(mount):] + ("index.html" if path.endswith("/") else "")
    return posixpath.normpath("/" + rel).lstrip("/")


def _with_status(state: ServeState, mount: str, dest: str, serve_request, environ, start_response):
    answer: dict = {}

    def keep(status, headers, exc_info=None):
        answer.update(status=status, headers=headers)
        return lambda data: None  # the legacy write(); the server's app returns its body instead

    # The server answers once a rebuild under way has ended: the outcome is read after that, so a
    # page of the new build never carries the outcome of the code of the build before.
    body = serve_request(environ, keep)
    try:
        content = b"".join(body)
    finally:
        getattr(body, "close", lambda: None)()
    source = state.served.get(dest, (None,))[0]
    outcome = state.outcome(source) if source is not None else None
    if answer.get("status", "").startswith("200") and outcome is not None \
            and (outcome["ran"] or outcome["failures"] or outcome.get("pending")):  # a page with no code: no line
        panel = panels.panel_html(outcome, poll_path(mount, dest) if outcome.get("pending") else None)
        content = panels.with_panel(content.decode("utf-8"), panel).encode("utf-8")
    headers = [(k, str(len(content)) if k.lower() == "content-length" else v) for k, v in answer.get("headers", [])]
    start_response(answer.get("status", "500 Internal Server Error"), headers)
    return [content]


def _outcome_request(state: ServeState, environ, start_response):
    """The status line of a page once its code is done (200), or 204 after ``POLL_SECONDS``."""
    dest = urllib.parse.parse_qs(environ.get("QUERY_STRING", "")).get("page", [""])[0]
    served = state.served.get(dest)
    if served is None:
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"no such page"]
    outcome = state.wait_for(served[0], POLL_SECONDS)
    if outcome is None or outcome.get("pending"):
        start_response("204 No Content", [("Cache-Control", "no-store")])
        return []
    content = panels.status_html(outcome).encode("utf-8")
    start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(content))),
                              ("Cache-Control", "no-store")])
    return [content]
