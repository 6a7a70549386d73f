"""The journal's checks: the session build of the author's site
(journal_tools.testing.site) and the reuse line of the page checks. Chromium and
the markers by place come from journal_tools.testing.plugin (pyproject.toml's addopts).

`docs_build`: the session's one `mkdocs build --strict` of a frozen copy of the
project, docs/ included, drafts too (the copy's blog builds them: a draft gets every
check of the built site before it is published; `make build` still leaves it out);
it never fails by itself. Exactly one test reports on
it: tests/test_site_build.py::test_docs_build.

`built`: that build, for the tests that look at the real built site (browser,
feeds, links, ...). When the build failed they skip, naming the test that says
why, so one mistake in docs/ is one failed test; when that test is not in the
run (``pytest tests/browser``, ``-k``), they fail with the build's first
problem instead, so a failed build is never only skips.

"""

from __future__ import annotations

import pytest

from journal_tools.testing.page_check_reuse import summary as page_check_reuse_summary
from journal_tools.testing.site import BUILD_TEST, Built, build_problem, copy_project, in_this_run, session_build, with_drafts


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory) -> Built:
    return session_build(tmp_path_factory, "journal-build", lambda folder: with_drafts(copy_project(folder)))


@pytest.fixture(scope="session")
def built(docs_build, request) -> Built:
    if docs_build.returncode != 0:
        if in_this_run(request.session, BUILD_TEST):
            pytest.skip(f"docs/ did not build, so there is no site to look at: {BUILD_TEST} reports why")
        pytest.fail(f"{build_problem(docs_build.output, docs_build.project)}\n(docs/ did not build; "
                    f"{BUILD_TEST}, which reports it, is not in this run)", pytrace=False)
    return docs_build


def pytest_terminal_summary(terminalreporter):
    """The browser and download checks reused (journal_tools.testing.page_check_reuse), where the
    reports arrive (the controller under pytest-xdist), so the figure is the run's."""
    reused = page_check_reuse_summary(terminalreporter.stats.get("passed", []))
    if reused:
        terminalreporter.write_line(reused)
