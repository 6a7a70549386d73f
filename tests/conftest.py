"""Session fixtures for the author's site (see tests/journal_site.py).

`docs_build`: the session's one `mkdocs build --strict` of a frozen copy of the
project, docs/ included; it never fails by itself. Exactly one test reports on
it: tests/test_site_build.py::test_docs_build. Tests taking either belong to the
journal part of the suite (tests/suite_parts.py).

`built`: that build, for the tests that look at the real built site (browser,
feeds, reproducibility, engines, ...). When the build failed they skip, naming
the test that says why, so one mistake in docs/ is one failed test; when that
test is not in the run (``pytest tests/browser``, ``-k``), they fail with the
build's first problem instead, so a failed build is never only skips.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from journal_site import BUILD_TEST, Built, build_problem, copy_project, freeze_as_git_repo, in_this_run, mkdocs_build, once_per_session
from toolkit_reuse import ToolkitReuse


def pytest_configure(config):
    # The toolkit's tests are reused while their inputs are unchanged (tests/toolkit_reuse.py).
    config.pluginmanager.register(ToolkitReuse(config), "toolkit-reuse")


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory) -> Built:
    def build(shared: Path) -> dict:
        project = copy_project(shared / "project")
        freeze_as_git_repo(project)
        proc = mkdocs_build(project, shared / "site")
        return {"returncode": proc.returncode, "output": proc.stdout}

    shared, result = once_per_session(tmp_path_factory, "journal-build", build)
    return Built(shared / "site", result["output"], shared / "project", result["returncode"])


@pytest.fixture(scope="session")
def built(docs_build, request) -> Built:
    if docs_build.returncode != 0:
        if in_this_run(request.session, BUILD_TEST):
            pytest.skip(f"docs/ did not build, so there is no site to look at: {BUILD_TEST} reports why")
        pytest.fail(f"{build_problem(docs_build.output, docs_build.project)}\n(docs/ did not build; "
                    f"{BUILD_TEST}, which reports it, is not in this run)", pytrace=False)
    return docs_build


def pytest_terminal_summary(terminalreporter):
    """How many generated pages the fuzz test ran (tests/unit/test_fuzz_pages.py), where
    the reports arrive (the controller under pytest-xdist), so the figure is the run's."""
    runs = [dict(r.user_properties) for r in terminalreporter.stats.get("passed", [])
            if any(key == "fuzz_examples" for key, _ in r.user_properties)]
    if runs:
        terminalreporter.section("fuzzed pages")
        for props in runs:
            terminalreporter.write_line(f"{props['fuzz_examples']} generated pages went through every page reader "
                                        f"({props['fuzz_mode']}); each ended in a pass or a path:line error")
            terminalreporter.write_line(f"  passed/located errors per step: {props['fuzz_steps']}")
