"""One authoring mistake in docs/, one failed test, whose report starts with `file:line:`.

Each mistake of the catalogue below is planted alone in a copy of the whole
project (mkdocs.yml, pyproject.toml, requirements.txt, docs/, snippets/,
journal_tools/, tests/), and pytest runs in that copy, in a subprocess:

    python -m pytest docs tests/test_site_build.py -p no:randomly -p no:cacheprovider --junitxml=...

that is, every page doc-test of docs/ (pages and the notebook), the one test
that builds docs/ (test_site_build.py::test_docs_build) and the tests of
test_site_build.py that look at the built site (feeds, math, offline), as
representatives of every test taking the `built` fixture (browser, engines,
reproducibility skip through the same fixture, with the same reason). The
rest of the suite never reads docs/: it runs on tests/fixtures/journal or on
inline pages, so a mistake in docs/ cannot reach it. Running the whole suite
per mistake would take about 15 minutes each; this run takes about a minute.

For each mistake: exactly one failed test, no errors, and the first line of its
report starts with the planted `docs/...:N:` (the mistake's own line), with
the hint where one helps.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest
from journal_site import ENV, ROOT

ENTRY = "docs/blog/posts/2025-07-27-weights-and-causal-attention.md"
FIRST = "docs/blog/posts/2025-07-26-attention-without-weights.md"
NOTEBOOK = "docs/notebooks/attention_step_by_step.py"
COPIED = ("mkdocs.yml", "pyproject.toml", "requirements.txt", "docs", "snippets", "journal_tools", "tests")
RUN = ["docs", "tests/test_site_build.py", "-p", "no:randomly", "-p", "no:cacheprovider", "-q", "--color=no"]


@dataclass
class Mistake:
    name: str
    path: str
    old: str  # replaced once by new; must be on the page
    new: str
    line_of: str  # the reported line: the first planted line holding this text (or "line N")
    says: tuple[str, ...] = ()  # also on the report's first line
    below: int = 0  # the reported line is this many lines below that one

    def expected_line(self, planted: str) -> int:
        if self.line_of.startswith("line "):
            return int(self.line_of[5:])
        return planted[: planted.index(self.line_of)].count("\n") + 1 + self.below


MISTAKES = [
    Mistake("no date", ENTRY, "date: 2025-07-27\n", "", "line 1", ("post has no date",)),
    Mistake("impossible date", ENTRY, "date: 2025-07-27", "date: 2025-02-30", "date: 2025-02-30", ("not a real date",)),
    Mistake("unknown category", ENTRY, "  - Attention\n", "  - Transformers\n", "  - Transformers", ("categories_allowed",)),
    # named just after the opening paragraph, where the separator goes
    Mistake("no excerpt separator", ENTRY, "<!-- more -->\n", "", "In our [previous walkthrough]", ("<!-- more -->",), below=1),
    Mistake("bad TeX", ENTRY, "$$Q_i = x_i W^Q,", "$$Q_i = \\frac{x_i W^Q,", "$$Q_i = \\frac{", ("bad TeX", "at character")),
    # in the excerpt: the blog renders it again for its index and the feeds
    Mistake("bad TeX in the excerpt", ENTRY, "$W^{Q}, W^{K}, W^{V}$", "$W^{Q}, W^{K}, W^{V$", "$W^{Q}, W^{K}, W^{V$",
            ("bad TeX", "at character")),
    Mistake("missing snippet", ENTRY, '--8<-- "inputs.py:inputs"', '--8<-- "input.py:inputs"', '--8<-- "input.py',
            ("could not be found", "did you mean 'inputs.py'")),
    Mistake("missing section", ENTRY, '--8<-- "inputs.py:inputs"', '--8<-- "inputs.py:input"', '--8<-- "inputs.py:input"',
            ("could not be located", "has the sections: ")),
    Mistake("include escaping snippets/", ENTRY, '--8<-- "inputs.py:inputs"', '--8<-- "../mkdocs.yml"', '--8<-- "../mkdocs.yml"',
            ("is outside",)),
    Mistake("block that raises", ENTRY, "torch.set_printoptions(precision=4, sci_mode=False)\n",
            "torch.set_printoptions(precision=4, sci_mode=False)\nraise ValueError('planted')\n", "raise ValueError('planted')",
            ("ValueError: planted",)),
    Mistake("NameError with a suggestion", ENTRY, "torch.manual_seed(123)\nd_in, d_out", "print(inputz)\ntorch.manual_seed(123)\nd_in, d_out",
            "print(inputz)", ("NameError", "Did you mean: 'inputs'?")),
    Mistake("wrong expected output", ENTRY, "tensor([0.4306, 1.4551])", "tensor([0.4306, 1.4552])", "```text\ntensor([0.4306, 1.4552])",
            ("expected output differs", "make update-outputs")),
    Mistake("wrong matrix digit", FIRST, "\\omega_2 = \\begin{bmatrix} 0.9544 & 1.4950", "\\omega_2 = \\begin{bmatrix} 0.9544 & 1.4951",
            "0.9544 & 1.4951", ("number 2 of the matrix is 1.4951", "make update-outputs")),
    Mistake("broken link", ENTRY, "(2025-07-26-attention-without-weights.md)", "(2025-07-25-attention-without-weights.md)",
            "(2025-07-25-attention", ("contains a link '2025-07-25-attention-without-weights.md'", "not found")),
    Mistake("notebook cell error", NOTEBOOK, "print(tokens, tuple(inputs.shape))", "print(tokns, tuple(inputs.shape))",
            "print(tokns", ("NameError", "Did you mean: 'tokens'?")),
]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    dst = tmp_path_factory.mktemp("one-failure") / "project"
    dst.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "screenshots")
    for name in COPIED:
        src = ROOT / name
        (shutil.copytree(src, dst / name, ignore=ignore) if src.is_dir() else shutil.copy2(src, dst / name))
    fonts = ROOT / ".cache" / "fonts"
    if fonts.is_dir():  # the math font (not committed): without it the font test skips
        shutil.copytree(fonts, dst / ".cache" / "fonts")
    return dst


def failures(report: Path) -> tuple[list[tuple[str, str]], list[str], int]:
    """(test id, first report line) of each failure, the ids of errors, the number of tests run."""
    suite = ET.parse(report).getroot()
    failed, errors, total = [], [], 0
    for case in suite.iter("testcase"):
        total += 1
        name = f"{case.get('classname')}::{case.get('name')}"
        for failure in case.findall("failure"):
            text = (failure.text or failure.get("message") or "").strip()
            failed.append((name, text.split("\n", 1)[0]))
        errors += [name for _ in case.findall("error")]
    return failed, errors, total


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.name.replace(" ", "-"))
def test_one_mistake_is_one_failure(pristine, tmp_path, mistake):
    root = tmp_path / "project"
    shutil.copytree(pristine, root)
    page = root / mistake.path
    text = page.read_text(encoding="utf-8")
    assert mistake.old in text, f"{mistake.old!r} is no longer on {mistake.path}: update the catalogue"
    planted = text.replace(mistake.old, mistake.new, 1)
    page.write_text(planted, encoding="utf-8")
    where = f"{mistake.path}:{mistake.expected_line(planted)}: "

    env = {k: v for k, v in ENV.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    report = tmp_path / "report.xml"
    proc = subprocess.run([sys.executable, "-m", "pytest", *RUN, f"--junitxml={report}"], cwd=root, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    failed, errors, total = failures(report)
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "(no output)"
    print(f"\n[{mistake.name}] {summary}\n  " + "\n  ".join(f"{n}: {first}" for n, first in failed))

    assert total > 10, proc.stdout  # the docs/ tests did run
    assert not errors, f"errors in {errors}:\n{proc.stdout}"
    assert len(failed) == 1, f"{len(failed)} failed tests for one mistake ({mistake.name}):\n{proc.stdout}"
    (name, first), = failed
    assert first.startswith(where), f"{name}: the report starts {first!r}, not with {where!r}"
    for needle in mistake.says:
        assert needle in first, f"{needle!r} not on the first line: {first!r}"
    assert re.match(r"^docs/\S+:\d+: ", first)
