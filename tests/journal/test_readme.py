"""The README stays short and true to the project, and the developer guide's module map stays complete.

Why: the README is a newcomer's first page (issue 17: at most 150 lines), and its
claims go stale silently when a target is renamed or a file moves. These checks
read only the text and the tree: every `make X` it names is a target of the
Makefile, every path it names under the project's folders exists, and every
module of journal_tools/ has its line in journal_tools/DEVELOPING.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from journal_tools.commands.new_entry import plan_entry

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GUIDE = ROOT / "journal_tools" / "DEVELOPING.md"
MAX_LINES = 150

# A path starts at one of the project's folders or is one of its top-level files;
# it ends where a path character ends (a `<placeholder>` or `:line` stops it).
_PATH = re.compile(
    r"(?<![\w./-])((?:\.github|docs|snippets|tests|journal_tools|benchmarks)/[\w./-]*"
    r"|mkdocs\.yml|requirements\.txt|pyproject\.toml|Makefile)"
)
# A command: in backticks, or at the start of a line of a code block (prose such
# as "make targets" is no command).
_MAKE = re.compile(r"(?:^|`)make ([a-z][\w-]*)", re.MULTILINE)
_TARGET = re.compile(r"^([a-z][\w-]*)\s*:(?!=)", re.MULTILINE)
_MAP_LINE = re.compile(r"^- `([\w/]+\.py)`: ", re.MULTILINE)


def named_paths(text: str) -> set[str]:
    """The project paths a text names (trailing sentence dots dropped)."""
    return {m.rstrip(".") for m in _PATH.findall(text)}


def make_targets() -> set[str]:
    """The targets the Makefile defines."""
    return set(_TARGET.findall((ROOT / "Makefile").read_text(encoding="utf-8")))


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; at most {MAX_LINES} (issue 17)"


def test_every_make_target_named_exists():
    targets = make_targets()
    for doc in (README, GUIDE):
        named = set(_MAKE.findall(doc.read_text(encoding="utf-8")))
        assert named, f"{doc.name} names no make target"
        missing = sorted(named - targets)
        assert not missing, f"{doc.relative_to(ROOT)} names make targets the Makefile lacks: {missing}"


def test_every_path_the_readme_names_exists():
    named = named_paths(README.read_text(encoding="utf-8"))
    assert "journal_tools/DEVELOPING.md" in named, "README.md must link the developer guide"
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"README.md names paths that do not exist: {missing}"


def test_module_map_lists_every_module():
    listed = _MAP_LINE.findall(GUIDE.read_text(encoding="utf-8"))
    package = ROOT / "journal_tools"
    modules = {p.relative_to(package).as_posix() for p in package.rglob("*.py")}
    assert not modules - set(listed), f"missing from the module map of DEVELOPING.md: {sorted(modules - set(listed))}"
    assert not set(listed) - modules, f"listed in DEVELOPING.md but gone: {sorted(set(listed) - modules)}"


# What a new author needs from the README for a first entry (the issue that tried it):
# each phrase stands for one fact the author otherwise has to find out.
FIRST_ENTRY = {
    "the entry's address": "blog/YYYY/MM/DD/<slug>/",
    "the draft workflow": "delete `draft: true` to publish",
    "outputs start empty": "Start an output as an empty ` ```text ` fence",
    "new files are untracked": "`git status` lists them",
    "update-outputs on one page": "make update-outputs PAGE=",
    "the snippet test alone": "make check PAGE=tests/journal/test_snippets/",
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
