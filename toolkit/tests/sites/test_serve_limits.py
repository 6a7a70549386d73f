"""The real `mkdocs serve` with a block that hangs, then fixed (pages fetched, no browser).

The page shows `docs/...:N: the block ran past 2 s`; the save that fixes it shows the blocks
passing (the stuck worker replaced); a hang fixed while it still runs is served at once.
"""

from __future__ import annotations

import html
import re
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from benchmarks.common import serving
from journal_tools.compat import mkdocs_config
from journal_tools.testing.site import ENV

from fixture_journal import fixture_project

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

ENTRY = "docs/blog/posts/2025-07-27-fixture-entry.md"
PATIENCE = 180  # seconds: a generous ceiling for a loaded machine, far above a rebuild
HANG = "\n```python\nwhile True: pass\n```\n"


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=PATIENCE) as response:
        return response.read().decode()


def _until(url: str, test, log: Path) -> str:
    deadline = time.monotonic() + PATIENCE
    page = ""
    while time.monotonic() < deadline:
        try:
            page = _get(url)
        except OSError:
            page = ""
        if test(page):
            return page
        time.sleep(0.2)
    tail = log.read_text(encoding="utf-8")[-3000:]
    raise AssertionError(f"{url} never showed what was expected; last page:\n{page[-2000:]}\nserve log:\n{tail}")


def _panel(page: str) -> str:
    m = re.search(r'<div class="journal-run journal-run--failed".*?</div>', page, re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", m.group(0))) if m else ""


def _passing(page: str) -> bool:
    return "code blocks ran" in page and 'class="journal-run journal-run--failed"' not in page


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    project = fixture_project(tmp_path_factory.mktemp("serve-limits") / "project")
    config = project / "mkdocs.yml"  # notebooks rendered, not executed: only the entry matters here
    config.write_text(re.sub(r"(?m)^(\s+execute:\s*)true\b", r"\1false", config.read_text(encoding="utf-8")), encoding="utf-8")
    log = project / "serve.log"
    with serving(project, log, ENV) as port:
        base = f"http://127.0.0.1:{port}{urllib.parse.urlsplit(mkdocs_config.load(project / 'mkdocs.yml').site_url).path or '/'}"
        home = _until(base, lambda page: "2025/07/27" in page, log)
        url = base + re.search(r'href="(blog/2025/07/27/[^"]+)"', home).group(1)
        _until(url, _passing, log)
        yield project, url, log


def test_a_hang_shows_the_panel_then_the_fixed_page_is_served(served):
    project, url, log = served
    page = project / ENTRY
    original = page.read_text(encoding="utf-8")
    hung = original.replace("doctest: page\n", "doctest: page\ntimeout: 2\n", 1) + HANG
    line = hung.split("\n").index("while True: pass") + 1
    page.write_text(hung, encoding="utf-8")
    try:
        shown = _panel(_until(url, lambda p: "ran past" in _panel(p), log))
        assert f"{ENTRY}:{line}: the block ran past 2 s (limit: timeout in {ENTRY}:8)" in shown, shown
    finally:
        page.write_text(original, encoding="utf-8")
    _until(url, _passing, log)


def test_a_hang_fixed_while_it_runs_is_served_at_once(served):
    project, url, log = served
    page = project / ENTRY
    original = page.read_text(encoding="utf-8")
    # Left to run, the old block would hold the worker for 600 s, past PATIENCE.
    page.write_text(original.replace("doctest: page\n", "doctest: page\ntimeout: 600\n", 1) + HANG, encoding="utf-8")
    try:
        _until(url, lambda p: "code still running" in p, log)
    finally:
        page.write_text(original + "\nFixed.\n", encoding="utf-8")
    _until(url, lambda p: _passing(p) and "Fixed." in p, log)
    page.write_text(original, encoding="utf-8")
