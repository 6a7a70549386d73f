"""The publishing workflow builds where `make test` wrote the record, runs both suites, and
passes a GitHub Actions security audit: every action
pinned to a commit hash with its version in a comment, checkout without
persisted credentials, and zizmor (the pinned one, offline) with no findings.

Each check also runs on planted problems, to show that it can fail."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
GITHUB_DIR = ROOT / ".github"
WORKFLOWS = sorted((GITHUB_DIR / "workflows").glob("*.y*ml"))
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


PINNED_TEXT = """\
name: planted
on: push
permissions: {}
concurrency:
  group: ${{ github.workflow }}-${{ github.ref }}
  cancel-in-progress: true
jobs:
  build:
    name: build
    runs-on: ubuntu-latest
    permissions:
      contents: read # to check out the repository
    steps:
      - uses: actions/checkout@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0
        with:
          persist-credentials: false
      - run: echo hello
"""


def test_there_are_workflows():
    assert WORKFLOWS, "no workflow in .github/workflows"


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit_with_its_version(workflow):
    text = workflow.read_text(encoding="utf-8")
    assert uses_of(yaml.safe_load(text)), "no `uses:` found: is the parsing right?"
    assert pin_problems(text) == []


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_checkout_does_not_persist_credentials(workflow):
    assert checkout_problems(workflow.read_text(encoding="utf-8")) == []


def test_zizmor_finds_nothing():
    proc = zizmor(GITHUB_DIR)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "No findings to report" in proc.stdout, output


def test_the_pin_checks_catch_planted_problems():
    assert pin_problems(PINNED_TEXT) == []
    assert checkout_problems(PINNED_TEXT) == []
    tag = PINNED_TEXT.replace("@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0", "@v4")
    assert pin_problems(tag)
    short = PINNED_TEXT.replace("11d5960a326750d5838078e36cf38b85af677262", "11d5960")
    assert pin_problems(short)
    no_comment = PINNED_TEXT.replace(" # v4.4.0", "")
    assert pin_problems(no_comment)
    persisting = PINNED_TEXT.replace("persist-credentials: false", "persist-credentials: true")
    assert checkout_problems(persisting)
    no_with = PINNED_TEXT.replace("        with:\n          persist-credentials: false\n", "")
    assert checkout_problems(no_with)


@pytest.mark.parametrize(
    "plant",
    [
        pytest.param(lambda t: t, id="clean"),
        pytest.param(lambda t: t.replace("@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0", "@v4"), id="unpinned"),
        pytest.param(lambda t: t.replace("persist-credentials: false", "fetch-depth: 1"), id="artipacked"),
        # Informational (pedantic): only reported with the flags `make lint` uses.
        pytest.param(lambda t: t.replace("    name: build\n", ""), id="anonymous-job"),
        # Unparsable: reported as an error, not skipped with a warning.
        pytest.param(lambda t: t + "  broken: [\n", id="syntax-error"),
    ],
)
def test_zizmor_fails_on_a_planted_finding_only(tmp_path, plant):
    github = tmp_path / ".github"
    (github / "workflows").mkdir(parents=True)
    text = plant(PINNED_TEXT)
    (github / "workflows" / "planted.yml").write_text(text, encoding="utf-8")
    proc = zizmor(github)
    if text == PINNED_TEXT:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    else:
        assert proc.returncode != 0, proc.stdout + proc.stderr


def test_make_lint_uses_the_same_flags():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    line = next(line for line in makefile.splitlines() if "/zizmor " in line)
    for flag in ZIZMOR_FLAGS[:5]:
        assert flag in line.split(), (flag, line)
    assert line.split()[-1] == ".github/", line
    assert re.search(r"^test:.*\blint\b", makefile, re.M), "make test does not run lint first"


def test_workflow_builds_where_make_test_wrote_the_record():
    """pages.yml: `make build` runs in the same job as `make test`, after it, with nothing
    between them that removes .cache/ (where the record is)."""
    workflow = yaml.safe_load((GITHUB_DIR / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    for job in workflow["jobs"].values():
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


def test_ci_runs_both_suites():
    """The workflow has a job for each part (the journal's checks, the toolkit's suite), and
    .ci/run runs both commands."""
    workflow = yaml.safe_load((GITHUB_DIR / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    runs = {name: " ".join(step.get("run", "") for step in job.get("steps", [])) for name, job in workflow["jobs"].items()}
    assert any(re.search(r"\bmake test\b(?!-)", run) for run in runs.values()), runs
    assert any("make test-toolkit" in run for run in runs.values()), runs
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"(?m)^make test$", ci) and re.search(r"(?m)^make test-toolkit$", ci), ci
