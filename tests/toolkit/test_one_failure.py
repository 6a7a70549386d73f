"""One authoring mistake in docs/, one failed test, whose report starts with `file:line:`.

Each mistake of the catalogue below is planted alone in a copy of the fixture
journal (tests/toolkit/fixtures/journal: its own mkdocs.yml, docs/ and snippets/, with
the project's pyproject.toml, requirements.txt, journal_tools/ and tests/), and
pytest runs in that copy, in a subprocess:

    python -m pytest docs tests/journal/test_site_build.py -p no:randomly -p no:cacheprovider --junitxml=...

that is, every page doc-test of the copy's docs/ (pages and notebooks), the
one test that builds docs/ (test_site_build.py::test_docs_build) and the tests
of test_site_build.py that look at the built site (feeds, math, offline), as
representatives of every test taking the `built` fixture (browser, engines,
reproducibility skip through the same fixture, with the same reason); the one
check of the author's own stylesheet is left out (the fixture has a stand-in).
Running the whole suite per mistake would take about 15 minutes each; one run
here takes 10-40 s. Neither the author's docs/ nor their mkdocs.yml is read,
so no mistake of theirs can reach this catalogue: that is the one build of
docs/ (test_docs_build) and the page tests' business.

The mistakes are made in pages this test adds to the copy's docs/ (an entry,
a page it links to, a notebook), a snippet module and an entry appended to
the citations' BibTeX file (the planted entry cites it), written correctly
first. With the correct pages added, the same run must have no failure at all:
the baseline, run once per session, is a test of its own
(test_the_planted_pages_pass_as_written). Each mistake is checked against that
baseline: exactly one test fails that did not fail (or failed differently)
without the mistake, no new error, and the first line of its report starts
with `docs/...:N:` at the mistake's own line, with the hint where one helps.
So a broken baseline is one failure, and every mistake still checks what it
adds to it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from journal_site import ENV, ROOT, fixture_project, junit_outcomes, once_per_session, seed_caches

from journal_tools.readers.settings import Settings

RUN = ["docs", "tests/journal/test_site_build.py", "--deselect", "tests/journal/test_site_build.py::test_site_css_has_math_font_stack",
       "-p", "no:randomly", "-p", "no:cacheprovider", "-q", "--color=no"]

ENTRY = "docs/blog/posts/2025-07-28-planted-entry.md"
TARGET = "docs/planted-target.md"
NOTEBOOK = "docs/notebooks/planted_notebook.py"
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

Planted by tests/toolkit/test_one_failure.py, then broken one way at a time: weights
$w_{{ij}}$ and [a page it links to](../../planted-target.md).

<!-- more -->

$$s = \\frac{{1}}{{2}}$$

As the planted source says [@planted2025, sec. 1].

```python
--8<-- "planted_snippet.py:double"

import torch

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

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
"""

FILES = {
    TARGET: "# Planted target\n\nThe page the planted entry links to.\n",
    NOTEBOOK: "# %% [markdown]\n# # Planted notebook\n#\n# A sum $s$ of three numbers.\n\n# %%\ntotal = sum([1, 2, 3])\nprint(total)\n",
    SNIPPET: '"""Planted by tests/toolkit/test_one_failure.py."""\n\n\n# --8<-- [start:double]\ndef double(x):\n    return 2 * x\n'
             "# --8<-- [end:double]\n",
}


@dataclass
class Mistake:
    name: str
    path: str
    old: str  # replaced once by new in the planted file
    new: str
    line_of: str  # the reported line: the first planted line holding this text (or "line N")
    says: tuple[str, ...] = ()  # also on the report's first line
    below: int = 0  # the reported line is this many lines below that one

    def expected_line(self, planted: str) -> int:
        if self.line_of.startswith("line "):
            return int(self.line_of[5:])
        return planted[: planted.index(self.line_of)].count("\n") + 1 + self.below


MISTAKES = [
    Mistake("no date", ENTRY, "date: 2025-07-28\n", "", "line 1", ("post has no date",)),
    Mistake("impossible date", ENTRY, "date: 2025-07-28", "date: 2025-02-30", "date: 2025-02-30", ("not a real date",)),
    Mistake("unknown category", ENTRY, "categories:\n  - ", "categories:\n  - Not A Category\n  - ", "  - Not A Category",
            ("categories_allowed",)),
    # named just after the opening paragraph, where the separator goes
    Mistake("no excerpt separator", ENTRY, "<!-- more -->\n", "", "$w_{ij}$ and [a page", ("<!-- more -->",), below=1),
    Mistake("bad TeX", ENTRY, "$$s = \\frac{1}{2}$$", "$$s = \\frac{1}{2$$", "$$s = ", ("bad TeX", "at character")),
    Mistake("bad TeX in the excerpt", ENTRY, "$w_{ij}$", "$w_{ij$", "$w_{ij$", ("bad TeX", "at character")),
    Mistake("missing snippet", ENTRY, '"planted_snippet.py:double"', '"planted_snipet.py:double"', "--8<--",
            ("could not be found", "did you mean 'planted_snippet.py'?")),
    Mistake("missing section", ENTRY, '"planted_snippet.py:double"', '"planted_snippet.py:triple"', "--8<--",
            ("could not be located", "has the sections: double")),
    Mistake("include escaping snippets/", ENTRY, '"planted_snippet.py:double"', '"../mkdocs.yml"', "--8<--", ("is outside",)),
    Mistake("block that raises", ENTRY, "print(double(x))\n", "print(double(x))\nraise ValueError('planted')\n",
            "raise ValueError", ("ValueError: planted",)),
    Mistake("NameError with a suggestion", ENTRY, "print(double(x))", "print(dobule(x))", "print(dobule(x))",
            ("NameError", "Did you mean: 'double'?")),
    Mistake("wrong expected output", ENTRY, "[6., 8.]])", "[6., 9.]])", "```text", ("expected output differs", "make update-outputs")),
    Mistake("wrong matrix digit", ENTRY, "6 & 8", "6 & 9", "6 & 9", ("number 4 of the matrix is 9", "make update-outputs")),
    Mistake("broken link", ENTRY, "(../../planted-target.md)", "(../../planted-targets.md)", "planted-targets.md",
            ("contains a link '../../planted-targets.md'",)),
    Mistake("unknown citation key", ENTRY, "[@planted2025, sec. 1]", "[@planted2052, sec. 1]", "[@planted2052",
            ("unknown citation key 'planted2052'", "did you mean 'planted2025'?")),
    Mistake("BibTeX syntax error", BIB, "  title = {Planted Source},", "  title {Planted Source},", "  title {Planted",
            ("BibTeX syntax error", "'=' expected")),
    Mistake("notebook cell error", NOTEBOOK, "print(total)", "print(totl)", "print(totl)", ("NameError", "Did you mean: 'total'?")),
]


