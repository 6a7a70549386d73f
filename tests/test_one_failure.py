"""One authoring mistake in docs/, one failed test, whose report starts with `file:line:`.

Each mistake of the catalogue below is planted alone in a copy of the whole
project (mkdocs.yml, pyproject.toml, requirements.txt, docs/, snippets/,
journal_tools/, tests/), and pytest runs in that copy, in a subprocess:

    python -m pytest docs tests/test_site_build.py -p no:randomly -p no:cacheprovider --junitxml=...

that is, every page doc-test of docs/ (pages and notebooks), the one test
that builds docs/ (test_site_build.py::test_docs_build) and the tests of
test_site_build.py that look at the built site (feeds, math, offline), as
representatives of every test taking the `built` fixture (browser, engines,
reproducibility skip through the same fixture, with the same reason). The
rest of the suite never reads docs/: it runs on tests/fixtures/journal or on
inline pages, so a mistake in docs/ cannot reach it. Running the whole suite
per mistake would take about 15 minutes each; one run here takes 10-40 s.

The mistakes are made in pages this test adds to the copy's docs/ (an entry,
a page it links to, a notebook) and a snippet module, written correctly
first: the author's own pages stay as they are, so editing them never breaks
this catalogue. With the correct pages added, the same run must have no
failure at all (the baseline, run once per session); if it does, docs/ already
fails on its own, its own test reports that, and every case here skips
saying so.

For each mistake: exactly one failed test, no errors, and the first line of its
report starts with `docs/...:N:` at the mistake's own line, with the hint where
one helps.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from journal_site import CACHE_STORE, ENV, ROOT, junit_outcomes, once_per_session, seed_caches

from journal_tools.settings import Settings

COPIED = ("mkdocs.yml", "pyproject.toml", "requirements.txt", "docs", "snippets", "journal_tools", "tests")
RUN = ["docs", "tests/test_site_build.py", "-p", "no:randomly", "-p", "no:cacheprovider", "-q", "--color=no"]

ENTRY = "docs/blog/posts/2025-07-28-planted-entry.md"
TARGET = "docs/planted-target.md"
NOTEBOOK = "docs/notebooks/planted_notebook.py"
SNIPPET = "snippets/planted_snippet.py"

ENTRY_TEXT = """\
---
date: 2025-07-28
categories:
  - {category}
---

# Planted entry

Planted by tests/test_one_failure.py, then broken one way at a time: weights
$w_{{ij}}$ and [a page it links to](../../planted-target.md).

<!-- more -->

$$s = \\frac{{1}}{{2}}$$

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
"""

FILES = {
    TARGET: "# Planted target\n\nThe page the planted entry links to.\n",
    NOTEBOOK: "# %% [markdown]\n# # Planted notebook\n#\n# A sum $s$ of three numbers.\n\n# %%\ntotal = sum([1, 2, 3])\nprint(total)\n",
    SNIPPET: '"""Planted by tests/test_one_failure.py."""\n\n\n# --8<-- [start:double]\ndef double(x):\n    return 2 * x\n'
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
    Mistake("notebook cell error", NOTEBOOK, "print(total)", "print(totl)", "print(totl)", ("NameError", "Did you mean: 'total'?")),
]


def plant_correct_pages(root: Path) -> None:
    settings = Settings.load(root / "mkdocs.yml")
    category = settings.blog.categories_allowed[0] if settings.blog and settings.blog.categories_allowed else "Notes"
    for rel, text in {ENTRY: ENTRY_TEXT.format(category=category), **FILES}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    assert settings.is_notebook(root / NOTEBOOK), f"{NOTEBOOK} is not among mkdocs-jupyter's include patterns"


def copy_of_project(dst: Path) -> Path:
    dst.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "screenshots")
    for name in COPIED:
        src = ROOT / name
        (shutil.copytree(src, dst / name, ignore=ignore) if src.is_dir() else shutil.copy2(src, dst / name))
    fonts = ROOT / ".cache" / "fonts"
    if fonts.is_dir():  # the math font (not committed): without it the font test skips
        shutil.copytree(fonts, dst / ".cache" / "fonts")
    seed_caches(dst, CACHE_STORE, ROOT / ".cache")  # built from content-keyed caches, as in tests/conftest.py
    plant_correct_pages(dst)
    return dst


def run_pytest(root: Path, report: Path) -> str:
    env = {k: v for k, v in ENV.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    proc = subprocess.run([sys.executable, "-m", "pytest", *RUN, f"--junitxml={report}"], cwd=root, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.stdout


@pytest.fixture(scope="session")
def pristine(tmp_path_factory) -> Path:
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
    if baseline["failed"] or baseline["errors"]:
        first = (baseline["failed"] or [(baseline["errors"][0], "")])[0]
        pytest.skip(f"docs/ fails without any planted mistake ({first[0]}: {first[1]}): that test reports it; "
                    "a second failure per mistake here would say nothing new")
    assert baseline["total"] > 10, baseline["output"]
    return shared / "project"


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.name.replace(" ", "-"))
def test_one_mistake_is_one_failure(pristine, tmp_path, mistake):
    root = tmp_path / "project"
    shutil.copytree(pristine, root)
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
    assert not errors, f"errors in {errors}:\n{output}"
    assert len(failed) == 1, f"{len(failed)} failed tests for one mistake ({mistake.name}):\n{output}"
    (name, first), = failed
    assert first.startswith(where), f"{name}: the report starts {first!r}, not with {where!r}"
    for needle in mistake.says:
        assert needle in first, f"{needle!r} not on the first line: {first!r}"
    assert re.match(r"^docs/\S+:\d+: ", first)
