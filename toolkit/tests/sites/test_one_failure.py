"""One authoring mistake, one failed test whose report starts with `docs/...:N:`: every
page-level mistake planted in a page of its own in one copy of the fixture journal, next to
correct pages, and run in ONE pytest session (fixture `catalogue`).

Each mistake's test checks that exactly its page's test failed, at its line; the baseline checks
that everything else passed. The mistakes the build lets through are planted again in a copy that
builds, run with the downloads check (`with_downloads`, `downloads_alone`): still one failure each.
Build-level faults and a broken BibTeX file are in test_bad_inputs.py.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.testing.site import once_per_session

from fixture_journal import fixture_project

pytestmark = pytest.mark.slow  # one pytest session over every planted page (once per test session)

CORRECT = {"entry": "docs/blog/posts/2025-07-28-planted-entry.md", "notebook": "docs/notebooks/planted_notebook.py"}
ENTRY, NOTEBOOK = "entry", "notebook"  # the correct page a mistake is made in
TARGET = "docs/planted-target.md"
SNIPPET = "snippets/planted_snippet.py"
BIB = "docs/references.bib"  # the citations' BibTeX file in mkdocs.yml; the planted entry is appended
BIB_ENTRY = "\n@misc{planted2025,\n  author = {Planted Author},\n  title = {Planted Source},\n  year = {2025},\n}\n"

ENTRY_TEXT = """\
---
date: 2025-07-28
categories:
  - {category}
---

# Planted entry

Planted by toolkit/tests/sites/test_one_failure.py, and copied once per mistake: weights
$w_{{ij}}$ and [a page it links to](../../planted-target.md).

<!-- more -->

