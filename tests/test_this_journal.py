"""What only this journal says of itself: its README's how-to for a first entry, and its CI,
which runs the toolkit's suite beside the journal's checks (a journal made by journal-new-site
has no toolkit of its own)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

# What a new author needs from the README for a first entry (found when one wrote it):
# each phrase stands for one fact the author otherwise has to find out.
FIRST_ENTRY = {
    "the entry's address": "blog/YYYY/MM/DD/<slug>/",
    "the draft workflow": "delete `draft: true` to publish",
    "outputs start empty": "Start an output as an empty ` ```text ` fence",
    "new files are untracked": "`git status` lists them",
    "update-outputs on one page": "make update-outputs PAGE=",
    "the snippet test alone": "make check PAGE=tests/test_snippets/",
    "the first make test's cost": "The first `make test` of a fresh clone",
}


@pytest.mark.parametrize("phrase", FIRST_ENTRY.values(), ids=FIRST_ENTRY.keys())
def test_readme_says_what_a_first_entry_needs(phrase):
    assert phrase in README


def test_readme_names_and_links_the_toolkit():
    assert "](toolkit/README.md)" in README, "README.md must link the toolkit's README"
    assert "`make test-toolkit`" in README, "README.md must name make test-toolkit"


def test_ci_runs_both_suites():
    """The workflow has a job for each part (the journal's checks, the toolkit's suite), and
    .ci/run runs both commands."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    runs = {name: " ".join(step.get("run", "") for step in job.get("steps", [])) for name, job in workflow["jobs"].items()}
    assert any(re.search(r"\bmake test\b(?!-)", run) for run in runs.values()), runs
    assert any("make test-toolkit" in run for run in runs.values()), runs
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"(?m)^make test$", ci) and re.search(r"(?m)^make test-toolkit$", ci), ci