def plant_correct_pages(root: Path) -> None:
    settings = Settings.load(root / "mkdocs.yml")
    category = settings.blog.categories_allowed[0] if settings.blog and settings.blog.categories_allowed else "Notes"
    for rel, text in {ENTRY: ENTRY_TEXT.format(category=category), **FILES}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    assert settings.is_notebook(root / NOTEBOOK), f"{NOTEBOOK} is not among mkdocs-jupyter's include patterns"
    assert settings.bibliography == (root / BIB).resolve(), f"{BIB} is not the bibliography of mkdocs.yml"
    with (root / BIB).open("a", encoding="utf-8") as bib:
        bib.write(BIB_ENTRY)


def copy_of_project(dst: Path) -> Path:
    """The fixture journal (with the math font and the stored build caches), the tests, the correct pages."""
    fixture_project(dst)
    shutil.copytree(ROOT / "tests", dst / "tests", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache"))
    plant_correct_pages(dst)
    return dst


def run_pytest(root: Path, report: Path) -> str:
    env = {k: v for k, v in ENV.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    proc = subprocess.run([sys.executable, "-m", "pytest", *RUN, f"--junitxml={report}"], cwd=root, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.stdout


@dataclass
class Baseline:
    """The copy with the correct planted pages (``project``) and the outcomes of its run."""

    project: Path
    failed: list[tuple[str, str]]
    errors: list[str]
    total: int
    output: str


@pytest.fixture(scope="session")
def pristine(tmp_path_factory) -> Baseline:
    """The copy with the correct planted pages, and its baseline run: once per session
    (under pytest-xdist the first worker makes it, the other waits on a lock)."""
    def baseline_run(shared: Path) -> dict:
        root = copy_of_project(shared / "project")
        work = shared / "baseline-run"
        shutil.copytree(root, work)
        output = run_pytest(work, shared / "baseline.xml")
        failed, errors, total = junit_outcomes(shared / "baseline.xml")
        # What the baseline's build cached (the planted notebook): each case then executes
        # only what its mistake changed, like the author's own rebuild.
        seed_caches(root, work / ".cache" / "test-builds")
        return {"failed": failed, "errors": errors, "total": total, "output": output}

    shared, baseline = once_per_session(tmp_path_factory, "one-failure", baseline_run)
    return Baseline(shared / "project", [tuple(f) for f in baseline["failed"]], baseline["errors"],
                    baseline["total"], baseline["output"])


def test_the_planted_pages_pass_as_written(pristine):
    """The baseline: the fixture journal with the correct planted pages fails nothing."""
    assert pristine.total > 10, pristine.output  # the docs/ tests did run
    assert not pristine.errors, f"errors in {pristine.errors}:\n{pristine.output}"
    assert not pristine.failed, "failed without any planted mistake:\n" + "\n".join(
        f"{name}: {first}" for name, first in pristine.failed) + "\n\n" + pristine.output


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.name.replace(" ", "-"))
def test_one_mistake_is_one_failure(pristine, tmp_path, mistake):
    root = tmp_path / "project"
    shutil.copytree(pristine.project, root)
    page = root / mistake.path
    text = page.read_text(encoding="utf-8")
    assert mistake.old in text, f"{mistake.old!r} not in the planted {mistake.path}"
    planted = text.replace(mistake.old, mistake.new, 1)
    page.write_text(planted, encoding="utf-8")
    where = f"{mistake.path}:{mistake.expected_line(planted)}: "

    output = run_pytest(root, tmp_path / "report.xml")
    failed, errors, total = junit_outcomes(tmp_path / "report.xml")
    summary = output.strip().splitlines()[-1] if output.strip() else "(no output)"
    print(f"\n[{mistake.name}] {summary}\n  " + "\n  ".join(f"{n}: {first}" for n, first in failed))

    assert total > 10, output  # the docs/ tests did run
    new_errors = [e for e in errors if e not in pristine.errors]
    assert not new_errors, f"errors in {new_errors}:\n{output}"
    # What the mistake added to the baseline (nothing fails there, unless its own test says so).
    added = [f for f in failed if f not in pristine.failed]
    assert len(added) == 1, f"{len(added)} failed tests for one mistake ({mistake.name}):\n{output}"
    (name, first), = added
    assert first.startswith(where), f"{name}: the report starts {first!r}, not with {where!r}"
    for needle in mistake.says:
        assert needle in first, f"{needle!r} not on the first line: {first!r}"
    assert re.match(r"^docs/\S+:\d+: ", first)
