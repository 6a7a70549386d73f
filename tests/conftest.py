"""What both parts of the suite share (tests/suite_parts.py names the parts):
the toolkit-reuse plugin, Debian's Chromium for the browser tests of either
part (tests/journal/browser, tests/toolkit/browser), and the fuzz summary.

The session build of docs/ lives in tests/journal/conftest.py, so no toolkit
test can ask for it. Playwright never downloads a browser here: it launches
/usr/bin/chromium. Without it the browser tests skip locally and FAIL under
CI=true (.ci/run and the workflow install it: tests/prerequisites.py).
"""

from __future__ import annotations

import os

import pytest
from page_check_reuse import summary as page_check_reuse_summary
from prerequisites import require
from toolkit_reuse import ToolkitReuse

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic",
]


# Fixtures that hand a test a whole built site: its test is slow by definition.
SITE_BUILDS = ("built", "docs_build", "fixture_build")


def pytest_configure(config):
    # The toolkit's tests are reused while their inputs are unchanged (tests/toolkit_reuse.py).
    config.pluginmanager.register(ToolkitReuse(config), "toolkit-reuse")


def pytest_collection_modifyitems(items):
    """The markers a test's place decides (pyproject.toml registers them): `browser` for
    everything under a browser/ folder, `slow` for it and for every test of a built site."""
    for item in items:
        in_browser = "browser" in item.path.parent.parts[-1:]
        if in_browser:
            item.add_marker(pytest.mark.browser)
        if in_browser or set(SITE_BUILDS) & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


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


def pytest_terminal_summary(terminalreporter):
    """How many generated pages the fuzz test ran (tests/toolkit/unit/test_fuzz_pages.py), and the
    browser checks reused (tests/page_check_reuse.py), where the reports arrive (the controller under
    pytest-xdist), so the figures are the run's."""
    reused = page_check_reuse_summary(terminalreporter.stats.get("passed", []))
    if reused:
        terminalreporter.write_line(reused)
    runs = [dict(r.user_properties) for r in terminalreporter.stats.get("passed", [])
            if any(key == "fuzz_examples" for key, _ in r.user_properties)]
    if runs:
        terminalreporter.section("fuzzed pages")
        for props in runs:
            terminalreporter.write_line(f"{props['fuzz_examples']} generated pages went through every page reader "
                                        f"({props['fuzz_mode']}); each ended in a pass or a path:line error")
            terminalreporter.write_line(f"  passed/located errors per step: {props['fuzz_steps']}")
