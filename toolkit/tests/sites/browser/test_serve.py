"""`make serve` as the author uses it: Chromium on a page of the fixture journal, files edited on disk.

A snippet edit, a raising block, an impossible date (then fixed), a references.bib edit and an
unknown citation key each show on the reloaded page. Timeouts are ceilings for a loaded machine.
"""

from __future__ import annotations

import contextlib
import os
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

ENTRY = "docs/blog/posts/2025-07-27-fixture-entry.md"
RELOAD_MS = 60_000


def _wait_for(url: str, log: Path, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"mkdocs serve did not answer on {url}:\n{log.read_text(encoding='utf-8')[-2000:]}")


@pytest.fixture(scope="module")
def served(tmp_path_factory, browser):
    project = fixture_project(tmp_path_factory.mktemp("serve") / "project")
    with serving(project, project / "serve.log", ENV) as port:
        prefix = urllib.parse.urlsplit(mkdocs_config.load(project / "mkdocs.yml").site_url).path or "/"
        base = f"http://127.0.0.1:{port}{prefix}"
        _wait_for(base, project / "serve.log")
        html = urllib.request.urlopen(base).read().decode()  # the home page lists the entries
        entry = re.search(r'href="(blog/2025/07/27/[^"]+)"', html).group(1)
        yield project, base + entry


@pytest.fixture(scope="module")
def tab(served, browser):
    context = browser.new_context()
    page = context.new_page()
    page.goto(served[1])
    yield page
    context.close()


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    os.utime(path)


def _code_ran(served, tab):
    status = tab.wait_for_selector(".journal-run--ok", timeout=RELOAD_MS)
    assert re.search(r"\d+ code blocks ran", status.inner_text())


def _snippet_edit_reruns_the_entry(served, tab):
    project, _ = served
    snippet = project / "snippets" / "weights.py"
    before = tab.inner_text(".journal-run")
    _edit(snippet, "import torch\n", "import torch\n\nSERVE_TEST_EDIT = 1\n")
    # The new outcome, not the line of code still running that may come first.
    tab.wait_for_function("old => { const e = document.querySelector('.journal-run--ok'); return e && e.innerText !== old; }",
                          arg=before, timeout=RELOAD_MS)
    assert "code blocks ran" in tab.inner_text(".journal-run")


@contextlib.contextmanager
def _block_added(served, tab, code: str):
    """The entry with ``code`` as a block at its end; yields the block's line (the fence's is one
    before). Then the entry as it was, until the page shows its code ran again."""
    page = served[0] / ENTRY
    original = page.read_text(encoding="utf-8")
    page.write_text(original + f"\n```python\n{code}```\n", encoding="utf-8")
    try:
        yield len(original.split("\n")) + 2
    finally:
        page.write_text(original, encoding="utf-8")
    tab.wait_for_selector(".journal-run--ok", timeout=RELOAD_MS)


def _text(tab, selector: str) -> str:
    """The text of the first element ``selector`` matches, found again if a live reload replaced the
    document meanwhile (a background rebuild may follow a save's: an element handle would die with it)."""
    return tab.locator(selector).first.inner_text(timeout=RELOAD_MS)


def _slow_code_shows_running_then_its_outcome_in_place(served, tab):
    """No build waits for a page's code: the page comes at once saying so, and its status line
    is replaced by the outcome when the code is done, in the same document (no reload).

    A figure or notebook finished in the background asks for a rebuild, whose live reload is no
    answer of this page's code: when one lands while the outcome is awaited (a loaded machine),
    the step is tried again. A reload with none in the log is the failure."""
    log = served[0] / "serve.log"
    for _attempt in range(3):
        with _block_added(served, tab, "import time\ntime.sleep(4)\n"):
            tab.wait_for_selector(".journal-run--running", timeout=RELOAD_MS)
            tab.evaluate("window.journalSameDocument = true")
            seen = len(log.read_text(encoding="utf-8"))
            status = tab.wait_for_selector(".journal-run--ok", timeout=RELOAD_MS)
            assert re.search(r"\d+ code blocks ran", status.inner_text())
            same = tab.evaluate("window.journalSameDocument === true")
            background = "in the background" in log.read_text(encoding="utf-8")[seen:]
        if same or not background:
            break
    assert same, "the page reloaded to show the outcome"