$$s = \\frac{{1}}{{2}}$$ {{#eq-half}}

As the planted source says [@planted2025, sec. 1]. By @eq-half, s is a half, as [@eq-one](../../planted-target.md) is one.

```python
--8<-- "planted_snippet.py:double"

import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(double(x))
```

<!--pytest-codeblocks:expected-output-->
```text
tensor([[2., 4.],
        [6., 8.]])
```

<!-- journal:expected-math -->

$$
2x = \\begin{{bmatrix}}
2 & 4 \\\\
6 & 8
\\end{{bmatrix}}
$$

Its last number is [8]{{= int(double(x)[1, 1])}}.
"""

NOTEBOOK_TEXT = "# %% [markdown]\n# # Planted notebook\n#\n# A sum $s$ of three numbers.\n\n# %%\ntotal = sum([1, 2, 3])\nprint(total)\n"

FILES = {
    TARGET: "# Planted target\n\nThe page the planted entry links to.\n\n$$t = 1$$ {#eq-one}\n",
    SNIPPET: '"""Planted by toolkit/tests/sites/test_one_failure.py."""\n\n\n# --8<-- [start:double]\ndef double(x):\n    return 2 * x\n'
             "# --8<-- [end:double]\n",
}


@dataclass
class Mistake:
    name: str
    path: str  # ENTRY or NOTEBOOK: the correct page it is made in
    old: str  # replaced once by new in a copy of that page
    new: str
    line_of: str  # the reported line: the first planted line holding this text (or "line N")
    says: tuple[str, ...] = ()  # also on the report's first line
    below: int = 0  # the reported line is this many lines below that one

    def expected_line(self, planted: str) -> int:
        if self.line_of.startswith("line "):
            return int(self.line_of[5:])
        return planted[: planted.index(self.line_of)].count("\n") + 1 + self.below

    @property
    def page(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "_", self.name.lower()).strip("_")
        correct = Path(CORRECT[self.path])
        name = f"{correct.stem}_{slug}" if self.path == NOTEBOOK else f"{correct.stem}-{slug.replace('_', '-')}"
        return (correct.parent / (name + correct.suffix)).as_posix()


MISTAKES = [
    Mistake("no date", ENTRY, "date: 2025-07-28\n", "", "line 1", ("post has no date",)),
    Mistake("impossible date", ENTRY, "date: 2025-07-28", "date: 2025-02-30", "date: 2025-02-30", ("not a real date",)),
    Mistake("unknown category", ENTRY, "categories:\n  - ", "categories:\n  - Not A Category\n  - ", "  - Not A Category",
            ("categories_allowed",)),
    Mistake("unknown author", ENTRY, "categories:\n  - ", "authors:\n  - nobody\ncategories:\n  - ", "authors:",
            ("author 'nobody' is not in docs/blog/.authors.yml, which has: author",)),
    # named just after the opening paragraph, where the separator goes
    Mistake("no excerpt separator", ENTRY, "<!-- more -->\n", "", "$w_{ij}$ and [a page", ("<!-- more -->",), below=1),
    Mistake("bad TeX", ENTRY, "$$s = \\frac{1}{2}$$", "$$s = \\frac{1}{2$$", "$$s = ", ("bad TeX", "Expected closing token")),
    Mistake("bad TeX in the excerpt", ENTRY, "$w_{ij}$", "$w_{ij$", "$w_{ij$", ("bad TeX", "Expected closing token")),
    Mistake("missing snippet", ENTRY, '"planted_snippet.py:double"', '"planted_snipet.py:double"', "--8<--",
            ("could not be found", "did you mean 'planted_snippet.py'?")),
    Mistake("missing section", ENTRY, '"planted_snippet.py:double"', '"planted_snippet.py:triple"', "--8<--",
            ("could not be located", "has the sections: double")),
    Mistake("include escaping snippets/", ENTRY, '"planted_snippet.py:double"', '"../mkdocs.yml"', "--8<--", ("is outside",)),
    Mistake("block that raises", ENTRY, "print(double(x))\n", "print(double(x))\nraise ValueError('planted')\n",
            "raise ValueError", ("ValueError: planted",)),
    Mistake("NameError with a suggestion", ENTRY, "print(double(x))", "print(dobule(x))", "print(dobule(x))",
            ("NameError", "Did you mean: 'double'?")),
    # named at the line of the output that differs, inside the fence
    Mistake("wrong expected output", ENTRY, "[6., 8.]])", "[6., 9.]])", "[6., 9.]])", ("expected output differs", "make update-outputs")),
    Mistake("wrong matrix digit", ENTRY, "6 & 8", "6 & 9", "6 & 9", ("number 4 of the matrix is 9", "make update-outputs")),
    # a row the printed 2x2 tensor does not have: named at the matrix's first row, both shapes said
    Mistake("matrix of another shape", ENTRY, "6 & 8\n", "6 & 8 \\\\\n10 & 12\n", "2 & 4",
            ("the matrix is 3x2 but the tensor the block at line", "printed is 2x2")),
    Mistake("unknown citation key", ENTRY, "[@planted2025, sec. 1]", "[@planted2052, sec. 1]", "[@planted2052",
            ("unknown citation key 'planted2052'", "did you mean 'planted2025'?")),
    Mistake("unknown label", ENTRY, "By @eq-half,", "By @eq-hlf,", "By @eq-hlf", ("unknown label 'eq-hlf'", "did you mean 'eq-half'?")),
    Mistake("duplicated label", ENTRY, "\\end{bmatrix}\n$$\n", "\\end{bmatrix}\n$$ {#eq-half}\n", "\\end{bmatrix}",
            ("label 'eq-half' is given twice",), below=1),
    Mistake("reference to a page that does not exist", ENTRY, "(../../planted-target.md) is one", "(../../planted-targt.md) is one",
            "[@eq-one](../../planted-targt.md)", ("which is no page of the journal",)),
    Mistake("undeclared series", ENTRY, "date: 2025-07-28\n", "date: 2025-07-28\nseries: no-such-series\npart: 1\n",
            "series: no-such", ("series 'no-such-series' is not declared in docs/blog/.series.yml",)),
    # the fixture entry (an earlier path) is part 1 of weights-by-hand: the planted page, later, fails
    Mistake("two parts with one number", ENTRY, "date: 2025-07-28\n", "date: 2025-07-28\nseries: weights-by-hand\npart: 1\n",
            "part: 1", ("part 1 of series 'weights-by-hand' is also docs/blog/posts/2025-07-27-fixture-entry.md",)),
    Mistake("notebook part of an undeclared series", NOTEBOOK, "# %% [markdown]\n# # Planted notebook",
            "# ---\n# jupyter:\n#   series: no-such-series\n#   part: 1\n# ---\n\n# %% [markdown]\n# # Planted notebook",
            "#   series:", ("series 'no-such-series' is not declared",)),
    Mistake("wrong number in the text", ENTRY, "[8]{= int", "[9]{= int", "[9]{= int",
            ("the number written is 9 but `int(double(x)[1, 1])` gives 8", "make update-outputs")),
    Mistake("number in the text that raises", ENTRY, "{= int(double(x)", "{= int(dobule(x)", "{= int(dobule",
            ("NameError: name 'dobule' is not defined",)),
    Mistake("notebook cell error", NOTEBOOK, "print(total)", "print(totl)", "print(totl)", ("NameError", "Did you mean: 'total'?")),
    # the correct entry's date and slug: the site would keep one of the two (named at the copy, after it by file name)
    Mistake("duplicate address", ENTRY, "categories:\n", "slug: planted-entry\ncategories:\n", "slug: planted-entry",
            ("this entry's address blog/2025/07/28/planted-entry/ is also docs/blog/posts/2025-07-28-planted-entry.md's",)),
]



# The mistakes a build does not stop at: each is a published entry whose downloads run too.
IN_DOWNLOADS = ("block that raises", "wrong expected output", "wrong matrix digit", "NameError with a suggestion")
DOWNLOADS_TEST = "mkdocs.yml::downloads::test_downloads_print_what_the_page_shows"


def plant_pages(root: Path, mistakes: list[Mistake] = MISTAKES) -> dict[str, str]:
    """The correct pages, and one page per mistake; {mistake name: its planted text}."""
    settings = mkdocs_config.load(root / "mkdocs.yml")
    category = settings.blog.categories_allowed[0] if settings.blog and settings.blog.categories_allowed else "Notes"
    correct = {ENTRY: ENTRY_TEXT.format(category=category), NOTEBOOK: NOTEBOOK_TEXT}
    pages = {CORRECT[ENTRY]: correct[ENTRY], CORRECT[NOTEBOOK]: correct[NOTEBOOK], **FILES}
    planted = {}
    for mistake in mistakes:
        assert mistake.old in correct[mistake.path], f"{mistake.old!r} not in the correct {mistake.path}"
        text = correct[mistake.path].replace(mistake.old, mistake.new, 1)
        # each planted entry a title, so a slug, of its own: one date and slug is one page of the site
        text = text.replace("# Planted entry\n", f"# Planted entry: {mistake.name}\n", 1)
        planted[mistake.name] = pages[mistake.page] = text
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    notebooks = [CORRECT[NOTEBOOK], *(m.page for m in mistakes if m.path == NOTEBOOK)]
    assert all(settings.is_notebook(root / nb) for nb in notebooks), f"{notebooks}: not all among mkdocs-jupyter's include patterns"
    assert settings.bibliography == (root / BIB).resolve(), f"{BIB} is not the bibliography of mkdocs.yml"
    with (root / BIB).open("a", encoding="utf-8") as bib:
        bib.write(BIB_ENTRY)
    return planted


class Reports:
    """Collects every report of the inner session: (node id, phase, outcome, first line of the failure)."""

    def __init__(self):
        self.seen: list[dict] = []

    def pytest_runtest_logreport(self, report):
        first = report.longreprtext.strip().split("\n", 1)[0] if report.failed else ""
        self.seen.append({"id": report.nodeid, "when": report.when, "outcome": report.outcome, "first": first})

    def pytest_collectreport(self, report):
        if report.failed:
            self.seen.append({"id": report.nodeid, "when": "collect", "outcome": "error", "first": report.longreprtext[:2000]})


def run_in_process(root: Path, paths: tuple[str, ...] = ("docs",), basetemp: Path | None = None) -> tuple[int, list[dict]]:
    """``pytest docs`` (or ``paths``) in ``root``, in this process (no second import of PyTorch).

    Not pytester, whose fixture is per test: one run serves every mistake's test. What the inner
    session changes (cwd, sys.path, its conftest and test modules, FRESH) is put back; ``basetemp``
    keeps it off pytest's numbered folders, which it would prune."""
    cwd, path, fresh = os.getcwd(), list(sys.path), os.environ.get("FRESH")
    # The inner conftest.py and test modules are imported under these names; this session's own are kept aside.
    aside = {name: sys.modules.pop(name) for name in ("conftest", "test_downloads") if name in sys.modules}
    reports = Reports()
    os.chdir(root)
    os.environ["FRESH"] = "1"  # no check reused from records of other runs
    try:
        code = pytest.main([*paths, "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "--color=no",
                            *(["--basetemp", str(basetemp)] if basetemp else []),
                            "--rootdir", str(root), "-c", str(root / "pyproject.toml")], plugins=[reports])
    finally:
        os.chdir(cwd)
        sys.path[:] = path
        if fresh is None:
            os.environ.pop("FRESH", None)
        else:
            os.environ["FRESH"] = fresh
        for name in ("conftest", "test_downloads"):
            sys.modules.pop(name, None)
        sys.modules.update(aside)
    return int(code), reports.seen


@dataclass
class Catalogue:
    """The planted copy (``project``), each mistake's planted text, the inner session's reports."""

    project: Path
    planted: dict[str, str]
    exit_code: int
    reports: list[dict]

    def failures(self, page: str | None = None) -> list[dict]:
        return [r for r in self.reports if r["outcome"] in ("failed", "error")
                and (page is None or r["id"].split("::", 1)[0] == page)]


@pytest.fixture(scope="session")
def catalogue(tmp_path_factory) -> Catalogue:
    """Every planted page run in one session, once per test session (under pytest-xdist
    the first worker runs it, the others wait on a lock and read its record)."""
    def run(shared: Path) -> dict:
        root = fixture_project(shared / "project")
        planted = plant_pages(root)
        code, reports = run_in_process(root)
        return {"planted": planted, "exit_code": code, "reports": reports}

    shared, record = once_per_session(tmp_path_factory, "one-failure", run)
    return Catalogue(shared / "project", record["planted"], record["exit_code"], record["reports"])


def test_the_planted_pages_pass_as_written(catalogue):
    """The baseline: every mistake's page ran, and every other page passed."""
    ran = {r["id"].split("::", 1)[0] for r in catalogue.reports if r["when"] == "call"}
    assert set(CORRECT.values()) <= ran and {m.page for m in MISTAKES} <= ran, f"pages not run: {ran}"
    assert len(ran) > len(MISTAKES) + 3, ran  # the fixture journal's own pages ran too
    mistake_pages = {m.page for m in MISTAKES}
    stray = [f"{r['id']} ({r['when']}): {r['first']}" for r in catalogue.failures() if r["id"].split("::", 1)[0] not in mistake_pages]
    assert not stray, "failed without a planted mistake:\n" + "\n".join(stray)
    assert catalogue.exit_code == 1, f"pytest exit {catalogue.exit_code} (1: some tests failed, as planted)"


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.name.replace(" ", "-"))
def test_one_mistake_is_one_failure(catalogue, mistake):
    failed = catalogue.failures(mistake.page)
    print(f"\n[{mistake.name}] " + "\n  ".join(f"{r['id']}: {r['first']}" for r in failed))
    assert len(failed) == 1, f"{len(failed)} failed tests for one mistake ({mistake.name}): {failed}"
    (report,) = failed
    where = f"{mistake.page}:{mistake.expected_line(catalogue.planted[mistake.name])}: "
    assert report["first"].startswith(where), f"{report['id']}: the report starts {report['first']!r}, not with {where!r}"
    for needle in mistake.says:
        assert needle in report["first"], f"{needle!r} not on the first line: {report['first']!r}"


# ---------------------------------------------------------------------------
# The same mistakes with the downloads check in the run: still one failure each


def _downloads_run(tmp_path_factory, name: str, paths: tuple[str, ...], keyword: str | None = None) -> Catalogue:
    mistakes = [m for m in MISTAKES if m.name in IN_DOWNLOADS]

    def run(shared: Path) -> dict:
        root = fixture_project(shared / "project")
        planted = plant_pages(root, mistakes)
        code, reports = run_in_process(root, (*paths, *(["-k", keyword] if keyword else [])), shared / "inner-tmp")
        return {"planted": planted, "exit_code": code, "reports": reports}

    shared, record = once_per_session(tmp_path_factory, name, run)
    return Catalogue(shared / "project", record["planted"], record["exit_code"], record["reports"])


def _entry(mistake: Mistake) -> str:
    return Path(mistake.page).name


@pytest.fixture(scope="session")
def with_downloads(tmp_path_factory) -> Catalogue:
    """The build-passing mistakes, their page tests and every entry's downloads test in one session."""
    return _downloads_run(tmp_path_factory, "one-failure-downloads", ("docs", DOWNLOADS_TEST))


@pytest.fixture(scope="session")
def downloads_alone(tmp_path_factory) -> Catalogue:
    """The same pages, only the mistakes' downloads tests: no page test in the run."""
    keyword = " or ".join(_entry(m)[:-3] for m in MISTAKES if m.name in IN_DOWNLOADS)
    return _downloads_run(tmp_path_factory, "one-failure-downloads-alone", (DOWNLOADS_TEST,), keyword)


def _downloads_reports(catalogue: Catalogue, entry: str) -> list[dict]:
    """The reports of entry ``entry``'s downloads test: its call, and a setup or teardown that did not pass."""
    return [r for r in catalogue.reports
            if r["id"] == f"{DOWNLOADS_TEST}[{entry}]" and (r["when"] == "call" or r["outcome"] != "passed")]


def test_the_planted_entries_downloads_pass_as_written(with_downloads):
    """The baseline: the correct entries' downloads tests passed, nothing outside the mistakes failed."""
    for entry in (Path(CORRECT[ENTRY]).name, "2025-07-27-fixture-entry.md"):
        ran = _downloads_reports(with_downloads, entry)
        assert [r["outcome"] for r in ran] == ["passed"], f"{entry}: {ran}"
    pages = {m.page for m in MISTAKES if m.name in IN_DOWNLOADS}
    stray = [f"{r['id']} ({r['when']}): {r['first']}" for r in with_downloads.failures()
             if r["id"].split("::", 1)[0] not in pages]
    assert not stray, "failed without a planted mistake:\n" + "\n".join(stray)


@pytest.mark.parametrize("mistake", [m for m in MISTAKES if m.name in IN_DOWNLOADS], ids=lambda m: m.name.replace(" ", "-"))
def test_one_mistake_is_one_failure_with_the_downloads_check(with_downloads, mistake):
    failed = with_downloads.failures(mistake.page) + [r for r in _downloads_reports(with_downloads, _entry(mistake))
                                                      if r["outcome"] == "failed"]
    print(f"\n[{mistake.name}] " + "\n  ".join(f"{r['id']}: {r['first']}" for r in failed))
    assert len(failed) == 1, f"{len(failed)} failed tests for one mistake ({mistake.name}): {failed}"
    (report,) = failed
    where = f"{mistake.page}:{mistake.expected_line(with_downloads.planted[mistake.name])}: "
    assert report["first"].startswith(where), f"{report['id']}: the report starts {report['first']!r}, not with {where!r}"
    skipped = [r for r in _downloads_reports(with_downloads, _entry(mistake)) if r["outcome"] == "skipped"]
    assert len(skipped) == 1, f"the downloads test of {_entry(mistake)} did not skip: {_downloads_reports(with_downloads, _entry(mistake))}"


@pytest.mark.parametrize("mistake", [m for m in MISTAKES if m.name in IN_DOWNLOADS], ids=lambda m: m.name.replace(" ", "-"))
def test_without_the_page_test_the_downloads_test_fails_with_its_first_line(downloads_alone, mistake):
    failed = [r for r in _downloads_reports(downloads_alone, _entry(mistake)) if r["outcome"] == "failed"]
    print(f"\n[{mistake.name}] " + "\n  ".join(f"{r['id']}: {r['first']}" for r in failed))
    assert len(failed) == 1, f"{mistake.name}: the downloads test alone did not fail once: {downloads_alone.reports}"
    where = f"{mistake.page}:{mistake.expected_line(downloads_alone.planted[mistake.name])}: "
    assert failed[0]["first"].startswith(where), f"the report starts {failed[0]['first']!r}, not with {where!r}"
