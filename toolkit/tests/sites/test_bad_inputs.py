"""Bad inputs planted in copies of the fixture journal: what a writer runs fails naming file (and line).

Build-level faults: one `mkdocs build --strict` per build stage holding all its mistakes; each
test checks its own message and which page test reports it. Page-level faults: the page doc-tests,
in one run. Here rather than in test_one_failure.py: mistakes that stop the whole build or break a
file every page reads (a broken link, a BibTeX syntax error). `pytest -s` prints each first line.
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from journal_tools.testing.site import ENV, build_problem, mkdocs_build, page_tests_reporting

from fixture_journal import fixture_project, without_notebook_execution

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

POST_DATE = "2030-01-01"


_POSTS_MADE = itertools.count(1)


def post(front: str, body: str = "Text.") -> str:
    """A blog post: front matter lines (without ---), excerpt marker, body; a title of its own (one date and slug is one page)."""
    return f"---\n{front}authors:\n  - author\n---\n\n# Planted {next(_POSTS_MADE)}\n\nIntro.\n\n<!-- more -->\n\n{body}\n"


VALID_FRONT = f"date: {POST_DATE}\ncategories:\n  - Attention\n"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return fixture_project(tmp_path_factory.mktemp("pristine") / "project")


def project_copy(pristine: Path, dst: Path, *, run_notebooks: bool = False) -> Path:
    shutil.copytree(pristine, dst)
    return dst if run_notebooks else without_notebook_execution(dst)


def plant(root: Path, rel: str, text: str) -> str:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return rel


def first_line_naming(output: str, needle: str) -> str:
    for line in output.splitlines():
        if needle in line:
            return line.strip()
    return ""


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# --------------------------------------------------------------------------
# Build-level faults: a build stops at the first stage with mistakes, so one copy per stage
# (mkdocs.yml, source checks, render with notebooks executed, the BibTeX file).


@dataclass(frozen=True)
class Planted:
    """One mistake: the file planted (``text``: its whole text), where the build must name it, what it says."""

    rel: str
    text: str
    needle: str  # the reported line is the first line holding this text
    says: tuple[str, ...]  # also on that message's line
    reported_by: str | None  # the page test that reports it, as the build lists it (page_tests_reporting); None: the build alone

    @property
    def where(self) -> str:
        return f"{self.rel}:{line_of(self.text, self.needle)}:"


POSTS = "docs/blog/posts"
SOURCE_STAGE = {
    "entry without date": Planted(f"{POSTS}/2030-01-01-no-date.md", post("categories:\n  - Attention\n"),
                                  "---", ("post has no date",), "page"),
    "malformed date": Planted(f"{POSTS}/2030-01-02-bad-date.md", post("date: 2026-13-45\ncategories:\n  - Attention\n"),
                              "date:", ("2026-13-45",), "page"),
    "category outside the allow list": Planted(f"{POSTS}/2030-01-03-bad-category.md",
                                               post(f"date: {POST_DATE}\ncategories:\n  - Transformers\n"),
                                               "  - Transformers", ("Transformers",), "page"),
    "include of a missing snippet": Planted(f"{POSTS}/2030-01-04-missing-include.md",
                                            post(VALID_FRONT, '```python\n--8<-- "no_such_module.py"\n```'),
                                            "--8<--", ("no_such_module.py",), "page"),
    # the fixture entry's date and slug: the site would keep one of the two (named at the copy, after it by file name)
    "two entries with one address": Planted(f"{POSTS}/2025-07-27-fixture-entry-copy.md",
                                            post("date: 2025-07-27\nslug: fixture-entry\ncategories:\n  - Attention\n"), "slug:",
                                            ("is also docs/blog/posts/2025-07-27-fixture-entry.md's",), "page"),
    "include escaping snippets/": Planted(f"{POSTS}/2030-01-05-escaping-include.md",
                                          post(VALID_FRONT, '```python\n--8<-- "../mkdocs.yml"\n```'),
                                          "--8<--", ("../mkdocs.yml",), "page"),
    "part of an undeclared series": Planted(f"{POSTS}/2030-01-06-undeclared-series.md", post(f"{VALID_FRONT}series: nope\npart: 1\n"),
                                            "series:", ("series 'nope' is not declared in docs/blog/.series.yml",), "page"),
    # the fixture entry (an earlier path) is part 1 already
    "two parts with one number": Planted(f"{POSTS}/2030-01-07-second-part-one.md",
                                         post(f"{VALID_FRONT}series: weights-by-hand\npart: 1\n"), "part:",
                                         ("part 1 of series 'weights-by-hand' is also docs/blog/posts/2025-07-27-fixture-entry.md",), "page"),
}
# a three-line display formula, the unknown command on its second line: the build names that line
TEX = "# Planted\n\nFine $x$.\n\n$$\na + b \\\\\n\\frac{a}{2} + \\nosuchcommand{x} \\\\\nc\n$$\n"
RENDER_STAGE = {
    "malformed TeX": Planted("docs/planted-tex.md", TEX, "nosuchcommand",
                             ("\\nosuchcommand", 'Unknown command "\\nosuchcommand"'), "render"),
    "second page with malformed TeX": Planted("docs/planted-tex-b.md", "# Planted\n\nBroken $\\frac{a}{$ here.\n",
                                              "Broken", ("bad TeX",), "render"),
    "unknown citation key": Planted("docs/planted-cite.md", "# Cites\n\nKnown [@raschka2024].\n\n"
                                    "Unknown [@vaswani2017; @rashka2024, ch. 3].\n", "@rashka2024",
                                    ("unknown citation key 'rashka2024'", "did you mean 'raschka2024'?"), "render"),
    "notebook cell that raises": Planted("docs/notebooks/planted_fault.py",
                                         "# %% [markdown]\n# # Planted\n\n# %%\nx = 1\n\n# %%\ny = x / 0\n",
                                         "y = x / 0", ("ZeroDivisionError",), "notebook"),
    # the build runs a notebook no passed page test vouches for, as its page test does, and stops at the number (one failure)
    "number in a notebook's sentence the code contradicts": Planted(
        "docs/notebooks/planted_number.py", "# %% [markdown]\n# # Planted\n\n# %%\nx = 2\n\n# %% [markdown]\n# Twice one is [3]{= x}.\n",
        "[3]{= x}", ("the number written is 3 but `x` gives 2",), "notebook"),
    "unknown label": Planted("docs/planted-ref.md", "# Refs\n\n$$x = 1$$ {#eq-x}\n\nBy @eq-y, x is one.\n", "By @eq-y",
                             ("unknown label 'eq-y'",), "render"),
    "duplicated label": Planted("docs/planted-ref-b.md", "# Refs\n\n$$x = 1$$ {#eq-x}\n\n$$x = 2$$ {#eq-x}\n", "$$x = 2$$",
                                ("label 'eq-x' is given twice (also at line 3)",), "render"),
    "reference to a page that does not exist": Planted("docs/planted-ref-c.md", "# Refs\n\nAs [@eq-x](no-such-page.md) says.\n",
                                                       "As [@eq-x]", ("which is no page of the journal",), "render"),
    "broken internal link": Planted("docs/planted-link.md", "# Planted\n\nSee [the missing page](no-such-page.md).\n",
                                    "no-such-page", ("Doc file 'planted-link.md' contains a link", "no-such-page.md"), None),
}


class Build:
    """One build of a copy with mistakes planted: its output and its located messages."""

    def __init__(self, root: Path, site: Path):
        self.root = root
        proc = mkdocs_build(root, site)
        self.returncode, self.output = proc.returncode, proc.stdout

    def message(self, where: str) -> str:
        """The build's message starting with ``where``; the build must have failed."""
        assert self.returncode != 0, f"the build passed with the faults planted:\n{self.output}"
        for line in self.output.splitlines():
            m = re.match(r"^(?:(?:ERROR|WARNING)\s+-\s+)?(?P<msg>\S+:\d+: .*)$", line.strip())
            if m and m["msg"].startswith(where):
                return m["msg"]
        raise AssertionError(f"{where!r} named nowhere in the build\'s output:\n{self.output}")

    def check(self, mistake: Planted) -> str:
        """The mistake's message: at its line, saying what it must, reported by its page test."""
        message = self.message(mistake.where)
        for said in mistake.says:
            assert said in message, (said, message)
        expected = f"{mistake.rel}::{mistake.reported_by}" if mistake.reported_by else None
        assert page_tests_reporting(self.root).get(mistake.where.rstrip(":")) == expected, (message, self.output)
        print(f"\n[bad input] {message}")
        return message


