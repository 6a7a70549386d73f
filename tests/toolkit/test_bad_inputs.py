"""Catalogue of bad inputs: each fault is planted in a temporary copy of the
fixture journal (tests/toolkit/fixtures/journal, built with its own mkdocs.yml and
journal_tools; never the author's docs/ or mkdocs.yml), and what a writer would run must
fail with a message naming the file (and the line, where there is one).

Build-level faults run `mkdocs build --strict` on the copy; page-level faults
run the page doc-tests (`python -m pytest docs/...` in the copy), all planted
pages in one run. To keep builds short, the copies used for faults unrelated
to notebooks do not execute notebooks (`execute: false`); the notebook fault
runs them. Each build fault also says which page test reports it, if any
(what tests/journal/test_site_build.py::test_docs_build uses to report a mistake once).

The mistakes that stop the build of the whole site, or break a file every
page reads, are here rather than in the one-pass catalogue of page-level
mistakes (tests/toolkit/test_one_failure.py), whose pages share one copy: a
broken link (only the build reports it) and a BibTeX syntax error (every
citing page reads the file; its page test is named by reporting_page_test).

The first line of each message is printed (`pytest -s` shows them).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from journal_site import ENV, build_problem, fixture_project, mkdocs_build, reporting_page_test, without_notebook_execution

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

POST_DATE = "2030-01-01"


def post(front: str, body: str = "Text.") -> str:
    """A blog post: front matter lines (without ---), excerpt marker, body."""
    return f"---\n{front}authors:\n  - author\n---\n\n# Planted\n\nIntro.\n\n<!-- more -->\n\n{body}\n"


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


def build_fails_naming(root: Path, tmp_path: Path, where: str, reported_by: str | None = None) -> str:
    """Build the copy; it must fail with ``where`` (path or path:line) in a line of its output,
    first of its problems, and the page test ``reported_by`` (a node id, or None) must report it."""
    proc = mkdocs_build(root, tmp_path / "site")
    output = proc.stdout
    assert proc.returncode != 0, f"the build passed with the fault planted:\n{output}"
    line = first_line_naming(output, where)
    assert line, f"{where!r} named nowhere in the build's output:\n{output}"
    problem = build_problem(output, root)
    assert where in problem, (problem, output)
    assert reporting_page_test(problem, root) == reported_by, problem
    print(f"\n[bad input] {line}")
    return line


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# --------------------------------------------------------------------------
# Build-level faults (mkdocs build --strict)


def test_unknown_plugin_option_in_mkdocs_yml(pristine, tmp_path):
    """MkDocs names the option, not the line: the report starts with mkdocs.yml's line."""
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
    assert reporting_page_test(problem, root) is None  # no page test reports it: test_docs_build does
    print(f"\n[bad input] {problem}")


def test_entry_without_date(pristine, tmp_path):
    root = project_copy(pristine, tmp_path / "p")
    rel = plant(root, "docs/blog/posts/2030-01-01-planted.md", post("categories:\n  - Attention\n"))
    build_fails_naming(root, tmp_path, f"{rel}:1: post has no date", f"{rel}::page")


def test_malformed_date(pristine, tmp_path):
    root = project_copy(pristine, tmp_path / "p")
    rel = plant(root, "docs/blog/posts/2030-01-01-planted.md", post("date: 2026-13-45\ncategories:\n  - Attention\n"))
    line = build_fails_naming(root, tmp_path, f"{rel}:2:", f"{rel}::page")
    assert "2026-13-45" in line


def test_category_outside_allow_list(pristine, tmp_path):
    root = project_copy(pristine, tmp_path / "p")
    rel = plant(root, "docs/blog/posts/2030-01-01-planted.md",
                post(f"date: {POST_DATE}\ncategories:\n  - Transformers\n"))
    line = build_fails_naming(root, tmp_path, f"{rel}:4:", f"{rel}::page")
    assert "Transformers" in line


def test_broken_internal_link(pristine, tmp_path):
    root = project_copy(pristine, tmp_path / "p")
    rel = plant(root, "docs/planted-link.md", "# Planted\n\nSee [the missing page](no-such-page.md).\n")
    line = build_fails_naming(root, tmp_path, f"{rel}:3: Doc file 'planted-link.md' contains a link")
    assert "no-such-page.md" in line


def test_malformed_tex(pristine, tmp_path):
    root = project_copy(pristine, tmp_path / "p")
    # a three-line display formula, the unknown command on its second line: the build names that line
    text = "# Planted\n\nFine $x$.\n\n$$\na + b \\\\\n\\frac{a}{2} + \\nosuchcommand{x} \\\\\nc\n$$\n"
    rel = plant(root, "docs/planted-tex.md", text)
    line = build_fails_naming(root, tmp_path, f"{rel}:{line_of(text, 'nosuchcommand')}:", f"{rel}::render")
    assert "\\nosuchcommand" in line and 'Unknown command "\\nosuchcommand"' in line, line


