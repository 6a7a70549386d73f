"""Same sources, same site: two builds (cached, and a fresh copy with no cache) give the same bytes.

What used to differ: the build date (pinned by mkdocs_plugin/build_date.py, SOURCE_DATE_EPOCH)
and notebook cell ids and split stdout (mkdocs_plugin/nbids.py).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from journal_tools.testing.site import BUILD_CACHES, ENV, mkdocs_build


def digests(site: Path) -> dict[str, str]:
    return {path.relative_to(site).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(site.rglob("*")) if path.is_file()}


def test_two_builds_are_byte_identical(fixture_build, tmp_path):
    assert fixture_build.returncode == 0, f"mkdocs build --strict of the fixture journal failed:\n{fixture_build.output}"
    # A second checkout: same tree and commit, another folder, no build cache at all.
    fresh = tmp_path / "fresh-checkout"
    shutil.copytree(fixture_build.project, fresh, ignore=shutil.ignore_patterns("__pycache__"))
    for name in BUILD_CACHES:
        shutil.rmtree(fresh / ".cache" / name, ignore_errors=True)
    assert not any((fresh / ".cache" / name).exists() for name in BUILD_CACHES)

    proc = mkdocs_build(fresh, tmp_path / "fresh", env=ENV)  # ENV has no SOURCE_DATE_EPOCH
    assert proc.returncode == 0, proc.stdout
    assert "Converting notebook (execute=True)" in proc.stdout, "the fresh checkout did not execute its notebook"

    first, second = digests(fixture_build.site), digests(tmp_path / "fresh")
    assert first, "empty build"
    assert sorted(first) == sorted(second), (
        f"only in the first build: {sorted(set(first) - set(second))}; "
        f"only in the second: {sorted(set(second) - set(first))}"
    )
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, f"files that differ between two builds of the same tree: {differ}"
    assert any(name.startswith("notebooks/") and name.endswith(".ipynb") for name in first)
    assert any('class="journal-figure"' in (tmp_path / "fresh" / name).read_text("utf-8")
               for name in first if name.endswith(".html")), "no figure drawn in the fixture journal's build"
