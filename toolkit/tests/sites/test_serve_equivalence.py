"""`make serve` after any sequence of saves serves exactly what a clean build of the same tree makes.

Why: `--dirty` and Material's blog serve stale nav and index pages (mkdocs#4047,
mkdocs-material#8360), and a page cache here once served an empty Tags page. After each save,
every file of a clean `mkdocs build --strict` is compared byte for byte with the served one,
leaving out only what serve adds on purpose; the recent window (POSTS=2) likewise. The notebook
and figure are left out: their background runs are tested in browser/test_serve.py.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from benchmarks.common import serving
from journal_tools.compat import mkdocs_config
from journal_tools.testing.site import ENV, freeze_as_git_repo

from fixture_journal import fixture_project

pytestmark = pytest.mark.slow  # runs mkdocs serve and builds in subprocesses

POSTS = Path("docs/blog/posts")
ENTRY = POSTS / "2025-07-27-fixture-entry.md"
# What `make serve` adds on purpose, and nothing else.
_LIVERELOAD = re.compile(rb"<script>(?:(?!<script>).)*?</script>(?=</body>)", re.S)
_RUN_PANEL = re.compile(rb'<style>\.journal-run\{[^<]*</style><p class="journal-run journal-run--ok" role="status">[^<]*</p>')
_BLOCK_ANCHOR = re.compile(rb' id="block-\d+"')
_WINDOW_LINE = re.compile(rb'<p class="journal-window" role="note"[^>]*>.*?</p>', re.S)


def _extra_post(i: int, *, month: int, category: str, tag: str, body: str = "") -> tuple[str, str]:
    date = f"2025-{month:02d}-{10 + i % 18:02d}"
    text = (f"---\ndate: {date}\ncategories:\n  - {category}\ntags:\n  - {tag}\nauthors:\n  - author\n---\n\n"
            f"# Extra entry {i}\n\nThe excerpt of entry {i}, with $x_{i}$.\n\n<!-- more -->\n\nThe rest of entry {i}.\n{body}")
    return f"{date}-extra-{i}.md", text


def _project(tmp: Path) -> Path:
    project = fixture_project(tmp / "project")
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    text = _replaced(text, r"(?ms)^  - mkdocs-jupyter:.*?(?=^  - rss:)", "")  # no notebook (the module docstring)
    text = _replaced(text, r"(?m)^  - Notebook: .*\n", "  - Tags: tags.md\n")
    text = _replaced(text, r'(?m)^(      archive_url_format: "blog/archive/\{date\}"\n)',
                     r'\1      archive_date_format: MMMM yyyy\n      archive_url_date_format: yyyy/MM\n')
    config.write_text(text, encoding="utf-8")
    (project / "docs" / "notebooks").rename(tmp / "notebooks")
    (project / "docs" / "tags.md").write_text("# Tags\n\n<!-- material/tags -->\n", encoding="utf-8")
    entry = project / ENTRY
    entry.write_text(_replaced(entry.read_text(encoding="utf-8"), r"(?m)^<!-- journal:figure .*\n", ""), encoding="utf-8")
    categories = ["Attention", "Foundations", "Study notes"]
    for i in range(12):
        # Entry 11, the most recent, links to entry 0, the oldest (the window serves what it links to).
        body = ('\n```python title="weights.py"\n--8<-- "weights.py:softmax_rows"\n```\n' if i == 1 else
                "\nAfter [the first one](2025-01-10-extra-0.md).\n" if i == 11 else "")
        name, post = _extra_post(i, month=1 + i // 3, category=categories[i % 3], tag=["softmax", "shapes"][i % 2], body=body)
        (project / POSTS / name).write_text(post, encoding="utf-8")
    freeze_as_git_repo(project)  # the build date is the last commit's, as in a checkout, for serve and build alike
    return project


def _replaced(text: str, pattern: str, new: str) -> str:
    out, n = re.subn(pattern, new, text, count=1)
    assert n == 1, f"the fixture journal changed: no {pattern!r} in it"
    return out


class CleanBuilds:
    """Clean ``mkdocs build --strict`` runs of copies of ``project`` with serve's site URL, each a new process beside the server."""

    def __init__(self, project: Path, site_url: str):
        self.project, self.site_url = project, site_url

    def start(self, tree: Path, site: Path) -> None:
        """Start a clean build of ``tree`` (a copy of the project) into ``site``, with serve's site URL."""
        text = (tree / "mkdocs.yml").read_text(encoding="utf-8")
        config = tree / "mkdocs.clean.yml"
        config.write_text(re.sub(r"(?m)^site_url:.*$", f"site_url: {self.site_url}", text, count=1), encoding="utf-8")
        self.site = site
        self.proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(config), "-d", str(site)],
                                     cwd=tree, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def done(self) -> Path:
        output, _ = self.proc.communicate()
        assert self.proc.returncode == 0, f"the clean build failed:\n{output[-3000:]}"
        return self.site

    def close(self) -> None:
        if getattr(self, "proc", None) is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _rebuilds(log: Path) -> int:
    """Builds that ended, the first build included, as the serve log tells them (one line each:
    journal_tools.serve.save_log; MkDocs' own lines for each rebuild are left out while serving)."""
    text = log.read_text(encoding="utf-8", errors="replace")
    return min(text.count("Serving on "), 1) + len(re.findall(r"rebuild \d+ (?:done in|failed;)", text))


