"""Session fixtures for the author's site (see tests/journal_site.py).

`docs_build`: the session's one `mkdocs build --strict` of a frozen copy of the
project, docs/ included; it never fails by itself. Exactly one test reports on
it: tests/test_site_build.py::test_docs_build.

`built`: that build, for the tests that look at the real built site (browser,
feeds, reproducibility, engines, ...). When the build failed they skip, naming
the test that says why, so one mistake in docs/ is one failed test.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from filelock import FileLock
from journal_site import BUILD_TEST, Built, copy_project, freeze_as_git_repo, mkdocs_build


def _shared_dir(tmp_path_factory) -> Path:
    base = tmp_path_factory.getbasetemp()
    # Under xdist every worker has its own basetemp below one per-session folder.
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory) -> Built:
    shared = _shared_dir(tmp_path_factory) / "journal-build"
    with FileLock(str(shared) + ".lock"):
        record = shared / "result.json"
        if not record.exists():
            if shared.exists():
                shutil.rmtree(shared)
            project = copy_project(shared / "project")
            freeze_as_git_repo(project)
            site = shared / "site"
            proc = mkdocs_build(project, site)
            record.write_text(json.dumps({"returncode": proc.returncode, "output": proc.stdout}), encoding="utf-8")
        result = json.loads(record.read_text(encoding="utf-8"))
    return Built(shared / "site", result["output"], shared / "project", result["returncode"])


@pytest.fixture(scope="session")
def built(docs_build) -> Built:
    if docs_build.returncode != 0:
        pytest.skip(f"docs/ did not build, so there is no site to look at: {BUILD_TEST} reports why")
    return docs_build
