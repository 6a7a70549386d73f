"""`make serve` after any sequence of saves serves exactly what a clean build makes.

The rebuilds of `mkdocs serve` reuse cached steps (journal_tools/build/incremental);
MkDocs' `--dirty` and Material's blog are known to serve stale navigation and
index pages after such rebuilds (mkdocs#4047, mkdocs-material#8360). Here a
served copy of the fixture journal, with enough entries for two home pages,
two archive years, categories and tags, is taken through the saves an author
makes, in order. After each one, once the serve log shows the rebuild ended
(and any background notebook run or figure redraw with it), every file of a
clean build of the same tree (the journal plugin's `page_cache: false`, the
site URL serve uses) is fetched from the server and compared byte for byte,
leaving out only what serve adds on purpose: the live-reload script, the
code-run status line and the block anchors. Files the clean build no longer
has (a deleted entry's page) must be gone from the server too.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from journal_site import ENV, fixture_project, freeze_as_git_repo

from journal_tools.readers.settings import Settings
from journal_tools.serve.port import serving

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

POSTS = Path("docs/blog/posts")
ENTRY = POSTS / "2025-07-27-fixture-entry.md"
SETTLE_SECONDS = 3.0  # no new build started for this long: the rebuild and what it scheduled are done
# What `make serve` adds on purpose, and nothing else.
_LIVERELOAD = re.compile(rb"<script>(?:(?!<script>).)*?</script>(?=</body>)", re.S)
_RUN_PANEL = re.compile(rb'<style>\.journal-run\{[^<]*</style><p class="journal-run journal-run--ok" role="status">[^<]*</p>')
_BLOCK_ANCHOR = re.compile(rb' id="block-\d+"')


def _extra_post(i: int, *, year: int, category: str, tag: str, include: bool = False) -> tuple[str, str]:
    body = ('\n```python title="weights.py"\n--8<-- "weights.py:softmax_rows"\n```\n' if include else "")
    text = (f"---\ndate: {year}-0{1 + i % 6}-1{i % 9}\ncategories:\n  - {category}\ntags:\n  - {tag}\n"
            f"authors:\n  - author\n---\n\n# Extra entry {i}\n\nThe excerpt of entry {i}, with $x_{i}$.\n\n"
            f"<!-- more -->\n\nThe rest of entry {i}.\n{body}")
    return f"{year}-0{1 + i % 6}-1{i % 9}-extra-{i}.md", text


def _project(tmp: Path) -> Path:
    project = fixture_project(tmp / "project")
    categories = ["Attention", "Foundations", "Study notes"]
    for i in range(12):
        name, text = _extra_post(i, year=2025 if i % 3 else 2024, category=categories[i % 3],
                                 tag=["softmax", "shapes"][i % 2], include=i == 1)
        (project / POSTS / name).write_text(text, encoding="utf-8")
    freeze_as_git_repo(project)  # the build date is the last commit's, as in a checkout, for serve and build alike
    return project


def _clean_config(project: Path, site_url: str) -> Path:
    """mkdocs.yml as it is now, with no page cache and serve's site URL: the oracle's config."""
    text = (project / "mkdocs.yml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^site_url:.*$", f"site_url: {site_url}", text, count=1)
    text, n = re.subn(r"(?m)^  - journal\s*$", "  - journal:\n      page_cache: false", text, count=1)
    assert n == 1, "the fixture's mkdocs.yml lists the journal plugin as '  - journal'"
    path = project / "mkdocs.oracle.yml"
    path.write_text(text, encoding="utf-8")
    return path


def _clean_build(project: Path, site_url: str, site: Path) -> None:
    shutil.rmtree(site, ignore_errors=True)
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f",
                           str(_clean_config(project, site_url)), "-d", str(site)],
                          cwd=project, env=ENV, capture_output=True, text=True)
    assert proc.returncode == 0, f"the clean build failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"


def _builds_ended(log: Path) -> tuple[int, int]:
    """(builds started, builds that ended), the first build included, as the serve log tells them."""
    text = log.read_text(encoding="utf-8", errors="replace")
    started = text.count("Building documentation...")
    ended = min(text.count("Serving on "), 1) + len(re.findall(r"rebuild \d+ (?:done in|failed;)", text))
    return started, ended


def _settle(log: Path, ended_before: int, timeout: float = 300) -> None:
    """Wait for a rebuild after ``ended_before`` to end, then for the server to stay idle."""
    deadline = time.monotonic() + timeout
    idle_since, last = None, None
    while time.monotonic() < deadline:
        started, ended = _builds_ended(log)
        state = (started, ended)
        if ended > ended_before and started == ended:
            if state != last:
                idle_since, last = time.monotonic(), state
            elif time.monotonic() - idle_since >= SETTLE_SECONDS:
                return
        else:
            idle_since, last = None, state
        time.sleep(0.2)
    raise AssertionError(f"serve did not finish rebuilding (started/ended {_builds_ended(log)}):\n"
                         f"{log.read_text(encoding='utf-8', errors='replace')[-3000:]}")


def _served(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.read()
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise


def _normalised(data: bytes) -> bytes:
    return _BLOCK_ANCHOR.sub(b"", _RUN_PANEL.sub(b"", _LIVERELOAD.sub(b"", data)))


def _differences(base: str, site: Path, gone: set[str]) -> list[str]:
    problems = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        served = _served(base + rel)
        if served is None:
            problems.append(f"{rel}: the clean build has it, serve answers 404")
        elif _normalised(served) != path.read_bytes():
            problems.append(f"{rel}: served bytes differ from the clean build{_first_difference(_normalised(served), path.read_bytes())}")
    for rel in sorted(gone):
        if _served(base + rel) is not None:
            problems.append(f"{rel}: gone from the clean build, still served")
    return problems


def _first_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f" at byte {at}: served {a[max(0, at - 60):at + 60]!r} / clean {b[max(0, at - 60):at + 60]!r}"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} has no {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _changes(project: Path):
    """The saves, in the order the issue lists them: (what, change)."""
    entry, second = project / ENTRY, next((project / POSTS).glob("*-extra-1.md"))
    new_entry = project / POSTS / "2025-08-01-added-entry.md"
    yield "edit the prose", lambda: _edit(entry, "a row at a time.", "a row at a time, as the code below shows.")
    yield "change a title", lambda: _edit(entry, "# Fixture entry", "# Fixture entry, renamed")
    yield "change a date (another archive year)", lambda: _edit(entry, "date: 2025-07-27", "date: 2024-07-27")
    yield "change a category", lambda: _edit(second, "  - Foundations", "  - Study notes")
    yield "change a tag", lambda: _edit(second, "  - shapes", "  - masking")
    yield "edit an excerpt", lambda: _edit(second, "The excerpt of entry 1", "The reworded excerpt of entry 1")
    yield "add an entry", lambda: new_entry.write_text(_extra_post(40, year=2025, category="Attention", tag="softmax")[1]
                                                       .replace("# Extra entry 40", "# Added entry"), encoding="utf-8")
    yield "delete an entry", lambda: next((project / POSTS).glob("*-extra-4.md")).unlink()
    yield "change mkdocs.yml", lambda: _edit(project / "mkdocs.yml", "site_name: Fixture journal", "site_name: Fixture journal, renamed")
    yield "edit the BibTeX file a cited entry's citation reads", lambda: _edit(
        project / "docs" / "references.bib", "year      = {2024}", "year      = {2023}")
    yield "edit a snippet two pages include", lambda: _edit(project / "snippets" / "weights.py", "one row of weights per query",
                                                            "one row of weights for each query")


def test_serve_after_each_save_equals_a_clean_build(tmp_path):
    """About 2-4 minutes: twelve serve rebuilds and twelve clean builds."""
    project = _project(tmp_path)
    log = project / "serve.log"
    with serving(project, log, ENV) as port:
        prefix = Settings.load(project / "mkdocs.yml").site_url.split("://", 1)[-1].split("/", 1)[-1]
        base = f"http://127.0.0.1:{port}/{prefix}"
        _settle(log, 0)
        seen: set[str] = set()
        report = []
        for what, change in [("the first build", None), *_changes(project)]:
            ended = _builds_ended(log)[1]
            if change is not None:
                change()
                _settle(log, ended)
            site = tmp_path / "clean"
            _clean_build(project, base, site)
            now = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
            problems = _differences(base, site, seen - now)
            seen |= now
            report += [f"after '{what}': {p}" for p in problems[:5]]
        assert not report, "serve differs from a clean build:\n" + "\n".join(report)
