"""A wheel installed outside the source tree builds the fixture journal: plugin, extension, theme
overrides and the packaged CSS/JS (mkdocs_plugin/site_assets.py) come from the package.
"""

from __future__ import annotations

import posixpath
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from journal_tools.mkdocs_plugin import fonts, site_assets, slim
from journal_tools.testing.prerequisites import FONT_MISSING, require
from journal_tools.testing.site import ENV, mkdocs_build

from fixture_journal import fixture_project

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

ROOT = Path(__file__).resolve().parents[3]
TOOLKIT = ROOT / "toolkit"


def _run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


def _clean_source(dst: Path) -> Path:
    """The package's sources alone: setuptools reads a left-over egg-info's SOURCES.txt and build/lib
    into a new wheel, so a build in the work tree could ship files pyproject.toml no longer names."""
    dst.mkdir()
    shutil.copy2(TOOLKIT / "pyproject.toml", dst / "pyproject.toml")
    shutil.copytree(TOOLKIT / "src", dst / "src", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dst


def test_wheel_holds_every_module_and_builds_the_site(tmp_path):
    wheels = tmp_path / "wheels"
    proc = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
                str(_clean_source(tmp_path / "source")))
    assert proc.returncode == 0, proc.stderr
    (wheel,) = wheels.glob("journal_tools-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    package = TOOLKIT / "src" / "journal_tools"
    wanted = {str(p.relative_to(package.parent)) for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert wanted - names == set(), "left out of the wheel"
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    for line in ("journal = journal_tools.mkdocs_plugin.plugin:JournalPlugin", "journal_pagetest = journal_tools.pagetest",
                 "journal_math = journal_tools.core.markup.markdown_math:MathExtension", "journal-new = journal_tools.commands.new_entry:main"):
        assert line in text

    target = tmp_path / "installed"
    proc = _run(sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel))
    assert proc.returncode == 0, proc.stderr
    project = fixture_project(tmp_path / "project")
    env = dict(ENV, PYTHONPATH=str(target))
    where = _run(sys.executable, "-c", "import journal_tools.mkdocs_plugin.plugin as p; print(p.__file__)", cwd=project, env=env)
    assert where.stdout.strip().startswith(str(target)), where.stdout + where.stderr
    site = tmp_path / "site"
    build = mkdocs_build(project, site, env=env)
    assert build.returncode == 0, build.stdout
    entry = next(site.glob("blog/2025/07/27/*/index.html")).read_text(encoding="utf-8")
    assert "<math" in entry and "journal-figure" in entry
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "md-source" in index and 'data-md-component="source"' not in index  # the packaged theme override
    _check_packaged_assets(wheel, project, site)


def _in_site(ref: str, page: str, root: str) -> str:
    """The site path a page's link names: relative to the page, or under the site URL's path (404.html)."""
    path = ref[len(root):] if ref.startswith(root) else posixpath.join(posixpath.dirname(page), ref)
    return posixpath.normpath(path)


def _check_packaged_assets(wheel: Path, project: Path, site: Path) -> None:
    """The wheel holds the toolkit's stylesheets and script, every page links them, the site ships
    them as packaged (stylesheets minified), and the math font they point to is there."""
    assert not [p for p in (project / "docs").rglob("*") if p.suffix in (".css", ".js")], "the fixture has assets of its own"
    assert not re.search(r"(?m)^extra_(css|javascript):", (project / "mkdocs.yml").read_text(encoding="utf-8"))
    names = set(zipfile.ZipFile(wheel).namelist())
    uris = [site_assets.site_uri(n) for n in site_assets.STYLESHEETS + site_assets.SCRIPTS]
    for name in site_assets.STYLESHEETS + site_assets.SCRIPTS:
        assert f"journal_tools/mkdocs_plugin/assets/{name}" in names, f"{name} left out of the wheel"
        packaged = (site_assets.ASSET_DIR / name).read_text(encoding="utf-8")
        shipped = (site / site_assets.site_uri(name)).read_text(encoding="utf-8")
        assert shipped == (slim.minify(packaged) if name.endswith(".css") else packaged), f"{name} in the site is not the packaged one"
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 5
    root = urlsplit(re.search(r"(?m)^site_url:\s*(\S+)", (project / "mkdocs.yml").read_text(encoding="utf-8"))[1]).path
    for page in pages:
        html = page.read_text(encoding="utf-8")
        linked = {_in_site(ref, page.relative_to(site).as_posix(), root)
                  for ref in re.findall(r'<(?:link rel="stylesheet" href|script src)="([^":]+)"', html)}
        assert set(uris) <= linked, f"{page.relative_to(site)} does not link {set(uris) - linked}"
    # Last, as it needs the font installed at set-up (a skip here comes after every check above passed).
    require(bool(fonts.font_files(ROOT)), FONT_MISSING)
    css = (site / site_assets.site_uri("journal.css")).read_text(encoding="utf-8")
    for url in re.findall(r'url\("([^"]+)"\)', css):
        target = site / posixpath.normpath(posixpath.join(posixpath.dirname(site_assets.site_uri("journal.css")), url))
        assert target.is_file(), f"journal.css points to {url}, not in the site"


def test_what_pip_install_of_the_toolkit_leaves_in_the_tree_is_ignored():
    """``pip install toolkit/`` (setuptools) builds in place: git status stays clean after it."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: .gitignore has no effect here")
    left = ["toolkit/build/lib/journal_tools/__init__.py", "toolkit/build/bdist.linux-x86_64/wheel/x",
            "toolkit/src/journal_tools.egg-info/SOURCES.txt"]
    ignored = _run("git", "check-ignore", "--no-index", *left, cwd=ROOT).stdout.split()
    assert ignored == left, f"not ignored by .gitignore: {sorted(set(left) - set(ignored))}"