def test_one_build_names_every_mistake(pristine, tmp_path):
    """Two bad posts stop the build at the source checks with both named; fixed, two bad formulas
    on two pages stop it after rendering with both named. The first line is the first mistake's."""
    root = project_copy(pristine, tmp_path / "p")
    no_date = plant(root, "docs/blog/posts/2030-01-01-planted.md", post("categories:\n  - Attention\n"))
    category = plant(root, "docs/blog/posts/2030-01-02-planted.md", post(f"date: {POST_DATE}\ncategories:\n  - Transformers\n"))
    proc = mkdocs_build(root, tmp_path / "site")
    assert proc.returncode != 0, proc.stdout
    assert build_problem(proc.stdout, root).startswith(f"{no_date}:1: post has no date"), proc.stdout
    assert first_line_naming(proc.stdout, f"{category}:4:"), proc.stdout
    assert "(2 mistakes in 2 files, found in one build)" in proc.stdout, proc.stdout

    plant(root, no_date, post(VALID_FRONT))
    plant(root, category, post(VALID_FRONT))
    tex = "# Planted\n\nBroken $\\frac{a}{$ here.\n"
    first, second = plant(root, "docs/planted-tex-a.md", tex), plant(root, "docs/planted-tex-b.md", tex)
    proc = mkdocs_build(root, tmp_path / "site")
    assert proc.returncode != 0, proc.stdout
    problems = [first_line_naming(proc.stdout, f"{rel}:3:") for rel in (first, second)]
    assert all(problems) and "(2 mistakes in 2 files, found in one build)" in proc.stdout, proc.stdout
    assert build_problem(proc.stdout, root).startswith(f"{first}:3:"), proc.stdout
    print(f"\n[bad input] {problems}")


def test_unknown_citation_key(pristine, tmp_path, page_run):
    root = project_copy(pristine, tmp_path / "p")
    text, needle = PAGES["cites-unknown.md"]
    rel = plant(root, "docs/planted-cite.md", text)
    line = build_fails_naming(root, tmp_path, f"{rel}:{line_of(text, needle)}: unknown citation key 'rashka2024'",
                              f"{rel}::render")
    assert "did you mean 'raschka2024'?" in line
    page_run.fails_naming("cites-unknown.md")


def test_bibtex_syntax_error(pristine, tmp_path):
    root = project_copy(pristine, tmp_path / "p")
    bib = root / "docs" / "references.bib"
    text = bib.read_text(encoding="utf-8").replace("  publisher = {Manning},", "  publisher {Manning},", 1)
    bib.write_text(text, encoding="utf-8")
    line = build_fails_naming(root, tmp_path, f"docs/references.bib:{line_of(text, 'publisher {')}: ",
                              "docs/references.bib::bibliography")
    assert "BibTeX syntax error: '=' expected" in line


def test_notebook_cell_that_raises(pristine, tmp_path):
    config = (pristine / "mkdocs.yml").read_text(encoding="utf-8")
    if "mkdocs-jupyter" not in config:
        pytest.skip("mkdocs.yml has no mkdocs-jupyter plugin: notebooks are not built")
    root = project_copy(pristine, tmp_path / "p", run_notebooks=True)
    text = "# %% [markdown]\n# # Planted\n\n# %%\nx = 1\n\n# %%\ny = x / 0\n"
    rel = plant(root, "docs/notebooks/planted_fault.py", text)
    line = build_fails_naming(root, tmp_path, f"{rel}:{line_of(text, 'y = x / 0')}:", f"{rel}::notebook")
    assert "ZeroDivisionError" in line


# Include faults: the build names page and line (journal_tools/core/validate.py)
# and so do the page doc-tests (see page_run below).


def test_include_of_missing_snippet(pristine, tmp_path, page_run):
    root = project_copy(pristine, tmp_path / "p")
    text = post(VALID_FRONT, '```python\n--8<-- "no_such_module.py"\n```')
    rel = plant(root, "docs/blog/posts/2030-01-01-planted.md", text)
    build_fails_naming(root, tmp_path, f"{rel}:{line_of(text, '--8<--')}:", f"{rel}::page")
    page_run.fails_naming("missing-include.md")


def test_include_escaping_snippets(pristine, tmp_path, page_run):
    root = project_copy(pristine, tmp_path / "p")
    text = post(VALID_FRONT, '```python\n--8<-- "../mkdocs.yml"\n```')
    rel = plant(root, "docs/blog/posts/2030-01-01-planted.md", text)
    line = build_fails_naming(root, tmp_path, f"{rel}:{line_of(text, '--8<--')}:", f"{rel}::page")
    assert "../mkdocs.yml" in line
    page_run.fails_naming("escaping-include.md")


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


def test_block_that_raises(page_run):
    page_run.fails_naming("raises.md")
    assert "planted" in page_run.output


def test_mismatched_expected_output(page_run):
    page_run.fails_naming("mismatch.md")


# --------------------------------------------------------------------------
# Nothing broken is published: `python -m journal_tools.commands.build` (make build)
# with a planted fault leaves the previous site/ as it was, byte for byte.
# (tests/journal/test_site_build.py checks the same with a config that cannot load;
# this one is the real project with a bad entry.)


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