def _raising_block_shows_the_failure_panel(served, tab):
    with _block_added(served, tab, 'raise ValueError("planted while serving")\n') as line:  # the raise, on the page
        tab.wait_for_selector(".journal-run--failed", timeout=RELOAD_MS)
        text = _text(tab, ".journal-run--failed")
        assert f"{ENTRY}:{line}" in text and "ValueError: planted while serving" in text
        assert tab.query_selector(f'.journal-run--failed a[href="#block-{line - 1}"]') is not None
        assert tab.query_selector(f"#block-{line - 1}") is not None


def _bad_date_shows_its_panel_at_the_same_address_then_the_entry_again(served, tab):
    """A post's front matter the blog refuses breaks that post alone: it stays at its address, under its panel."""
    project, url = served
    page = project / ENTRY
    _edit(page, "date: 2025-07-27", "date: 2025-02-30")
    try:
        tab.wait_for_selector(f".journal-run--failed:has-text('{ENTRY}:2')", timeout=RELOAD_MS)
        text = _text(tab, f".journal-run--failed:has-text('{ENTRY}:2')")
        assert "not a real date" in text and "make build" in text
        assert tab.url == url
    finally:
        _edit(page, "date: 2025-02-30", "date: 2025-07-27")
    tab.wait_for_selector(".journal-run--ok", timeout=RELOAD_MS)
    assert tab.url == url


def _broken_config_shows_the_error_page_then_the_site_again(served, tab):
    """A mistake that is no one page's (mkdocs.yml) stops the rebuild: every page shows it until the fix."""
    project, url = served
    config = project / "mkdocs.yml"
    _edit(config, "site_name: Fixture journal", "site_name: [Fixture journal")
    try:
        tab.wait_for_selector("text=The site did not build", timeout=RELOAD_MS)
        assert "mkdocs.yml" in tab.inner_text("pre")
    finally:
        _edit(config, "site_name: [Fixture journal", "site_name: Fixture journal")
    tab.wait_for_selector(".journal-run--ok", timeout=RELOAD_MS)
    assert tab.url == url


def _citations_follow_the_bibtex_file(served, tab):
    project, _ = served
    bib, page = project / "docs" / "references.bib", project / ENTRY
    _edit(bib, "year      = {2024}", "year      = {2023}")
    try:
        tab.wait_for_selector("a.citation__ref:text-is('Raschka, 2023')", timeout=RELOAD_MS)
    finally:
        _edit(bib, "year      = {2023}", "year      = {2024}")
    tab.wait_for_selector("a.citation__ref:text-is('Raschka, 2024')", timeout=RELOAD_MS)
    _edit(page, "[@raschka2024, ch. 3]", "[@rashka2024, ch. 3]")
    line = page.read_text(encoding="utf-8").split("\n").index(
        next(ln for ln in page.read_text(encoding="utf-8").split("\n") if "@rashka2024" in ln)) + 1
    try:
        tab.wait_for_selector(".journal-run--failed:has-text('unknown citation key')", timeout=RELOAD_MS)
        text = _text(tab, ".journal-run--failed:has-text('unknown citation key')")
        assert f"{ENTRY}:{line}: unknown citation key 'rashka2024'" in text, text
    finally:
        _edit(page, "[@rashka2024, ch. 3]", "[@raschka2024, ch. 3]")
    tab.wait_for_selector(".journal-run--ok", timeout=RELOAD_MS)


def test_serve_loop_as_the_author_uses_it(served, tab):
    """One scenario, in order, on one server (pytest-xdist may split a module's tests)."""
    _code_ran(served, tab)
    _slow_code_shows_running_then_its_outcome_in_place(served, tab)  # before the snippet edit's background work
    _snippet_edit_reruns_the_entry(served, tab)
    _raising_block_shows_the_failure_panel(served, tab)
    _bad_date_shows_its_panel_at_the_same_address_then_the_entry_again(served, tab)
    _broken_config_shows_the_error_page_then_the_site_again(served, tab)
    _citations_follow_the_bibtex_file(served, tab)
