"""Same sources, same site: two builds of the same tree give the same bytes in
every file, with no exception and no normalising.

The tree is the fixture journal (toolkit/tests/fixtures/journal, with its own
mkdocs.yml, a notebook and a figure: a toolkit test, never the author's
docs/). The two builds: the session's build of a frozen copy of it (fixture
`fixture_build`: its notebook and figures come from the build caches, which
the tests seed from earlier builds: journal_tools/testing/site.py BUILD_CACHES) and a
second copy of that tree in another folder without any cache (the notebook is
executed and the figures drawn afresh, as in CI or a fresh clone).

What used to differ, and how it is pinned:
- the build date (sitemap.xml <lastmod>, the gzip header of sitemap.xml.gz,
  the feeds' lastBuildDate and pubDate): SOURCE_DATE_EPOCH, set by
  journal_tools/mkdocs_plugin/build_date.py to the last commit's time;
- notebook cell ids (random uuid4 from nbformat, on the page and in the
  .ipynb download) and stdout split into several outputs by the kernel's
  timing: journal_tools/mkdocs_plugin/nbids.py (ids from the cells, streams merged after
  execution).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from journal_tools.testing.site import BUILD_CACHES, CACHE_STORE, ENV, mkdocs_build


def digests(site: Path) -> dict[str, str]:
    return {path.relative_to(site).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(site.rglob("*")) if path.is_file()}


def test_two_builds_are_byte_identical(fixture_build, tmp_path):
    assert fixture_build.returncode == 0, f"mkdocs build --strict of the fixture journal failed:\n{fixture_build.output}"
    # A second checkout: same tree and commit, another folder, no build cache
    # (no executed notebook, no drawn figure, none of the tests' stored entries).
    fresh = tmp_path / "fresh-checkout"
    shutil.copytree(fixture_build.project, fresh, ignore=shutil.ignore_patterns("__pycache__"))
    for name in (*BUILD_CACHES, CACHE_STORE.name):
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
