"""The verified badge end to end: a page built after an edit (page, included snippet, imported
snippet) without a passing run is never shown verified, a revert is, a failed run is not, and
`make build` after `make test` still finds the record.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from journal_tools.core.record.verified import torch_version
from journal_tools.testing.site import ENV, ROOT, mkdocs_build

from fixture_journal import fixture_project, without_notebook_execution

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

ENTRY = "docs/blog/posts/2025-07-27-fixture-entry.md"
NOTEBOOK = "docs/notebooks/fixture_notebook.py"
BADGE = re.compile(r'<p class="journal-verified[^"]*" data-verified="(?P<ok>true|false)"[^>]*>(?P<text>.*?)</p>', re.S)


def run_page_tests(root: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in ENV.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    return subprocess.run([sys.executable, "-m", "pytest", "docs", "-p", "no:randomly", "-p", "no:cacheprovider", "-q"],
                          cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def badges(root: Path, site: Path) -> dict[str, tuple[bool, str]]:
    """Build ``root`` into ``site``; {entry, notebook: (verified?, badge text)}."""
    proc = mkdocs_build(root, site)
    assert proc.returncode == 0, proc.stdout
    found = {}
    for name, page in (("entry", next(site.glob("blog/2025/07/27/*/index.html"))),
                       ("notebook", site / "notebooks" / "fixture_notebook" / "index.html")):
        (m,) = BADGE.finditer(page.read_text(encoding="utf-8"))
        found[name] = (m["ok"] == "true", re.sub(r"<[^>]+>", "", m["text"]))
    return found


@pytest.fixture
def project(tmp_path) -> Path:
    # notebooks rendered, not executed: the badge does not depend on it
    return without_notebook_execution(fixture_project(tmp_path / "project"))


STALE = "Not verified since the last change: make test runs this page's code."


def edit(root: Path, rel: str, old: str | None = None, new: str = "") -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old is None or old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1) if old else text + "\n# edited\n", encoding="utf-8")


def test_badge_only_while_nothing_changed(project, tmp_path):
    # Never tested: not verified.
    assert badges(project, tmp_path / "s0") == {"entry": (False, STALE), "notebook": (False, STALE)}

    tests = run_page_tests(project)
    assert tests.returncode == 0, tests.stdout
    shown = badges(project, tmp_path / "s1")
    torch = torch_version()
    assert shown["entry"][0] and re.fullmatch(
        rf"Verified on \d{{4}}-\d\d-\d\d with PyTorch {re.escape(torch)}: 2 code blocks ran, and the 9 numbers of the printed"
        " outputs, matrices and sentences shown match what the code gives.", shown["entry"][1]), shown
    assert shown["notebook"][0] and shown["notebook"][1].endswith(": 2 code cells ran and their asserts held; the outputs"
                                                                  " shown are printed by the site build's own run of these cells,"
                                                                  " not compared with a stored copy."), shown

    # Each edit, built without running the tests again, takes the badge away; put back, the
    # same bytes have the same digest and the badge is back (one test run for all three).
    entry_text = (project / ENTRY).read_text(encoding="utf-8")
    edit(project, ENTRY, "Weights $w_{ij}$ from scores", "Weights $w_{ij}$ from the scores")
    assert badges(project, tmp_path / "s2") == {"entry": (False, STALE), "notebook": shown["notebook"]}
    (project / ENTRY).write_text(entry_text, encoding="utf-8")

    rel = "snippets/weights.py"  # included by the entry, imported by the notebook
    before = (project / rel).read_bytes()
    edit(project, rel)
    assert [ok for ok, _ in badges(project, tmp_path / "s3").values()] == [False, False], rel
    (project / rel).write_bytes(before)
    assert badges(project, tmp_path / "s5") == shown  # put back: what passed holds again, with no run

    # A run in which the page fails: the failing text is not verified; put back, what passed is.
    edit(project, ENTRY, "[[0.2689, 0.7311],", "[[0.2689, 0.7312],")
    assert run_page_tests(project).returncode == 1
    assert badges(project, tmp_path / "s6")["entry"][0] is False
    edit(project, ENTRY, "[[0.2689, 0.7312],", "[[0.2689, 0.7311],")
    assert badges(project, tmp_path / "s7")["entry"] == shown["entry"]


def run_make(root: Path, target: str, **variables: str) -> subprocess.CompletedProcess:
    """``make TARGET`` in ``root`` with the project's Makefile and this checkout's .venv (never set up
    from a test: -o setup; -o lint, the fixture journal being no lint target)."""
    make = shutil.which("make")
    assert make, "make is not installed"
    env = {k: v for k, v in ENV.items() if not k.startswith(("PYTEST_", "PYTHONPATH")) and k not in ("MAKEFLAGS", "MAKELEVEL")}
    return subprocess.run([make, "-f", str(ROOT / "Makefile"), "-C", str(root), "-o", "setup", "-o", "lint",
                           f"BIN={Path(sys.executable).parent}", target, *(f"{k}={v}" for k, v in variables.items())],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


OTHER_PAGE = "docs/index.md"


def empty_the_outputs(root: Path) -> None:
    """The entry as an author starts it: an empty output fence, a matrix of zeros. And another
    page's output wrong, which PAGE= must leave alone."""
    edit(root, ENTRY, "tensor([[0.2689, 0.7311],\n        [0.5000, 0.5000]])\n", "")
    edit(root, ENTRY, "0.2689 & 0.7311 \\\\\n0.5000 & 0.5000", "0 & 0 \\\\\n0 & 0")
    path = root / OTHER_PAGE
    path.write_text(path.read_text(encoding="utf-8") + "\n```python\nprint(1)\n```\n\n"
                    "<!--pytest-codeblocks:expected-output-->\n```text\n2\n```\n", encoding="utf-8")


COMMANDS = {
    "make test": ("test", {"PYTEST_ARGS": "docs -n 2"}, None),  # the page tests of make test, on two workers
    "make check": ("check", {"PAGE": ENTRY}, None),
    "make update-outputs": ("update-outputs", {"PAGE": ENTRY}, empty_the_outputs),
}


@pytest.mark.parametrize("target, variables, before", COMMANDS.values(), ids=COMMANDS.keys())
def test_the_badge_says_what_the_last_passing_run_proved_whichever_command_ran_it(project, tmp_path, target, variables, before):
    original = (project / ENTRY).read_text(encoding="utf-8")
    if before:
        before(project)
    other = (project / OTHER_PAGE).read_text(encoding="utf-8")
    proc = run_make(project, target, **variables)
    assert proc.returncode == 0, proc.stdout
    assert (project / ENTRY).read_text(encoding="utf-8") == original  # update-outputs: filled back as it was
    assert (project / OTHER_PAGE).read_text(encoding="utf-8") == other  # and no other page touched
    (ok, text) = badges(project, tmp_path / "site")["entry"]
    assert ok and "2 code blocks ran, and the 9 numbers" in text, (text, proc.stdout)
