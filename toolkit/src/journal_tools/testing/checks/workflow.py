"""The publishing workflow builds where `make test` wrote the record, runs both suites, and
passes a GitHub Actions security audit: every action
pinned to a commit hash with its version in a comment, checkout without
persisted credentials, and zizmor (the pinned one, offline) with no findings.

The journal is the folder pytest runs in (its rootdir). The checks' own tests, on planted
problems, are in toolkit/tests/testing/test_workflow_checks.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ZIZMOR = Path(sys.executable).parent / "zizmor"
# The same flags as `make lint`.
ZIZMOR_FLAGS = ["--offline", "--persona", "auditor", "--strict-collection", "--no-progress", "--color", "never"]

# owner/repo, optionally a path inside it, then @ and a full commit hash.
PINNED = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+(/[^@\s]+)?@[0-9a-f]{40}")
# In the raw text: the pinned reference, then a `# v...` comment with the version.
PINNED_LINE = re.compile(r"^\s*(-\s+)?uses:\s*(?P<ref>\S+)\s+#\s*v\d[\w.+-]*\s*$")
USES_LINE = re.compile(r"^\s*(-\s+)?uses:")


def uses_of(workflow: dict) -> list[str]:
    """Every `uses:` of a parsed workflow: steps' actions and jobs' reusable workflows."""
    refs = []
    for job in (workflow.get("jobs") or {}).values():
        if "uses" in job:
            refs.append(job["uses"])
        refs += [step["uses"] for step in job.get("steps") or [] if "uses" in step]
    return refs


def pin_problems(text: str) -> list[str]:
    """What is wrong with the pins of one workflow's text (empty when nothing is)."""
    problems = []
    refs = uses_of(yaml.safe_load(text))
    for ref in refs:
        if ref.startswith("./"):
            continue  # an action of this repository: pinned by the checkout itself
        if not PINNED.fullmatch(ref):
            problems.append(f"{ref}: not owner/repo@<40-hex commit hash>")
    raw = [line for line in text.splitlines() if USES_LINE.match(line)]
    if len(raw) != len(refs):
        problems.append(f"{len(raw)} `uses:` lines in the text, {len(refs)} in the parsed workflow")
    for line in raw:
        m = PINNED_LINE.match(line)
        if not m:
            problems.append(f"{line.strip()!r}: no `# v...` version comment after the reference")
        elif not m["ref"].startswith("./") and not PINNED.fullmatch(m["ref"]):
            problems.append(f"{line.strip()!r}: not pinned to a commit hash")
    return problems


def checkout_problems(text: str) -> list[str]:
    problems = []
    for name, job in (yaml.safe_load(text).get("jobs") or {}).items():
        for step in job.get("steps") or []:
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                if (step.get("with") or {}).get("persist-credentials") is not False:
                    problems.append(f"job {name}: actions/checkout without persist-credentials: false")
    return problems


def zizmor(target: Path) -> subprocess.CompletedProcess:
    if not ZIZMOR.is_file():
        pytest.fail(f"{ZIZMOR} missing: zizmor is pinned in requirements.txt (make setup installs it)", pytrace=False)
    return subprocess.run(
        [str(ZIZMOR), *ZIZMOR_FLAGS, str(target)],
        cwd=target.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _workflows(root: Path) -> list[Path]:
    return sorted((root / ".github" / "workflows").glob("*.y*ml"))


def pytest_generate_tests(metafunc):
    """One test per workflow of the journal; a journal without one fails (never skips)."""
    if "workflow" in metafunc.fixturenames:
        found = _workflows(metafunc.config.rootpath)
        metafunc.parametrize("workflow", found or [None], ids=[p.name for p in found] or ["none"])


def _text(workflow: Path | None) -> str:
    assert workflow is not None, "no workflow in .github/workflows/: the journal's tests and its publishing run nowhere"
    return workflow.read_text(encoding="utf-8")


def test_every_action_is_pinned_to_a_commit_with_its_version(workflow):
    text = _text(workflow)
    assert uses_of(yaml.safe_load(text)), "no `uses:` found: is the parsing right?"
    assert pin_problems(text) == []


def test_checkout_does_not_persist_credentials(workflow):
    assert checkout_problems(_text(workflow)) == []


def test_zizmor_finds_nothing(request):
    proc = zizmor(request.config.rootpath / ".github")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "No findings to report" in proc.stdout, output


def test_make_lint_uses_the_same_flags(request):
    makefile = (request.config.rootpath / "Makefile").read_text(encoding="utf-8")
    line = next(line for line in makefile.splitlines() if "/zizmor " in line)
    for flag in ZIZMOR_FLAGS[:5]:
        assert flag in line.split(), (flag, line)
    assert line.split()[-1] == ".github/", line
    assert re.search(r"^test:.*\blint\b", makefile, re.M), "make test does not run lint first"


def test_workflow_builds_where_make_test_wrote_the_record(request):
    """`make build` runs after `make test` in the same job, nothing between them removing .cache/ (the record the badges come from)."""
    jobs = [job for path in _workflows(request.config.rootpath)
            for job in (yaml.safe_load(path.read_text(encoding="utf-8")).get("jobs") or {}).values()]
    for job in jobs:
        runs = [step.get("run", "") for step in job.get("steps", [])]
        builds = [i for i, run in enumerate(runs) if "make build" in run]
        if not builds:
            continue
        tests = [i for i, run in enumerate(runs) if "make test" in run]
        assert tests and tests[0] < builds[0], "make build must follow make test in the same job"
        between = " ".join(runs[tests[0] + 1 : builds[0]])
        assert "make clean" not in between and ".cache" not in between, between
        return
    pytest.fail("no job runs make build")
