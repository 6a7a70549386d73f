"""The fixtures of the checks of a journal's built site (testing/checks/), registered by the
toolkit's pytest plugin: the journal read from its mkdocs.yml, the session's one build of it,
that build served on 127.0.0.1, and Chromium's visits of it.

``docs_build``: one ``mkdocs build --strict`` per session of a frozen copy of the journal,
drafts included (a draft gets every check of the built site before it is published;
``make build`` still leaves it out); it never fails by itself. Exactly one test reports on it
(``BUILD_TEST``). ``built``: that build, for the checks that look at it; when it failed they
skip naming that test, so one mistake in docs/ is one failure, and when that test is not in
the run (``-k``) they fail with the build's first problem, so a failed build is never only skips.
A browser library's error in a check fails it at the page being visited (``pytest_pyfunc_call``).
"""

from __future__ import annotations

import functools
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

# The modules the fixtures use are imported by them, not here: this module is registered in every
# pytest run of the journal, `make check PAGE=...` too, which builds no site.


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory, request):
    """The session's one strict build of a frozen copy of the journal (drafts built); never fails itself."""
    from journal_tools.testing.site import copy_project, session_build, with_drafts

    root = request.config.rootpath
    return session_build(tmp_path_factory, "journal-build", lambda folder: with_drafts(copy_project(folder, root)))


@pytest.fixture(scope="session")
def built(docs_build, request):
    """That build, for the checks that look at it (skips naming BUILD_TEST when it failed)."""
    from journal_tools.testing.site import BUILD_TEST, build_problem, in_this_run

    if docs_build.returncode != 0:
        if in_this_run(request.session, BUILD_TEST):
            pytest.skip(f"docs/ did not build, so there is no site to look at: {BUILD_TEST} reports why")
        pytest.fail(f"{build_problem(docs_build.output, docs_build.project)}\n(docs/ did not build; "
                    f"{BUILD_TEST}, which reports it, is not in this run)", pytrace=False)
    return docs_build


@pytest.fixture(scope="session")
def journal(built):
    """The frozen copy the session built, read as its checks read it."""
    from journal_tools.testing.journal import Journal

    return Journal(built.project)


@pytest.fixture(scope="session")
def sources(built):
    """The source ``file:line`` behind an element of a built page (testing/source_lines.py)."""
    from journal_tools.testing.source_lines import SourceLines

    return SourceLines(built.project)


class _QuietHandler(SimpleHTTPRequestHandler):
    prefix = "/"

    def translate_path(self, path):
        # Served under site_url's path, as GitHub Pages does (404.html links its assets
        # absolutely: /<repository>/assets/...). Anything else is a 404.
        if not path.startswith(self.prefix):
            return os.path.join(self.directory, "\0-outside-the-site")
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, format, *args):  # noqa: A002
        pass


class Server:
    """``root`` served on a free port of 127.0.0.1 under ``prefix``, from a thread."""

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
        """The URL of the site's file ``rel``."""
        return f"{self.origin}{self.prefix}{rel}"

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def server(built, journal):
    """The session's build served under site_url's path."""
    srv = Server(built.site, journal.site_prefix)
    yield srv
    srv.close()


VISITS = pytest.StashKey[list]()  # a test's Visits, for the failure of a browser error


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    """A browser library's error (Playwright's timeout, a page that crashed) fails its test at the page it was on: the
    page's source file:line and URL, never the library's traceback alone. Every check visiting pages goes through here."""
    try:
        return (yield)
    except Exception as exc:
        if not type(exc).__module__.startswith("playwright."):
            raise
        pytest.fail(browser_failure(exc, pyfuncitem.stash.get(VISITS, [])), pytrace=False)


def browser_failure(exc: Exception, visits: list) -> str:
    """The located failure of browser error ``exc`` raised while ``visits`` were open (the last page loaded is where)."""
    said = str(exc).strip().split("\n", 1)[0]  # Playwright's call log follows its first line
    visit = next((v for v in reversed(visits) if v.document), None)
    if visit is None:
        return f"the browser failed before any page of the site was loaded: {type(exc).__name__}: {said}"
    path = urlsplit(visit.document).path
    rel = path.removeprefix(visit.server.prefix) if path.startswith(visit.server.prefix) else path.lstrip("/")
    rel = rel + "index.html" if rel.endswith("/") or not rel else rel
    return (f"{visit.locate(rel)}: the browser check stopped on {visit.document}: {type(exc).__name__}: {said} "
            "(a page that loads slowly or not at all, or a check that waited for an element the page lacks)")


class Visit:
    """One browser context on the served site, with everything that went wrong recorded."""

    def __init__(self, browser, server: Server, *, color_scheme: str = "light", locate=None):
        self.server = server
        self.locate = locate or (lambda rel: f"{rel}:1")  # a built page's source file:line
        self.document = ""  # the URL of the page loaded last (its navigation started), for a browser error's failure
        self.console_errors: list[str] = []
        self.outside: list[str] = []
        self.fetched: list[str] = []  # every URL of the site requested (the page check records key on them)
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
            if route.request.resource_type == "document" and route.request.frame.parent_frame is None:
                self.document = url
            self.fetched.append(url)
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def load(self, rel: str, scheme: str | None = None) -> None:
        """Load page ``rel`` afresh, fonts ready; with ``scheme``, check Material took that palette (else dark could test light twice)."""
        self.fetched.clear()
        response = self.page.goto(self.server.url(rel), wait_until="load")
        assert response is not None and response.ok, f"{rel}: HTTP {response.status if response else '-'}"
        self.page.evaluate("document.fonts.ready.then(() => true)")
        if scheme is not None:
            got = self.page.evaluate("document.body.getAttribute('data-md-color-scheme')")
            assert got == scheme, f"{rel}: Material's scheme is {got!r}, not the {scheme!r} the browser asked for"

    def close(self) -> None:
        """Close the browser context."""
        self.context.close()


@pytest.fixture
def visit(request, browser, server, built, sources):
    """``visit(color_scheme=...)`` opens a Visit; all are closed after the test."""
    visits: list[Visit] = request.node.stash.setdefault(VISITS, [])

    def locate(rel: str) -> str:
        return sources.text(built.site, rel, "")

    def open_visit(**kwargs) -> Visit:
        v = Visit(browser, server, locate=locate, **kwargs)
        visits.append(v)
        return v

    yield open_visit
    for v in visits:
        v.close()


@pytest.fixture
def page_checks(request, built, server, browser):
    """The records of this test's passing page checks, reused while nothing a page loads changed."""
    from journal_tools.testing.page_check_reuse import PageChecks

    return PageChecks(request, built.site, server.prefix, browser.version)
