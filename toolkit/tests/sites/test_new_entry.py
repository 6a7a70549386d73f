"""`make new TITLE="..."` (commands/new_entry.py), in temporary copies of the fixture journal."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pytest_codeblocks import extract_from_buffer

import journal_tools.testing.site
from journal_tools.commands import new_entry
from journal_tools.commands.new_entry import EntryError, create_entry
from journal_tools.compat import mkdocs_config
from journal_tools.core.page.frontmatter import FrontMatterError
from journal_tools.core.record.validate import PLACEHOLDER, check_post
from journal_tools.testing.site import heading_text

from fixture_journal import FIXTURE, fixture_project, junit_outcomes, without_notebook_execution

REPO = Path(__file__).resolve().parents[3]
DATE = dt.date(2025, 7, 27)
TITLE = "Causal attention, by hand"
SLUG = "causal-attention-by-hand"
MODULE = "causal_attention_by_hand"
CATEGORIES = ["Attention", "Foundations", "Study notes"]  # categories_allowed in mkdocs.yml


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return fixture_project(tmp_path / "journal")


def paths(root: Path, date: dt.date = DATE) -> tuple[Path, Path, Path]:
    return (
        root / "docs" / "blog" / "posts" / f"{date.isoformat()}-{SLUG}.md",
        root / "snippets" / f"{MODULE}.py",
        root / "tests" / "test_snippets" / f"test_{MODULE}.py",
    )


def front_matter(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    head, _, _ = text[4:].partition("\n---\n")
    return yaml.safe_load(head)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "journal_tools.commands.new_entry", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


# --- names and options ---------------------------------------------------------


@pytest.mark.parametrize(
    "title, slug",
    [
        ("Causal attention, by hand", "causal-attention-by-hand"),
        ("  Q, K & V:  take 2!  ", "q-k-v-take-2"),
        ("Über Softmax — naïve", "uber-softmax-naive"),
        ("GPT-2's 124M parameters", "gpt-2-s-124m-parameters"),
    ],
)
def test_slugify(title, slug):
    assert new_entry.slugify(title) == slug


def test_long_titles_are_cut_at_a_word_boundary():
    slug = new_entry.slugify("attention " * 20)
    assert len(slug) <= new_entry.MAX_SLUG_LENGTH
    assert not slug.endswith("-") and slug.endswith("attention")


@pytest.mark.parametrize("title", ["", "   ", "!!! ???", "注意力"])
def test_a_title_without_letters_is_a_clear_error(project, title):
    with pytest.raises(EntryError, match="title"):
        create_entry(project, title, DATE)
    assert not (project / "tests").exists()


def test_module_names_are_importable_and_do_not_hide_libraries(tmp_path):
    assert new_entry.module_name("causal-attention", tmp_path) == "causal_attention"
    assert new_entry.module_name("2-layer-norm", tmp_path) == "entry_2_layer_norm"
    assert new_entry.module_name("torch", tmp_path) == "torch_entry"  # would shadow torch
    assert new_entry.module_name("math", tmp_path) == "math_entry"  # stdlib
    assert new_entry.module_name("class", tmp_path) == "class_entry"  # keyword


def test_category_defaults_to_the_first_allowed_one(project):
    layout = new_entry.read_layout(project)
    assert layout.categories_allowed == CATEGORIES
    assert new_entry.choose_category(layout, None) == CATEGORIES[0]
    assert new_entry.choose_category(layout, "Study notes") == "Study notes"


AUTHORS_FILE = Path("docs") / "blog" / ".authors.yml"  # the fixture blog's authors_file


def test_the_author_is_the_authors_file_s_first_unless_another_of_it_is_asked_for(project):
    (project / AUTHORS_FILE).write_text("authors:\n  first:\n    name: F\n    description: d\n    avatar: a.svg\n"
                                        "  second:\n    name: S\n    description: d\n    avatar: a.svg\n", encoding="utf-8")
    page, _, _ = create_entry(project, TITLE, DATE)
    assert front_matter(page)["authors"] == ["first"]
    page, _, _ = create_entry(project, "Another entry", DATE, author="second")
    assert front_matter(page)["authors"] == ["second"]


@pytest.mark.parametrize(("authors", "asked", "says"), [
    ("keep", {"category": "Transformers"}, "categories_allowed.*Attention, Foundations"),
    (None, {}, re.escape("docs/blog/.authors.yml does not exist: create it with one under authors:")),
    ("authors: {}\n", {}, re.escape("docs/blog/.authors.yml names no author: add one under authors:")),
    ("keep", {"author": "nobody"}, re.escape("author 'nobody' is not in docs/blog/.authors.yml; it has: author")),
], ids=["unknown category", "no authors file", "no author", "unknown author"])
def test_a_bad_category_or_author_is_a_clear_error_and_writes_nothing(project, authors, asked, says):
    if authors is None:
        (project / AUTHORS_FILE).unlink()
    elif authors != "keep":
        (project / AUTHORS_FILE).write_text(authors, encoding="utf-8")
    before = snapshot(project)
    with pytest.raises(EntryError, match=says):
        create_entry(project, TITLE, DATE, **asked)
    assert snapshot(project) == before


# --- the files it writes ----------------------------------------------------------


def test_creates_entry_snippet_and_test_with_valid_front_matter(project):
    created = create_entry(project, TITLE, DATE, category="Foundations")
    assert created == list(paths(project))
    page, snippet, test = created

    meta = front_matter(page)
    assert meta["date"] == DATE  # YAML reads an unquoted ISO date as a date
    assert meta["categories"] == ["Foundations"]
    assert meta["authors"] == ["author"]
    assert meta["tags"] == []  # for the author to fill: no guesses from title words
    assert meta["draft"] is True  # Material's draft: served by make serve, left out of make build
    assert meta["doctest"] == "page"

    text = page.read_text(encoding="utf-8")
    assert f"\n# {TITLE}\n" in text
    assert text.index(PLACEHOLDER) < text.index("<!-- more -->") < text.index("## Notes")
    assert f'```python\n--8<-- "{MODULE}.py:softmax"\n```' in text
    assert f'!!! note "What was tried, what the numbers show"\n    {PLACEHOLDER} what you tried' in text

    source = snippet.read_text(encoding="utf-8")
    for name in ("softmax", "demo"):
        assert f"# --8<-- [start:{name}]" in source and f"# --8<-- [end:{name}]" in source
    assert f"from {MODULE} import softmax" in test.read_text(encoding="utf-8")


def publish(page: Path) -> None:
    """What the author does before publishing: the draft line gone, every placeholder replaced."""
    text = page.read_text(encoding="utf-8")
    assert "\ndraft: true\n" in text and PLACEHOLDER in text
    page.write_text(text.replace("\ndraft: true\n", "\n", 1).replace(PLACEHOLDER, "Written:"), encoding="utf-8")


def test_a_draft_may_keep_the_placeholders_a_published_entry_may_not(project):
    page = create_entry(project, TITLE, DATE)[0]
    settings = mkdocs_config.load(project / "mkdocs.yml")
    rel = settings.rel(page)
    text = page.read_text(encoding="utf-8")
    check_post(text, rel, settings)
    published = text.replace("\ndraft: true\n", "\n", 1)
    lines = [n for n, line in enumerate(published.split("\n"), 1) if PLACEHOLDER in line]
    assert len(lines) == 3  # the excerpt, the code section, the notes
    with pytest.raises(FrontMatterError) as info:
        check_post(published, rel, settings)
    assert str(info.value).startswith(f"{rel}:{lines[0]}: placeholder text of make new is still here "
                                      f"(also at lines {lines[1]}, {lines[2]})"), info.value
    check_post(published.replace(PLACEHOLDER, "Written:"), rel, settings)
    check_post(text.replace("draft: true", "draft: false").replace(PLACEHOLDER, "Written:"), rel, settings)
    with pytest.raises(FrontMatterError, match=rf"^{re.escape(rel)}:{lines[0] + 1}: placeholder"):
        check_post(text.replace("draft: true", "draft: false"), rel, settings)  # the line kept: one lower


def test_cli_prints_the_paths_and_uses_todays_date(project):
    result = run_cli(TITLE, cwd=project)
    assert result.returncode == 0, result.stderr
    today = dt.date.today()
    for path in paths(project, today):
        assert path.is_file()
        assert str(path.relative_to(project)) in result.stdout
    assert front_matter(paths(project, today)[0])["date"] == today


def test_cli_empty_title_exits_non_zero(project):
    # `make new` without TITLE passes "".
    result = run_cli("", cwd=project)
    assert result.returncode != 0
    assert "title is required" in result.stderr


def test_a_second_identical_call_refuses_and_changes_nothing(project):
    assert run_cli(TITLE, "--date", DATE.isoformat(), cwd=project).returncode == 0
    before = snapshot(project)
    again = run_cli(TITLE, "--date", DATE.isoformat(), cwd=project)
    assert again.returncode != 0
    assert "refusing to overwrite" in again.stderr
    assert f"docs/blog/posts/{DATE.isoformat()}-{SLUG}.md" in again.stderr
    assert snapshot(project) == before  # byte-identical, nothing added


@pytest.mark.parametrize("which", [0, 1, 2], ids=["entry", "snippet", "test"])
def test_any_one_existing_file_blocks_all_three(project, which):
    existing = paths(project)[which]
    existing.parent.mkdir(parents=True, exist_ok=True)
    existing.write_text("# someone's work\n", encoding="utf-8")
    before = snapshot(project)
    with pytest.raises(EntryError, match=str(existing.relative_to(project))):
        create_entry(project, TITLE, DATE)
    assert snapshot(project) == before


def test_expected_output_is_what_the_included_code_prints(project):
    page = create_entry(project, TITLE, DATE)[0]
    pre = mkdocs_config.load(project / "mkdocs.yml").snippet_preprocessor()
    expanded = "\n".join(pre.run(page.read_text().splitlines()))
    assert "--8<--" not in expanded

    blocks = [b for b in extract_from_buffer(io.StringIO(expanded)) if b.syntax == "python"]
    assert len(blocks) == 1  # the function block, with the demo as its continuation
    block = blocks[0]
    assert "def softmax" in block.code and "print(" in block.code
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(block.code, {"__name__": "__main__"})
    assert block.expected_output == out.getvalue() == "[0.09, 0.2447, 0.6652]\n"


# --- the site builds with the new entry -------------------------------------------


def mkdocs_build(root: Path) -> subprocess.CompletedProcess:
    return journal_tools.testing.site.mkdocs_build(root, root / "site")


@pytest.mark.slow
def test_site_builds_strict_with_the_new_entry(project, tmp_path):
    page = create_entry(project, TITLE, DATE)[0]
    slug_page = project / "site" / "blog" / DATE.strftime("%Y/%m/%d") / SLUG / "index.html"
    draft = mkdocs_build(project)
    assert draft.returncode == 0, draft.stdout
    assert not slug_page.exists(), "a draft is left out of mkdocs build (Material's draft: true)"
    publish(page)
    result = mkdocs_build(project)
    if result.returncode != 0:
        # Say whether the entry breaks the build or the fixture journal does not build at all.
        baseline = tmp_path / "baseline"
        shutil.copytree(project, baseline, ignore=shutil.ignore_patterns("site"))
        for p in paths(baseline):
            p.unlink()
        alone = mkdocs_build(baseline).returncode == 0
        pytest.fail(("the build fails only with the new entry" if alone else
                     "the fixture journal does not build, with or without the new entry") + ":\n" + result.stdout)
    assert slug_page.is_file(), sorted(p.name for p in (project / "site" / "blog").rglob("*"))
    html = slug_page.read_text(encoding="utf-8")
    assert "exps" in html and "0.2447" in html  # the include was expanded
    assert "--8&lt;--" not in html and "--8<--" not in html


# --- any title: the generated files pass lint, build and run -------------------------
# (their snippet tests and page tests in ONE nested pytest run, fixture awkward_run)

AWKWARD_TITLES = {
    "plain": TITLE,
    "planted": "Planted entry for checks",
    "unicode": "Über Softmax — naïve 注意力 🚀",
    "digits-first": "2 heads beat 1: multi-head attention",
    "punctuation": 'Q, K & V: "take 2" — C# {sets} *stars* $5 or $x$ \\(no math\\) <!-- more --> [a](b.md) `code`!',
    "very-long": "A very long title about attention, " * 7 + "the end",
}


def test_headings_render_as_the_title_itself():
    md = mkdocs_config.load(FIXTURE / "mkdocs.yml").markdown()
    for title in [*AWKWARD_TITLES.values(), "C#", "trailing \\", "attr {: .x}", "&amp; as typed", "$\\frac{1}{2$"]:
        html = md.reset().convert("# " + new_entry.markdown_text(title))
        assert "<math" not in html, (title, html)
        assert heading_text(html) == title, (title, html)


@pytest.fixture(scope="module")
def awkward(tmp_path_factory) -> tuple[Path, dict[str, list[Path]]]:
    root = without_notebook_execution(fixture_project(tmp_path_factory.mktemp("awkward") / "journal"))
    created = {name: create_entry(root, title, DATE) for name, title in AWKWARD_TITLES.items()}
    for files in created.values():
        publish(files[0])  # built and tested as published entries: a draft would not be built
    return root, created


@pytest.mark.slow
@pytest.mark.parametrize("name", AWKWARD_TITLES)
def test_generated_python_passes_lint(awkward, name):
    root, created = awkward
    ruff = Path(sys.executable).parent / "ruff"
    py = [str(p.relative_to(root)) for p in created[name] if p.suffix == ".py"]
    assert len(py) == 2
    result = subprocess.run([str(ruff), "check", "--no-cache", *py], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_generated_entries_build_with_their_titles(awkward):
    root, created = awkward
    result = mkdocs_build(root)
    assert result.returncode == 0, result.stdout
    headings = {heading_text(p.read_text(encoding="utf-8")) for p in (root / "site" / "blog").glob("2025/07/27/*/index.html")}
    missing = [title for title in AWKWARD_TITLES.values() if title not in headings]
    assert not missing, f"entries whose page does not show their title: {missing} (pages show {sorted(headings)})"


@pytest.fixture(scope="module")
def awkward_run(awkward, tmp_path_factory) -> dict:
    """Every generated entry's snippet and page tests in one pytest run, the plugin by entry point."""
    root, created = awkward
    targets = [str(p.relative_to(root)) for paths in created.values() for p in paths if p.suffix == ".md" or p.name.startswith("test_")]
    report = tmp_path_factory.mktemp("awkward-run") / "report.xml"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", f"--junitxml={report}", *targets],
        cwd=root, capture_output=True, text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))},
    )
    failed, errors, total = junit_outcomes(report) if report.is_file() else ([], [], 0)
    return {"output": result.stdout + result.stderr, "returncode": result.returncode, "failed": failed,
            "errors": errors, "total": total}


