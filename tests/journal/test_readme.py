"""The README, the developer guide and its decisions file stay short and true to the project.

Why: they are a newcomer's first pages (the README at most 150 lines, the guide at most
250), and their claims go stale silently when a target is renamed or a file moves.
These checks read only the text and the tree: in README.md, journal_tools/DEVELOPING.md
and journal_tools/DECISIONS.md every `make X` named is a target of the Makefile, every
project path named exists (a module path such as `core/parse.py` counts from
journal_tools/) and every relative link lands on a file; and every module of
journal_tools/ is named in the guide.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from journal_tools.commands.new_entry import plan_entry

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "journal_tools"
README = ROOT / "README.md"
GUIDE = PACKAGE / "DEVELOPING.md"
DECISIONS = PACKAGE / "DECISIONS.md"
DOCS = {"README": README, "DEVELOPING": GUIDE, "DECISIONS": DECISIONS}
MAX_LINES = {"README": 150, "DEVELOPING": 250}
SUBPACKAGES = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))

# A path starts at one of the project's folders (or a subpackage of journal_tools/) or
# is one of its top-level files; it ends where a path character ends (a `<placeholder>`
# or `:line` stops it).
_PATH = re.compile(
    r"(?<![\w./-])((?:\.github|docs|snippets|tests|journal_tools|benchmarks|"
    + "|".join(SUBPACKAGES)
    + r")/[\w./-]*|mkdocs\.yml|requirements\.txt|pyproject\.toml|Makefile)"
)
# A command: in backticks, or at the start of a line of a code block (prose such
# as "make targets" is no command).
_MAKE = re.compile(r"(?:^|`)make ([a-z][\w-]*)", re.MULTILINE)
_TARGET = re.compile(r"^([a-z][\w-]*)\s*:(?!=)", re.MULTILINE)
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
_CODE = re.compile(r"`([^`\n]+)`")


def text(name: str) -> str:
    return DOCS[name].read_text(encoding="utf-8")


def named_paths(doc_text: str) -> set[str]:
    """The project paths a text names (trailing sentence dots dropped)."""
    return {m.rstrip(".") for m in _PATH.findall(doc_text)}


def exists(path: str) -> bool:
    """A project path from the root, or a module path (`core/parse.py`) from journal_tools/."""
    base = PACKAGE if path.split("/")[0] in SUBPACKAGES else ROOT
    return (base / path).exists()


def make_targets() -> set[str]:
    """The targets the Makefile defines."""
    return set(_TARGET.findall((ROOT / "Makefile").read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", MAX_LINES)
def test_doc_is_short(name):
    lines = text(name).splitlines()
    assert len(lines) <= MAX_LINES[name], f"{DOCS[name].relative_to(ROOT)} has {len(lines)} lines; at most {MAX_LINES[name]}"


@pytest.mark.parametrize("name", DOCS)
def test_every_make_target_named_exists(name):
    named = set(_MAKE.findall(text(name)))
    assert named, f"{DOCS[name].relative_to(ROOT)} names no make target"
    missing = sorted(named - make_targets())
    assert not missing, f"{DOCS[name].relative_to(ROOT)} names make targets the Makefile lacks: {missing}"


@pytest.mark.parametrize("name", DOCS)
def test_every_path_named_exists(name):
    named = named_paths(text(name))
    assert named, f"{DOCS[name].relative_to(ROOT)} names no path"
    missing = sorted(p for p in named if not exists(p))
    assert not missing, f"{DOCS[name].relative_to(ROOT)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("name", DOCS)
def test_every_relative_link_lands(name):
    links = [t for t in _LINK.findall(text(name)) if not re.match(r"[a-z]+:", t)]
    missing = sorted(t for t in links if not (DOCS[name].parent / t).exists())
    assert not missing, f"{DOCS[name].relative_to(ROOT)} links files that do not exist: {missing}"


def test_readme_links_the_guide_and_the_guide_its_decisions():
    assert "journal_tools/DEVELOPING.md" in named_paths(text("README")), "README.md must link the developer guide"
    assert "(DECISIONS.md)" in text("DEVELOPING"), "DEVELOPING.md must link DECISIONS.md"


def module_name(path: Path) -> str:
    """How the guide names a module: its path from journal_tools/ (`core/parse.py`); a
    subpackage whose __init__.py holds only a docstring, by its folder (`core/`)."""
    rel = path.relative_to(PACKAGE).as_posix()
    if path.name != "__init__.py":
        return rel
    if path.parent == PACKAGE:
        return "journal_tools/__init__.py"
    body = ast.parse(path.read_text(encoding="utf-8")).body
    docstring_only = len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    return f"{path.parent.name}/" if docstring_only else rel


def test_guide_names_every_module():
    named = set(_CODE.findall(text("DEVELOPING")))
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    missing = sorted(modules - named)
    assert not missing, f"modules of journal_tools/ that journal_tools/DEVELOPING.md does not name: {missing}"


# What a new author needs from the README for a first entry (found when one wrote it):
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
