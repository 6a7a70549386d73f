"""Shared fixture `built`: the session's build of a frozen copy of the project
(see tests/journal_site.py)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from filelock import FileLock
from journal_site import Built, copy_project, freeze_as_git_repo, mkdocs_build


def _shared_dir(tmp_path_factory) -> Path:
    base = tmp_path_factory.getbasetemp()
    # Under xdist every worker has its own basetemp below one per-session folder.
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Built:
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
    if result["returncode"] != 0:
        pytest.fail(f"mkdocs build --strict failed (exit {result['returncode']}):\n{result['output']}", pytrace=False)
    return Built(shared / "site", result["output"], shared / "project")