def _served(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.read()
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise


class Served:
    """The running `mkdocs serve` of a project: wait for its rebuilds, fetch its files."""

    def __init__(self, project: Path, port: int, log: Path):
        prefix = mkdocs_config.load(project / "mkdocs.yml").site_url.split("://", 1)[-1].split("/", 1)[-1]
        self.base, self.log = f"http://127.0.0.1:{port}/{prefix}", log
        # Fewer threads than the server's listen backlog (socketserver's 5): a connection past it
        # waits for its SYN to be sent again, a second later (every comparison took a second more).
        self.pool = ThreadPoolExecutor(4)

    def settle(self, before: int, timeout: float = 120) -> None:
        """Wait for a build to end after the ``before``-th, the entry's code to have run, and no
        other build to end meanwhile (a request made during a build waits for it: the server's own rule)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ended = _rebuilds(self.log)
            if ended > before:
                page = _served(self.entry_url())
                time.sleep(0.3)
                if page is not None and b"code blocks ran" in page and _rebuilds(self.log) == ended:
                    return
            time.sleep(0.1)
        raise AssertionError(f"serve did not finish rebuilding ({_rebuilds(self.log)} builds ended):\n"
                             f"{self.log.read_text(encoding='utf-8', errors='replace')[-3000:]}")

    def ended(self) -> int:
        return _rebuilds(self.log)

    def entry_url(self) -> str:
        """The fixture entry's URL (its date and title change on the way), from the home page."""
        home = _served(self.base).decode()
        return self.base + re.search(r'href="(blog/2025/0\d/27/[^"]+)"', home).group(1)

    def differences(self, site: Path, gone: set[str]) -> list[str]:
        """Every file of ``site`` the server serves differently, and every file of ``gone`` it still serves."""
        files = sorted(p for p in site.rglob("*") if p.is_file())
        served = self.pool.map(lambda p: _served(self.base + p.relative_to(site).as_posix()), files)
        problems = []
        for path, data in zip(files, served):
            rel = path.relative_to(site).as_posix()
            if data is None:
                problems.append(f"{rel}: the clean build has it, serve answers 404")
            elif _normalised(data) != path.read_bytes():
                problems.append(f"{rel}: served bytes differ from the clean build{_first_difference(_normalised(data), path.read_bytes())}")
        problems += [f"{rel}: gone from the clean build, still served" for rel, data in
                     zip(sorted(gone), self.pool.map(lambda rel: _served(self.base + rel), sorted(gone))) if data is not None]
        return problems


def _normalised(data: bytes) -> bytes:
    return _WINDOW_LINE.sub(b"", _BLOCK_ANCHOR.sub(b"", _RUN_PANEL.sub(b"", _LIVERELOAD.sub(b"", data))))


def _first_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f" at byte {at}: served {a[max(0, at - 60):at + 60]!r} / clean {b[max(0, at - 60):at + 60]!r}"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} has no {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _changes(project: Path):
    """The saves an author makes, in order: (what, change)."""
    entry, second = project / ENTRY, project / POSTS / "2025-01-11-extra-1.md"
    added = _extra_post(40, month=8, category="Attention", tag="softmax")[1].replace("# Extra entry 40", "# Added entry")
    yield "edit the prose", lambda: _edit(entry, "a row at a time.", "a row at a time, as the code below shows.")
    yield "change a title", lambda: _edit(entry, "# Fixture entry", "# Fixture entry, renamed")
    yield "change a date (another archive month)", lambda: _edit(entry, "date: 2025-07-27", "date: 2025-06-27")
    yield "change a category and a tag", lambda: _edit(second, "  - Foundations\ntags:\n  - shapes",
                                                       "  - Study notes\ntags:\n  - masking")
    yield "edit an excerpt", lambda: _edit(second, "The excerpt of entry 1", "The reworded excerpt of entry 1")
    yield "add an entry", lambda: (project / POSTS / "2025-08-01-added-entry.md").write_text(added, encoding="utf-8")
    yield "delete an entry", lambda: (project / POSTS / "2025-02-14-extra-4.md").unlink()
    yield "change mkdocs.yml", lambda: _edit(project / "mkdocs.yml", "site_name: Fixture journal", "site_name: Fixture journal, renamed")
    yield "edit a snippet two pages include", lambda: _edit(project / "snippets" / "weights.py", "one row of weights per query",
                                                            "one row of weights for each query")


def test_serve_after_each_save_equals_a_clean_build(tmp_path):
    project = _project(tmp_path)
    log = project / "serve.log"
    with serving(project, log, dict(ENV, JOURNAL_POSTS="all")) as port:
        served = Served(project, port, log)
        clean = CleanBuilds(project, served.base)
        seen: set[str] = set()
        report = []
        for n, (what, change) in enumerate([("the first build", None), *_changes(project)]):
            before = 0 if change is None else served.ended()
            if change is not None:
                change()
            # The clean build of this state runs while serve rebuilds it (two processes, two cores).
            clean.start(_snapshot(project, tmp_path / f"tree-{n}"), tmp_path / f"clean-{n}")
            served.settle(before)
            site = clean.done()
            now = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
            report += [f"after '{what}': {p}" for p in served.differences(site, seen - now)[:5]]
            seen |= now
        clean.close()
        assert "Serving the" not in log.read_text(encoding="utf-8"), "POSTS=all served a window"
    assert not report, "serve differs from a clean build:\n" + "\n".join(report)


def _snapshot(project: Path, tree: Path, served_posts: set[str] | None = None) -> Path:
    """A copy of ``project`` as it is now (its git history: the same build date), holding of its
    entries only ``served_posts`` (file names) if given; the math font shared, not copied."""
    shutil.copytree(project, tree, ignore=shutil.ignore_patterns(".cache", "journal_tools", "serve.log", "mkdocs.clean.yml"))
    (tree / ".cache").mkdir()
    (tree / ".cache" / "fonts").symlink_to(project / ".cache" / "fonts")
    for post in (tree / POSTS).glob("*.md") if served_posts is not None else ():
        if post.name not in served_posts:
            post.unlink()
    return tree


def test_the_window_serves_what_a_clean_build_of_its_entries_makes(tmp_path):
    """POSTS=2: the two most recent entries and the oldest, which the most recent links to; after a save of
    an old entry, that one too. Each time, what a clean build of a tree with only those entries makes."""
    project = _project(tmp_path)
    log = project / "serve.log"
    window = {"2025-07-27-fixture-entry.md", "2025-04-21-extra-11.md", "2025-01-10-extra-0.md"}
    old = project / POSTS / "2025-02-13-extra-3.md"
    with serving(project, log, dict(ENV, JOURNAL_POSTS="2")) as port:
        served = Served(project, port, log)
        clean = CleanBuilds(project, served.base)
        report = []
        for n, (what, change, posts) in enumerate([
                ("the first build", None, window),
                ("a save of an old entry", lambda: _edit(old, "The rest of entry 3.", "The rest of entry 3, saved."),
                 window | {old.name})]):
            before = 0 if change is None else served.ended()
            if change is not None:
                change()
            clean.start(_snapshot(project, tmp_path / f"tree-{n}", posts), tmp_path / f"clean-{n}")
            served.settle(before)
            site = clean.done()
            report += [f"after '{what}': {p}" for p in served.differences(site, set())[:5]]
            home = _served(served.base).decode()
            assert f"Serving the 2 most recent of 13 entries, plus {len(posts) - 2} saved since the start or linked" in home
        clean.close()
        assert "Serving the 2 most recent of 13 entries" in log.read_text(encoding="utf-8")
    assert not report, "the window differs from a clean build of its entries:\n" + "\n".join(report)


def test_a_broken_include_breaks_only_its_page(tmp_path):
    """A wrong section name in one entry's include: that entry is served (200) under a panel at the include's
    ``file:line`` with "did you mean", the terminal says it in a line, and every other file (the home page,
    the other entries) is what a clean build without the typo makes; the fix's line says what it fixed."""
    project = _project(tmp_path)
    broken = project / POSTS / "2025-01-11-extra-1.md"
    include = '--8<-- "weights.py:softmax_rows"'
    rel = broken.relative_to(project).as_posix()
    line = broken.read_text(encoding="utf-8").split("\n").index(include) + 1
    log = project / "serve.log"
    with serving(project, log, dict(ENV, JOURNAL_POSTS="all")) as port:
        served = Served(project, port, log)
        clean = CleanBuilds(project, served.base)
        clean.start(_snapshot(project, tmp_path / "tree"), tmp_path / "clean")  # the tree without the typo
        served.settle(0)
        site = clean.done()
        clean.close()
        before = served.ended()
        _edit(broken, include, include.replace("softmax_rows", "softmax_row"))
        served.settle(before)
        page = next(p for p in site.glob("blog/2025/01/11/*/index.html")).relative_to(site).as_posix()
        with urllib.request.urlopen(served.base + page, timeout=60) as answer:
            assert answer.status == 200
            html = answer.read().decode()
        assert 'class="journal-run journal-run--failed"' in html and f"{rel}:{line}" in html, html[-3000:]
        assert "did you mean &#x27;softmax_rows&#x27;?" in html
        assert "<h1" in html and "The rest of entry 1." in html  # the rest of the page is there
        # Every file but the broken page and what is made of its content (the search index, its downloads,
        # which its code as it stands cannot make) as built without the typo.
        own = (page, "search/", f"downloads/{broken.stem}.")
        report = [p for p in served.differences(site, set()) if not p.startswith(own)]
        text = log.read_text(encoding="utf-8")
        assert re.search(rf"WARNING .*{re.escape(rel)}:{line}: snippet include failed: .*did you mean 'softmax_rows'\?", text), text
        assert "Traceback" not in text and "The site did not build" not in text
        before = served.ended()
        _edit(broken, include.replace("softmax_rows", "softmax_row"), include)
        served.settle(before)
        fixed = log.read_text(encoding="utf-8")[len(text):]
        assert re.search(rf"rebuild \d+ done in [\d.]+ s · fixed: {re.escape(rel)}:{line} snippet include · ", fixed), fixed
        assert 'class="journal-run journal-run--failed"' not in _served(served.base + page).decode()  # the fix brings it back
        # Bad TeX in another entry: that entry is served under its panel too, the home page as before.
        before = served.ended()
        _edit(project / POSTS / "2025-01-12-extra-2.md", "The rest of entry 2.", "The rest of entry 2, $\\frac{1$.")
        served.settle(before)
        other = next(p for p in site.glob("blog/2025/01/12/*/index.html")).relative_to(site).as_posix()
        html = _served(served.base + other).decode()
        assert 'class="journal-run journal-run--failed"' in html and "docs/blog/posts/2025-01-12-extra-2.md:" in html
        assert "bad TeX in formula" in html
        assert _normalised(_served(served.base)) == (site / "index.html").read_bytes()
        # An unknown label, then a part of a series .series.yml does not declare: the page under its panel at the line.
        for old, new, says in (("The rest of entry 1.", "The rest of entry 1, by @eq-nowhere.", "unknown label &#x27;eq-nowhere&#x27;"),
                               ("date: 2025-01-11\n", "date: 2025-01-11\nseries: nope\npart: 1\n",
                                "series &#x27;nope&#x27; is not declared")):
            before = served.ended()
            _edit(broken, old, new)
            served.settle(before)
            line = broken.read_text(encoding="utf-8").split("\n").index(new.split("\n")[1] if "\n" in new else new) + 1
            html = _served(served.base + page).decode()
            assert 'class="journal-run journal-run--failed"' in html and f"<strong>{rel}:{line}</strong>: {says}" in html, html[-3000:]
            assert re.search(rf"WARNING .*{re.escape(rel)}:{line}: ", log.read_text(encoding="utf-8"))  # and the terminal line
            assert _normalised(_served(served.base)) == (site / "index.html").read_bytes()  # the home page as before
            before = served.ended()
            _edit(broken, new, old)
            served.settle(before)
        # An impossible date: the blog cannot place the post, so it is left out of the blog's pages and
        # served under its panel at the address it had, which the terminal line names.
        before = served.ended()
        _edit(project / POSTS / "2025-02-13-extra-3.md", "date: 2025-02-13", "date: 2025-02-30")
        served.settle(before)
        text = log.read_text(encoding="utf-8")
        where = re.findall(r"docs/blog/posts/2025-02-13-extra-3\.md:2: .*is not a real date.* at (\S+) until then", text)
        assert where, text[-2000:]
        assert "[RSS-plugin]" not in text and "only for the preview" not in text  # its line says it all
        third = next(p for p in site.glob("blog/2025/02/13/*/index.html")).relative_to(site).parent.as_posix() + "/"
        assert where[-1] == third, (where, third)
        html = _served(served.base + where[-1]).decode()
        assert 'class="journal-run journal-run--failed"' in html and "docs/blog/posts/2025-02-13-extra-3.md:2" in html
        assert "The rest of entry 3." in html and b"Extra entry 3" not in _served(served.base + "blog/archive/2025/02/")
    assert not report, "serve of the other pages differs from a clean build without the typo:\n" + "\n".join(report)
