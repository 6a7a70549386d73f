"""The package as a user gets it: a wheel built from the repository, installed
outside the source tree, builds a site (the fixture journal; plugin, Markdown
extension and theme overrides found by entry point and as package data, not
from the work tree)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from journal_site import ENV, fixture_project, mkdocs_build

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


def test_wheel_holds_every_module_and_builds_the_site(tmp_path):
    wheels = tmp_path / "wheels"
    # Built from a copy: setuptools writes build/ and journal_tools.egg-info/ into the tree it builds,
    # and an egg-info left in the checkout shadows the installed entry points once they move.
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy2(ROOT / "pyproject.toml", source / "pyproject.toml")
    shutil.copytree(ROOT / "journal_tools", source / "journal_tools", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    proc = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(source))
    assert proc.returncode == 0, proc.stderr
    (wheel,) = wheels.glob("journal_tools-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    package = ROOT / "journal_tools"
    wanted = {str(p.relative_to(ROOT)) for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert wanted - names == set(), "left out of the wheel"
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    for line in ("journal = journal_tools.build.plugin:JournalPlugin", "journal_pagetest = journal_tools.pagetest",
                 "journal_math = journal_tools.readers.markdown_math:MathExtension", "journal-new = journal_tools.commands.new_entry:main"):
        assert line in text

    target = tmp_path / "installed"
    proc = _run(sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel))
    assert proc.returncode == 0, proc.stderr
    project = fixture_project(tmp_path / "project")
    shutil.rmtree(project / "journal_tools")  # only the installed copy can be used
    env = dict(ENV, PYTHONPATH=str(target))
    where = _run(sys.executable, "-c", "import journal_tools.build.plugin as p; print(p.__file__)", cwd=project, env=env)
    assert where.stdout.strip().startswith(str(target)), where.stdout + where.stderr
    site = tmp_path / "site"
    build = mkdocs_build(project, site, env=env)
    assert build.returncode == 0, build.stdout
    entry = next(site.glob("blog/2025/07/27/*/index.html")).read_text(encoding="utf-8")
    assert "<math" in entry and "journal-figure" in entry
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "md-source" in index and 'data-md-component="source"' not in index  # the packaged theme override
    assert not os.path.exists(project / "journal_tools")
