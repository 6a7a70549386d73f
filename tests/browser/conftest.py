"""Browser fixtures of the journal's checks: the session's build (tests/conftest.py
`built`) served on 127.0.0.1 by a threaded http.server on a free port, for the
Chromium of tests/conftest.py (`browser`)."""

from __future__ import annotations

import functools
import os
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from journal_tools.testing.page_check_reuse import PageChecks
from journal_tools.testing.source_lines import SourceLines


class _QuietHandler(SimpleHTTPRequestHandler):
    prefix = "/"

    def translate_path(self, path):
        # Served under site_url's path, as GitHub Pages does (404.html links its
        # assets absolutely: /llm-journal/assets/...). Anything else is a 404.
        if not path.startswith(self.prefix):
            return os.path.join(self.directory, "\0-outside-the-site")
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, format, *args):  # noqa: A002
        pass


def site_prefix(project: Path) -> str:
    """The path of site_url in mkdocs.yml ("/llm-journal/"), or "/"."""
    config = (project / "mkdocs.yml").read_text(encoding="utf-8")
    m = re.search(r"(?m)^site_url:\s*['\"]?([^'\"\s]+)", config)
    path = urlsplit(m.group(1)).path if m else "/"
    return "/" + path.strip("/") + "/" if path.strip("/") else "/"


class Server:
    def __init__(self, root: Path, prefix: str = "/"):
        handler_cls = type("Handler", (_QuietHandler,), {"prefix": prefix})
        handler = functools.partial(handler_cls, directory=str(root))
        self.prefix = prefix
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.host, self.port = self.httpd.server_address[:2]
        self.origin = f"http://{self.host}:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, rel: str) -> str:
        return f"{self.origin}{self.prefix}{rel}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def server(built):
    srv = Server(built.site, site_prefix(built.project))
    yield srv
    srv.close()


class Visit:
    """One page load with everything that went wrong recorded."""

    def __init__(self, browser, server: Server, *, color_scheme: str = "light"):
        self.server = server
        self.console_errors: list[str] = []
        self.outside: list[str] = []
        self.fetched: list[str] = []  # every URL of the site requested (journal_tools/testing/page_check_reuse.py keys on them)
        self.context = browser.new_context(color_scheme=color_scheme, viewport={"width": 1280, "height": 900},
                                           service_workers="block")
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.console_errors.append(f"uncaught: {e}"))

    def _console(self, msg) -> None:
        if msg.type != "error":
            return
        url = msg.location.get("url", "")
        if url in self.outside and "net::ERR_FAILED" in msg.text:
            return  # our own abort of an outside request: reported as such, once
        self.console_errors.append(f"console.error: {msg.text} ({url}:{msg.location.get('lineNumber', '')})")

    def _route(self, route):
        url = route.request.url
        if url.startswith(self.server.origin + "/") or url == self.server.origin:
            self.fetched.append(url)
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def load(self, rel: str, scheme: str | None = None) -> None:
        """Load site page ``rel`` afresh (fetches recorded from here), its fonts ready; with ``scheme``
        (Material's name of the palette the browser asked for), check that Material took it (else
        the dark run could silently test the light palette twice)."""
        self.fetched.clear()
        response = self.page.goto(self.server.url(rel), wait_until="load")
        assert response is not None and response.ok, f"{rel}: HTTP {response.status if response else '-'}"
        self.page.evaluate("document.fonts.ready.then(() => true)")
        if scheme is not None:
            got = self.page.evaluate("document.body.getAttribute('data-md-color-scheme')")
            assert got == scheme, f"{rel}: Material's scheme is {got!r}, not the {scheme!r} the browser asked for"

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser, server):
    visits: list[Visit] = []

    def open_visit(**kwargs) -> Visit:
        v = Visit(browser, server, **kwargs)
        visits.append(v)
        return v

    yield open_visit
    for v in visits:
        v.close()


@pytest.fixture
def page_checks(request, built, server, browser) -> PageChecks:
    """The records of this test's passing page checks, reused while nothing a page loads changed."""
    return PageChecks(request, built.site, server.prefix, browser.version)


@pytest.fixture(scope="session")
def sources(built) -> SourceLines:
    """The source ``file:line`` behind an element of a built page (journal_tools/testing/source_lines.py)."""
    return SourceLines(built.project)
