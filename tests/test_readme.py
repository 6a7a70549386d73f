"""The README stays short and true to the journal.

Why: it is a newcomer's first page (at most 150 lines), and its claims go stale
silently when a target is renamed or a file moves: every `make X` it names is a
target of the Makefile, every path it names exists and every relative link lands
(journal_tools.testing.doc_claims). And it says what a first entry needs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from journal_tools.commands.new_entry import plan_entry
from journal_tools.testing import doc_claims

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_LINES = 150
_PATH = doc_claims.path_pattern([".github", ".ci", "docs", "snippets", "tests", "toolkit"],
                                ["mkdocs.yml", "requirements.txt", "pyproject.toml", "Makefile"])


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; at most {MAX_LINES}"


def test_every_make_target_named_exists():
    named = doc_claims.named_targets(README.read_text(encoding="utf-8"))
    assert {"serve", "test", "test-toolkit"} <= named, "README.md must name make serve, make test and make test-toolkit"
    missing = sorted(named - doc_claims.make_targets(ROOT / "Makefile"))
    assert not missing, f"README.md names make targets the Makefile lacks: {missing}"


def test_every_path_named_exists():
    named = doc_claims.named_paths(README.read_text(encoding="utf-8"), _PATH)
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"README.md names paths that do not exist: {missing}"


def test_every_relative_link_lands():
    missing = doc_claims.broken_links(README)
    assert not missing, f"README.md links files that do not exist: {missing}"


def test_readme_links_the_toolkit():
    assert "](toolkit/README.md)" in README.read_text(encoding="utf-8"), "README.md must link the toolkit's README"


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
    assert phrase in README.read_text(encoding="utf-8")


def test_readme_front_matter_is_what_make_new_writes():
    """The README's front-matter example, comments aside, is the scaffold's for its title and date."""
    text = README.read_text(encoding="utf-8")
    shown = yaml.safe_load(re.search(r"```yaml\n---\n(.*?)\n---\n```", text, re.S)[1])
    title = re.search(r'make new TITLE="([^"]+)"', text)[1]
    plan = plan_entry(ROOT, title, shown["date"], category=shown["categories"][0])
    written = plan.contents[plan.entry]
    assert yaml.safe_load(written.split("---\n")[1]) == shown
    assert plan.entry.name in text.replace("<today>", shown["date"].isoformat())
