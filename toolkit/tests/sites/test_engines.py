"""ProperDocs (the maintained MkDocs 1.x fork, the journal's way out) builds the same site as MkDocs.

The fixture journal is built again with `properdocs build --strict` from empty caches and compared
with the session's MkDocs build: same paths, same visible text and MathML per page (line by line,
whitespace collapsed: kernel output may come as one `<pre>` or two), same feed items.
"""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

from journal_tools.testing.site import BUILD_CACHES, ENV, freeze_as_git_repo

from fixture_journal import fixture_project

MATH = re.compile(r"<math\b.*?</math>", re.DOTALL)  # math-core never nests <math>


def properdocs_build(project: Path, site: Path) -> subprocess.CompletedProcess:
    """`properdocs build --strict` as `make build` runs MkDocs (cwd: the project, for snippets' base_path)."""
    return subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict",
         "--config-file", str(project / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=project, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


class _Text(HTMLParser):
    """What a reader sees: the text outside <script> and <style>."""

    HIDDEN = {"script", "style"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.HIDDEN:
            self._hidden += 1

    def handle_endtag(self, tag):
        if tag in self.HIDDEN and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)


def visible_lines(html: str) -> list[str]:
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = "\n".join(parser.parts).splitlines()
    return [" ".join(line.split()) for line in lines if line.strip()]


def site_files(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}


def feed_items(path: Path) -> list[tuple[str, str, str]]:
    if path.suffix == ".json":
        return [(i["title"], i["url"], i.get("content_html", "")) for i in json.loads(path.read_text("utf-8"))["items"]]
    return [(i.findtext("title"), i.findtext("link"), i.findtext("description"))
            for i in ET.parse(path).getroot().iter("item")]


def _diff(a: list[str], b: list[str], name: str) -> str:
    lines = difflib.unified_diff(a, b, "mkdocs/" + name, "properdocs/" + name, n=1, lineterm="")
    return "\n".join(list(lines)[:30])


def compare_sites(mkdocs_site: Path, properdocs_site: Path) -> list[str]:
    """Every difference that matters to a reader, as messages (none: the same site)."""
    ours, theirs = site_files(mkdocs_site), site_files(properdocs_site)
    problems = []
    if ours != theirs:
        problems.append(f"only in the MkDocs site: {sorted(ours - theirs)}; "
                        f"only in the ProperDocs site: {sorted(theirs - ours)}")
    common = sorted(ours & theirs)
    for name in (n for n in common if n.endswith(".html")):
        a, b = (site / name for site in (mkdocs_site, properdocs_site))
        a, b = a.read_text("utf-8"), b.read_text("utf-8")
        if visible_lines(a) != visible_lines(b):
            problems.append(f"text differs:\n{_diff(visible_lines(a), visible_lines(b), name)}")
        if MATH.findall(a) != MATH.findall(b):
            problems.append(f"math differs:\n{_diff(MATH.findall(a), MATH.findall(b), name)}")
    for name in (n for n in common if n.startswith("feed_")):
        a, b = (feed_items(site / name) for site in (mkdocs_site, properdocs_site))
        if a != b:
            problems.append(f"feed items differ:\n{_diff(list(map(repr, a)), list(map(repr, b)), name)}")
    return problems


def cache_entries(project: Path) -> dict[str, int]:
    return {name: sum(1 for p in (project / ".cache" / name).glob("*") if p.is_file()) for name in BUILD_CACHES}


def test_properdocs_builds_the_same_site(fixture_build, tmp_path):
    assert fixture_build.returncode == 0, f"mkdocs build --strict of the fixture journal failed:\n{fixture_build.output}"
    # No build cache at all: ProperDocs runs the notebook and figures itself.
    project = fixture_project(tmp_path / "project", caches=False)
    freeze_as_git_repo(project)
    before = cache_entries(project)
    proc = properdocs_build(project, tmp_path / "site")
    assert proc.returncode == 0, f"properdocs build --strict failed:\n{proc.stdout}"
    # What it executed and drew, it cached: every cache was empty, and now is not.
    assert before == dict.fromkeys(BUILD_CACHES, 0) and all(cache_entries(project).values()), (before, cache_entries(project))
    assert "Cache miss, writing" in proc.stdout, "ProperDocs did not execute the notebook:\n" + proc.stdout

    pages = sorted(fixture_build.site.rglob("*.html"))
    assert sum(len(MATH.findall(p.read_text("utf-8"))) for p in pages) > 0, "no MathML in the MkDocs site to compare"
    assert any(fixture_build.site.glob("feed_*")), "no feeds in the MkDocs site to compare"
    assert any(fixture_build.site.glob("notebooks/*/index.html")), "no notebook page in the MkDocs site to compare"
    assert any('class="journal-figure"' in p.read_text("utf-8") for p in pages), "no figure in the MkDocs site to compare"
    problems = compare_sites(fixture_build.site, tmp_path / "site")
    assert not problems, "\n\n".join(problems)
