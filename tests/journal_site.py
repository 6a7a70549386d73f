"""Helpers for the tests that build the site (imported by tests/conftest.py,
tests/test_bad_inputs.py, tests/test_reproducible.py; a module of its own
because two conftest.py files cannot both be imported as `conftest`).

The session build (fixture `built` in tests/conftest.py) is one `mkdocs build
--strict` of a frozen copy of the project per test session (one per session
even under pytest-xdist: the first worker builds, the others wait on a lock
and reuse it).

The copy is frozen so the site matches one state of the sources while people
edit the working tree, and it is a one-commit git repository whose commit date
is HEAD's: journal_tools.reproducible pins SOURCE_DATE_EPOCH from it exactly as
in the real checkout, and tests/test_reproducible.py rebuilds the same copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# No inherited SOURCE_DATE_EPOCH: the build pins it itself (journal_tools/reproducible.py).
ENV = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"} | {"NO_MKDOCS_2_WARNING": "1"}
# What the build reads (and what `python -m pytest docs` in a copy needs).
PROJECT_FILES = ("mkdocs.yml", "pyproject.toml")
PROJECT_DIRS = ("docs", "snippets", "journal_tools")
FONTS = Path(".cache") / "fonts"
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".cache", ".pytest_cache")


def copy_project(dst: Path, src: Path = ROOT) -> Path:
    """Copy what the build reads from ``src`` into ``dst`` (created)."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        shutil.copy2(src / name, dst / name)
    for name in PROJECT_DIRS:
        if (src / name).is_dir():
            shutil.copytree(src / name, dst / name, ignore=_IGNORE)
    # The math font (installed by `make setup`, never committed): the hook copies
    # it into the site; without it every page requests a font that is not there.
    if (src / FONTS).is_dir():
        shutil.copytree(src / FONTS, dst / FONTS)
    return dst


def _git(*args: str, cwd: Path, env: dict | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def freeze_as_git_repo(root: Path) -> None:
    """Make ``root`` a one-commit repository dated like ROOT's HEAD."""
    try:
        date = _git("log", "-1", "--format=%ct", cwd=ROOT).strip()
    except (OSError, subprocess.CalledProcessError):
        date = "1753574400"  # 2025-07-27, when ROOT is no git checkout
    env = dict(os.environ, GIT_AUTHOR_DATE=f"@{date} +0000", GIT_COMMITTER_DATE=f"@{date} +0000",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    _git("init", "-q", cwd=root)
    _git("add", "-A", cwd=root)
    _git("-c", "commit.gpgsign=false", "commit", "-q", "-m", "snapshot", cwd=root, env=env)


def mkdocs_build(project: Path, site: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict",
         "--config-file", str(project / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=project, env=env or ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


class Built:
    """The session's build: ``site`` (the output), ``output`` (mkdocs' log),
    ``project`` (the frozen copy it was built from)."""

    def __init__(self, site: Path, output: str, project: Path):
        self.site = site
        self.output = output
        self.project = project

    def html_pages(self) -> list[Path]:
        return sorted(self.site.rglob("*.html"))