def planted_build(pristine: Path, folder: Path, mistakes: dict[str, Planted], *, run_notebooks: bool = False) -> Build:
    root = project_copy(pristine, folder / "p", run_notebooks=run_notebooks)
    for mistake in mistakes.values():
        plant(root, mistake.rel, mistake.text)
    return Build(root, folder / "site")


@pytest.fixture(scope="module")
def source_build(pristine, tmp_path_factory) -> Build:
    return planted_build(pristine, tmp_path_factory.mktemp("source-stage"), SOURCE_STAGE)


@pytest.fixture(scope="module")
def render_build(pristine, tmp_path_factory) -> Build:
    return planted_build(pristine, tmp_path_factory.mktemp("render-stage"), RENDER_STAGE, run_notebooks=True)


@pytest.mark.parametrize("kind", SOURCE_STAGE)
def test_source_mistake_named_at_its_line(source_build, kind):
    source_build.check(SOURCE_STAGE[kind])


@pytest.mark.parametrize("kind", RENDER_STAGE)
def test_render_mistake_named_at_its_line(render_build, kind):
    render_build.check(RENDER_STAGE[kind])


def test_one_build_names_every_mistake_of_its_stage(source_build, render_build):
    """Each stage's build reports all its mistakes in one error, in page order, the count at the end;
    the first line (what test_docs_build shows) is the first mistake\'s."""
    for build, mistakes in ((source_build, SOURCE_STAGE), (render_build, RENDER_STAGE)):
        errors = [m for m in mistakes.values() if m.reported_by]  # a broken link is a warning, not in the count
        files = len({m.rel for m in errors})
        assert f"({len(errors)} mistakes in {files} files, found in one build)" in build.output, build.output
    first = min(SOURCE_STAGE.values(), key=lambda m: m.rel)
    assert build_problem(source_build.output, source_build.root).startswith(first.where), source_build.output


