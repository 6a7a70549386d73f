"""The toolkit's pytest plugin (entry point ``journal_checks``): every check of a journal's built
site, collected from the journal's mkdocs.yml (testing/checks/, fixtures in testing/fixtures.py),
and the markers, Chromium and summary lines a journal's tests and the toolkit's suite share.

Markers by place (both pyproject.toml files register them): `browser` for every
test under a browser/ folder, `slow` for it and for every test of a built site.
The `browser` fixture is Debian's /usr/bin/chromium driven by Playwright, which
never downloads a browser here. Without Chromium the browser tests skip locally
and FAIL under CI=true (the set-up installs it: prerequisites.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from journal_tools.testing import fixtures, short_summary, time_limits
from journal_tools.testing.prerequisites import require

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic",
]

# Fixtures that hand a test a whole built site: its test is slow by definition.
SITE_BUILDS = ("built", "docs_build", "fixture_build")


def pytest_configure(config):
    """The built-site checks' fixtures, for every test of the session."""
    if not config.pluginmanager.is_registered(fixtures):
        config.pluginmanager.register(fixtures, "journal_checks.fixtures")


def pytest_collect_file(file_path, parent):
    """The journal's mkdocs.yml (at the rootdir: its top folder) collects every check of its built site."""
    if file_path.name == "mkdocs.yml" and file_path.parent == parent.config.rootpath:
        from journal_tools.testing.checks import SiteChecks

        return SiteChecks.from_parent(parent, path=file_path)
    return None


def site_checks_left_out(config) -> str | None:
    """The line a journal's whole run (its testpaths) gets when they leave out its mkdocs.yml: none of
    the checks of its built site ran, and that must not pass unseen. (Read from the settings, not from
    what was collected: under pytest-xdist the controller collects nothing.)"""
    whole_run = config.args_source == pytest.Config.ArgsSource.TESTPATHS
    if not whole_run or not (config.rootpath / "mkdocs.yml").is_file():
        return None
    if any(Path(p).name == "mkdocs.yml" for p in config.getini("testpaths")):
        return None
    return ("no check of the built site ran: mkdocs.yml is not in pytest's testpaths (add it, "
            'testpaths = ["tests", "docs", "mkdocs.yml"], to run them from journal-tools\' plugin)')


def pytest_collection_modifyitems(config, items):
    """Mark each test by its place: `browser` under a browser/ folder, `slow` for those and site builds; then its time limit."""
    for item in items:
        in_browser = "browser" in item.path.parent.parts[-1:]
        if in_browser:
            item.add_marker(pytest.mark.browser)
        if in_browser or set(SITE_BUILDS) & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    time_limits.limit_tests(config, items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """The test's call, watched for a loop an earlier test was stopped in (testing/time_limits.py)."""
    watcher = time_limits.watching(item.config)
    if watcher is not None:
        watcher.item = item
    try:
        return (yield)
    finally:
        if watcher is not None:
            watcher.item = None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    """Importing a journal's test module runs its snippets' module code: under the block limit too (testing/time_limits.py)."""
    with time_limits.collection_limit(collector):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A test pytest-timeout stopped: its report names the journal lines that were running (testing/time_limits.py)."""
    report = yield
    if report.failed and call.excinfo is not None:
        time_limits.shape_report(item, call.excinfo, report)
    return report


_LOCATED = pytest.StashKey[list]()


@pytest.hookimpl(trylast=True)  # after the other summaries; before pytest's short summary, which comes last
def pytest_terminal_summary(terminalreporter):
    """A line per failure that made checks skip; the failures located in their own file taken out of
    pytest's short summary (which cuts the message to the terminal's width), for the end."""
    from journal_tools.testing.page_check_reuse import summary as page_check_reuse_summary

    reused = page_check_reuse_summary(terminalreporter.stats.get("passed", []))
    if reused:  # where the reports arrive (the controller under pytest-xdist), so the figure is the run's
        terminalreporter.write_line(reused)
    unlisted = site_checks_left_out(terminalreporter.config)
    if unlisted:
        terminalreporter.write_line(unlisted, yellow=True, bold=True)
    for line in short_summary.skips_caused_by_failures(terminalreporter.stats):
        terminalreporter.write_line(line)
    terminalreporter.config.stash[_LOCATED] = short_summary.take_located_failures(terminalreporter.stats)


@pytest.hookimpl(specname="pytest_terminal_summary", wrapper=True, tryfirst=True)  # outermost: ends after the short summary
def pytest_terminal_summary_located_failures(terminalreporter):
    """After pytest's short summary: the located failures, whole, wrapped, by the test's name; counted as before."""
    stats = terminalreporter.stats
    if "error" in stats:
        stats["error"] = short_summary.unique_errors(stats["error"])
    failed = list(stats.get("failed", []))
    try:
        return (yield)
    finally:
        if "failed" in stats:
            stats["failed"] = failed
        width = terminalreporter.config.get_terminal_writer().fullwidth
        for line in short_summary.located_lines(terminalreporter.config.stash.get(_LOCATED, []), width):
            terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright, one per session."""
    require(os.path.exists(CHROMIUM) and os.access(CHROMIUM, os.X_OK),
            f"{CHROMIUM} not found: the browser tests need Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()
