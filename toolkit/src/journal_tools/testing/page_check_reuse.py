"""A check of a built page is reused while nothing it read changed (the one record, ``core.record.inputs``).

The page checks of checks/browser/ (axe, phones, every page) load each
built page in Chromium; checks/downloads.py runs each entry's downloads. After an
edit of one entry, one page of the site has other bytes; the others would be checked
again for nothing. So each passing check of one page is written to the record, kind
``site check``, subject the test's id and the page, with:

- as key, the test's own code (its module, testing/fixtures.py and this file), its id (its parameters: palette, width),
  what else the test names (``key_also``: the axe check it runs, the toolkit's code the
  downloads are made and compared with), the
  Chromium version and the environment (``inputs.environment``: Python and every
  installed distribution, Playwright, axe-core's package, Pillow and PyTorch among them);
- as inputs, the page and every file the check read, byte for byte: for a browser check
  every file of the site the browser fetched (stylesheets, scripts, fonts, images). The
  one file left out is Material's search index (``search/search_index.json``), which its
  search worker fetches on every page and every edit changes: the checks never search,
  and the search test (checks/browser/pages.py), which is never reused, loads it.

``FRESH=1`` checks every page. A test that reused pages says so in its output,
and the run prints one line (testing/plugin.py): ``reused: N page checks of T tests ...;
FRESH=1 re-runs them``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import unquote, urlsplit

from journal_tools.core.record.inputs import Inputs, Record, environment

ROOT = Path.cwd().resolve()  # the journal under test: pytest runs from its top folder
KIND = "site check"
# Records kept per test and page: a revert checks its pages again rather than keep more (a full-page
# screenshot kept in a record is 1.6 MB; 8 of each made the record 30 MB).
KEEP = 2
# Fetched by Material on every page for its search box, changed by every edit; never drawn by a page check.
NOT_KEYED = ("search/search_index.json",)
_CODE = (Path(__file__).with_name("fixtures.py"), Path(__file__))
PROPERTY = "page_check_reused"  # user property of a test's report, once per reused page: its path


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class PageChecks:
    """The records of one test: ``reused(rel)`` before checking a page, ``passed(rel, ...)`` after."""

    def __init__(self, request, site: Path, prefix: str = "/", browser_version: str = ""):
        self.request, self.site, self.prefix = request, site, prefix
        code = b"".join(p.read_bytes() for p in (Path(request.path), *_CODE) if p.is_file())  # (a journal without browser checks)
        self.test_key = _sha(b"\0".join([code, request.node.nodeid.encode(), browser_version.encode(),
                                         environment().encode()]))
        self.record = Record(ROOT)
        self.reused_pages: list[str] = []
        self.checked = 0

    def key_also(self, data: bytes) -> None:
        """Make ``data`` (something besides the site that the check reads) part of every record's key."""
        self.test_key = _sha(self.test_key.encode() + b"\0" + data)

    def site_path(self, url: str) -> str | None:
        """The site file a fetched ``url`` names (relative to the site), or None (not a file of the site)."""
        path = unquote(urlsplit(url).path)
        if not path.startswith(self.prefix):
            return None
        rel = path[len(self.prefix):] or "index.html"
        if rel.endswith("/"):
            rel += "index.html"
        return rel if (self.site / rel).is_file() else None

    def _subject(self, rel: str) -> str:
        return f"{self.request.node.nodeid} {rel}"

    def reused(self, rel: str) -> dict | None:
        """The recorded result of page ``rel``'s passing check, if it still holds; else None (check it)."""
        self.checked += 1
        result = self.record.find(KIND, self._subject(rel), self.test_key, roots={"site": self.site})
        if result is None:
            return None
        self.reused_pages.append(rel)
        self.request.node.user_properties.append((PROPERTY, rel))
        return result

    def passed(self, rel: str, fetched: list[str], result: dict | None = None) -> None:
        """Record that page ``rel`` passed, having fetched the site files ``fetched`` (URLs or paths)."""
        files = {rel}
        for url in fetched:
            dep = self.site_path(url) if "://" in url else url
            if dep is not None and dep not in NOT_KEYED:
                files.add(dep)
        inputs = Inputs.observe([f"site:{dep}" for dep in sorted(files)], roots={"site": self.site})
        self.record.passed(KIND, self._subject(rel), self.test_key, inputs, result, keep=KEEP)

    def note(self) -> str:
        """What was reused, for the test's own output."""
        if not self.reused_pages:
            return ""
        return f" ({len(self.reused_pages)} of {self.checked} pages reused: nothing they load changed)"


def summary(reports) -> str | None:
    """The run's one line on reused page checks, from the tests' reports (the controller's under xdist)."""
    reused = sum(k == PROPERTY for report in reports for k, _ in report.user_properties)
    tests = sum(any(k == PROPERTY for k, _ in report.user_properties) for report in reports)
    if not reused:
        return None
    return (f"reused: {reused} page checks of {tests} tests (the page and every file the check read are unchanged "
            "since it passed); FRESH=1 re-runs them")
