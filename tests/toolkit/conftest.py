"""Session fixtures of the toolkit's tests: never the author's docs/ or mkdocs.yml.

`fixture_build`: one `mkdocs build --strict` per session of a frozen copy of
the fixture journal (tests/toolkit/fixtures/journal, its build caches seeded
from the tests' store), for the tests that compare it with another build of
the same tree (tests/toolkit/test_engines.py, test_reproducible.py). Under
pytest-xdist the first worker builds, the others wait on a lock and reuse it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from journal_site import Built, fixture_project, freeze_as_git_repo, mkdocs_build, once_per_session


@pytest.fixture(scope="session")
def fixture_build(tmp_path_factory) -> Built:
    """The fixture journal built once per session; the test asserts on ``returncode`` itself."""
    def build(shared: Path) -> dict:
        project = fixture_project(shared / "project")
        freeze_as_git_repo(project)
        proc = mkdocs_build(project, shared / "site")
        return {"returncode": proc.returncode, "output": proc.stdout}

    shared, result = once_per_session(tmp_path_factory, "fixture-build", build)
    return Built(shared / "site", result["output"], shared / "project", result["returncode"])
