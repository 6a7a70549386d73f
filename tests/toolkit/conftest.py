"""Session fixtures of the toolkit's tests: never the author's docs/ or mkdocs.yml.

`fixture_build`: one `mkdocs build --strict` per session of a frozen copy of
the fixture journal (tests/toolkit/fixtures/journal, its build caches seeded
from the tests' store), for the tests that compare it with another build of
the same tree (tests/toolkit/test_engines.py, test_reproducible.py). Under
pytest-xdist the first worker builds, the others wait on a lock and reuse it.
"""

from __future__ import annotations

import pytest
from journal_site import Built, fixture_project, session_build


@pytest.fixture(scope="session")
def fixture_build(tmp_path_factory) -> Built:
    """The fixture journal built once per session; the test asserts on ``returncode`` itself."""
    return session_build(tmp_path_factory, "fixture-build", fixture_project)