def test_unknown_plugin_option_in_mkdocs_yml(pristine, tmp_path):
    """MkDocs names the option, not the line: the report starts with mkdocs.yml\'s line."""
    root = project_copy(pristine, tmp_path / "p")
    config = root / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "\n  - journal\n" in text
    text = text.replace("\n  - journal\n", "\n  - journal:\n      no_such_option: 1\n", 1)
    config.write_text(text, encoding="utf-8")
    proc = mkdocs_build(root, tmp_path / "site")
    assert proc.returncode != 0, proc.stdout
    problem = build_problem(proc.stdout, root)
    where = f"mkdocs.yml:{line_of(text, 'no_such_option')}: "
    assert problem.startswith(where + "Config value 'plugins': Plugin 'journal' option 'no_such_option'"), (problem, proc.stdout)
    assert page_tests_reporting(root) == {}  # no page test reports it: test_docs_build does
    print(f"\n[bad input] {problem}")


def test_bibtex_syntax_error(pristine, tmp_path):
    root = project_copy(pristine, tmp_path / "p")
    bib = root / "docs" / "references.bib"
    text = bib.read_text(encoding="utf-8").replace("  publisher = {Manning},", "  publisher {Manning},", 1)
    bib.write_text(text, encoding="utf-8")
    build = Build(root, tmp_path / "site")
    build.check(Planted("docs/references.bib", text, "publisher {", ("BibTeX syntax error: '=' expected",), "bibliography"))


