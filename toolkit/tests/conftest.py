"""Session fixtures of the toolkit's tests: never the author's docs/ or mkdocs.yml.

`fixture_build`: one `mkdocs build --strict` per session of a frozen copy of
the fixture journal (toolkit/tests/fixtures/journal, its build caches seeded
from the tests' store), for the tests that compare it with another build of
the same tree (toolkit/tests/test_engines.py, test_reproducible.py). Under
pytest-xdist the first worker builds, the others wait on a lock and reuse it.
"""

from __future__ import annotations

import pytest

from journal_tools.testing.site import Built, session_build

from fixture_journal import fixture_project

# The fixture journal's own tests (fixtures/journal/tests/) run in copies of it, never in this suite.
collect_ignore = ["fixtures"]


@pytest.fixture(scope="session")
def fixture_build(tmp_path_factory) -> Built:
    """The fixture journal built once per session; the test asserts on ``returncode`` itself."""
    return session_build(tmp_path_factory, "fixture-build", fixture_project)


def pytest_terminal_summary(terminalreporter):
    """How many generated pages the fuzz test ran (tests/unit/test_fuzz_pages.py), where the
    reports arrive (the controller under pytest-xdist), so the figure is the run's."""
    runs = [dict(r.user_properties) for r in terminalreporter.stats.get("passed", [])
            if any(key == "fuzz_examples" for key, _ in r.user_properties)]
    if runs:
        terminalreporter.section("fuzzed pages")
        for props in runs:
            terminalreporter.write_line(f"{props['fuzz_examples']} generated pages went through every page reader "
                                        f"({props['fuzz_mode']}); each ended in a pass or a path:line error")
            terminalreporter.write_line(f"  passed/located errors per step: {props['fuzz_steps']}")
