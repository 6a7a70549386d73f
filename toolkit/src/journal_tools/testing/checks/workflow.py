"""What of the journal's workflows zizmor does not audit. zizmor itself runs once, in `make lint` (which `make test`
runs first, with every audit on): it fails an action not pinned to a commit hash, a checkout that keeps its
credentials, a cache a release could be poisoned through. Here, offline and without zizmor:

- every pinned action names its version in a `# v...` comment (Dependabot rewrites it; zizmor checks it only online);
- `make lint` runs zizmor with those flags, and `make test` runs `make lint`;
- `make build` runs after `make test` in the same job, nothing between removing .cache/ (the record the badges
  come from), and only a run that checks everything (FRESH=1) saves the record pull requests restore.

The journal is the folder pytest runs in (its rootdir). The checks' own tests, on planted problems, are in
toolkit/tests/testing/test_site_checks.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

# The flags of `make lint`'s zizmor: offline, every audit, a file it cannot parse is an error.
ZIZMOR_FLAGS = ["--offline", "--persona", "auditor", "--strict-collection", "--no-progress"]
# A `uses:` line: a reference and its `# v...` version comment (a local ./action needs none).
USES_LINE = re.compile(r"^\s*(-\s+)?uses:\s*(?P<ref>\S+)(?P<comment>\s+#\s*v\d[\w.+-]*)?\s*$")


def comment_problems(text: str) -> list[str]:
    """The `uses:` lines of one workflow's text that name no version in a comment."""
    lines = [line for line in text.splitlines() if re.match(r"^\s*(-\s+)?uses:", line)]
    return [f"{line.strip()!r}: no `# v...` version comment after the reference" for line in lines
            if not (m := USES_LINE.match(line)) or not (m["comment"] or m["ref"].startswith("./"))]


def record_problems(workflow: dict) -> list[str]:
    """A job saving the record that pull requests restore: only where it is not a pull request, after `make test` with FRESH=1."""
    problems = []
    for name, job in (workflow.get("jobs") or {}).items():
        steps = job.get("steps") or []
        for i, step in enumerate(steps):
            if not str(step.get("uses", "")).startswith(("actions/cache/save@", "actions/cache@")):
                continue
            if "record" not in str((step.get("with") or {}).get("path", "")):
                continue
            if "github.event_name != 'pull_request'" not in str(step.get("if", "")):
                problems.append(f"job {name}: the record is saved on pull requests too (step {i + 1})")
            tests = [s for s in steps[:i] if "make test" in s.get("run", "")]
            if not tests or "'1'" not in str((tests[-1].get("env") or {}).get("FRESH", "")):
                problems.append(f"job {name}: the record is saved without a `make test` run with FRESH=1 before it")
    return problems


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


def test_every_action_names_its_version(workflow):
    assert comment_problems(_text(workflow)) == []


def test_only_a_fresh_run_saves_the_record(workflow):
    assert record_problems(yaml.safe_load(_text(workflow))) == []


def test_make_lint_runs_zizmor_with_every_audit(request):
    makefile = (request.config.rootpath / "Makefile").read_text(encoding="utf-8")
    line = next((line for line in makefile.splitlines() if "/zizmor " in line), "")
    for flag in ZIZMOR_FLAGS:
        assert flag in line.split(), f"make lint's zizmor line lacks {flag}: {line!r}"
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