@pytest.mark.slow
def test_generated_snippet_tests_pass(awkward_run):
    run = awkward_run
    snippet_failures = [(name, line) for name, line in run["failed"] if "test_snippets" in name]
    assert not snippet_failures and not run["errors"], run["output"]
    assert "passed" in run["output"] and run["total"] >= 4 * len(AWKWARD_TITLES), run["output"]


@pytest.mark.slow
def test_generated_pages_pass_under_the_page_doctest_plugin(awkward_run):
    run = awkward_run
    page_failures = [(name, line) for name, line in run["failed"] if "test_snippets" not in name]
    assert not page_failures and not run["errors"], run["output"]
    n = len(AWKWARD_TITLES)
    assert f"executed {2 * n} of {2 * n} code blocks on {n} pages" in run["output"], run["output"]


@pytest.mark.slow
def test_make_new_passes_the_title_as_typed(project):
    """`make new TITLE=...`: neither make nor the shell reads $, quotes, backticks or backslashes in it."""
    title = AWKWARD_TITLES["punctuation"] + " it's `pwd` $(HOME) $$"
    make = shutil.which("make")
    assert make, "make is not installed (the two promised commands are make targets)"
    # -o setup: the .venv of this checkout is used as it is (BIN), never set up from a test.
    result = subprocess.run([make, "-f", str(REPO / "Makefile"), "-C", str(project), "-o", "setup",
                             f"BIN={Path(sys.executable).parent}", "new", f"TITLE={title}"],
                            capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL")})
    assert result.returncode == 0, result.stdout + result.stderr
    (page,) = (project / "docs" / "blog" / "posts").glob(f"{dt.date.today().isoformat()}-*.md")
    heading = next(line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("# "))
    md = mkdocs_config.load(project / "mkdocs.yml").markdown()
    assert heading_text(md.convert(heading)) == title, heading


def test_the_entry_shows_how_to_cite_with_a_key_of_the_journal(project):
    entry = create_entry(project, TITLE, DATE)[0]
    text = entry.read_text(encoding="utf-8")
    comment = text[text.index("<!-- To cite a source"):]
    comment = comment[: comment.index("-->")]
    assert "docs/references.bib" in comment
    example = re.search(r"\[@raschka2024, ch\. 3\]", comment)
    assert example, comment
    settings = mkdocs_config.load(project / "mkdocs.yml")
    html = settings.markdown().convert(text.replace("## Code", f"Cited {example[0]}.\n\n## Code", 1).split("---\n", 2)[2])
    assert 'href="#ref-raschka2024"' in html and 'id="ref-raschka2024"' in html
    assert settings.markdown().convert(text.split("---\n", 2)[2]).count("citation") == 0  # commented: cites nothing


def test_every_scaffold_line_fits_the_code_column_at_1280_px(project):
    """No block scrolls sideways at 1280 px (``CODE_COLUMN``, measured in Chromium), even with the longest title."""
    from journal_tools.core.code.parse import parse_page

    limit = new_entry.CODE_COLUMN
    created = create_entry(project, TITLE, DATE)
    long = [f"{path.name}:{n}: {len(line)} characters" for path in created
            for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if len(line) >= limit]
    title = "A title long enough to make a file name as long as make new lets it be, and longer"
    page = parse_page(create_entry(project, title, DATE)[0], mkdocs_config.load(project / "mkdocs.yml"))
    shown = [line for step in page.steps for part in step.parts for line in part.code.split("\n")]
    shown += [line for step in page.steps for line in (step.expected_output or "").split("\n")]
    long += [f"{page.path} (a block): {line!r}" for line in shown if len(line) >= limit]
    assert len(shown) > 10 and not long, "scaffold lines as wide as the code column at 1280 px:\n" + "\n".join(long)


def test_the_scaffold_asks_for_technical_notes_not_feelings(project):
    text = create_entry(project, TITLE, DATE)[0].read_text(encoding="utf-8")
    assert "what you tried" in text and "numbers show" in text
    assert not re.search(r"(?i)surpris|feel|reflection|enjoy", text), "a prompt invites personal prose"


def test_the_new_entry_gets_its_downloads(project):
    """A draft is checked like any entry by the test build, downloads included."""
    from journal_tools.mkdocs_plugin import downloads

    page, _, _ = create_entry(project, TITLE, DATE)
    made = downloads.make(page, mkdocs_config.load(project / "mkdocs.yml"), [])
    assert made.placed and made.script and made.notebook == downloads.notebook(made.script)


def test_series_makes_the_entry_the_next_part_and_checks_the_name(project):
    """SERIES=weights-by-hand: the fixture's series has parts 1 (its entry) and 2 (its notebook), so the new entry is part 3."""
    entry, _, _ = create_entry(project, TITLE, DATE, series_name="weights-by-hand")
    assert (front_matter(entry)["series"], front_matter(entry)["part"]) == ("weights-by-hand", 3)
    with pytest.raises(EntryError, match="series 'weight-by-hand' is not in docs/blog/.series.yml, which has: weights-by-hand"):
        create_entry(project, "Another entry", DATE, series_name="weight-by-hand")


def test_without_a_series_the_front_matter_shows_how_to_join_one(project):
    entry, _, _ = create_entry(project, TITLE, DATE)
    assert "series" not in front_matter(entry)
    assert "a part of a series of docs/blog/.series.yml\n(weights-by-hand), add series: NAME and part: N" in entry.read_text()