# --------------------------------------------------------------------------
# Page-level faults (the page doc-tests), one pytest run for all of them

PAGES = {
    "missing-include.md": ('# Missing include\n\n```python\n--8<-- "no_such_module.py"\n```\n', '--8<--'),
    "escaping-include.md": ('# Escaping include\n\n```python\n--8<-- "../mkdocs.yml"\n```\n', '--8<--'),
    "raises.md": ('# Raises\n\nFine:\n\n```python\nx = 1\n```\n\nNot fine:\n\n```python\ny = 2\n'
                  'raise ValueError("planted")\n```\n', 'raise ValueError'),
    "cites-unknown.md": ("# Cites\n\nKnown [@raschka2024].\n\nUnknown [@vaswani2017; @rashka2024, ch. 3].\n",
                         "@rashka2024"),
    "mismatch.md": ("# Mismatch\n\n```python\nprint(1 + 1)\n```\n\n<!--pytest-codeblocks:expected-output-->\n\n"
                    "```\n3\n```\n", "3\n```"),  # named at the output line that differs
}


class PageRun:
    def __init__(self, output: str, returncode: int):
        self.output = output
        self.returncode = returncode

    def fails_naming(self, name: str) -> str:
        text, needle = PAGES[name]
        rel = f"docs/planted/{name}"
        assert self.returncode != 0, self.output
        failed = [ln for ln in self.output.splitlines() if ln.startswith(("FAILED", "ERROR")) and rel in ln]
        assert failed, f"{rel} not reported as failed:\n{self.output}"
        # the line: the fault's own line (for an expected output, its line inside the fence)
        where = f"{rel}:{line_of(text, needle)}"
        line = first_line_naming(self.output, where)
        assert line, f"{where!r} named nowhere in the doc-test output:\n{self.output}"
        print(f"\n[bad input, doc-test] {line}")
        return line


@pytest.fixture(scope="module")
def page_run(pristine, tmp_path_factory) -> PageRun:
    root = project_copy(pristine, tmp_path_factory.mktemp("pages") / "p")
    for name, (text, _) in PAGES.items():
        plant(root, f"docs/planted/{name}", text)
    env = {k: v for k, v in ENV.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "docs/planted", "-p", "no:randomly", "-p", "no:cacheprovider",
         "-q", "-rfE", "--color=no"],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    return PageRun(proc.stdout, proc.returncode)


# the include and citation faults of the build stages fail the page doc-tests too
@pytest.mark.parametrize("name, also", [("missing-include.md", ""), ("escaping-include.md", ""), ("cites-unknown.md", ""),
                                        ("raises.md", "planted"), ("mismatch.md", "")])
def test_a_page_fault_fails_its_page_test_at_its_line(page_run, name, also):
    page_run.fails_naming(name)
    assert also in page_run.output


# --------------------------------------------------------------------------
# Nothing broken is published: make build with a bad entry leaves the previous site/ byte for byte.


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_failed_make_build_keeps_previous_site(pristine, tmp_path):
    root = project_copy(pristine, tmp_path / "p")
    site = root / "site"
    (site / "blog").mkdir(parents=True)
    (site / "index.html").write_bytes(b"<!doctype html><title>previous</title>\n")
    (site / "blog" / "index.html").write_bytes(bytes(range(256)))
    before = _tree(site)
    rel = plant(root, "docs/blog/posts/2030-01-01-planted.md", post("date: 2026-13-45\n"))

    proc = subprocess.run([sys.executable, "-m", "journal_tools.commands.build"], cwd=root, env=ENV,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    assert proc.returncode != 0, proc.stdout
    assert f"{rel}:2:" in proc.stdout
    assert _tree(site) == before
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".site.")) == []  # no temp build left
