"""The toolkit's README, DEVELOPING.md and DECISIONS.md stay short and true to the code.

Why: their claims go stale silently. Every `make X` named is a Makefile target, every path
named exists, every relative link lands, and every module of journal_tools is in the guide.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from journal_tools.testing import doc_claims

TOOLKIT = Path(__file__).resolve().parents[1]
PACKAGE = TOOLKIT / "src" / "journal_tools"
# The Makefile that runs the toolkit's commands is the journal's, one folder up.
MAKEFILE = TOOLKIT.parent / "Makefile"
DOCS = {name: TOOLKIT / f"{name}.md" for name in ("README", "DEVELOPING", "DECISIONS")}
MAX_LINES = {"README": 60, "DEVELOPING": 250}
SUBPACKAGES = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
_PATH = doc_claims.path_pattern(["src", "tests", "benchmarks", *SUBPACKAGES], ["pyproject.toml"])
_CODE = re.compile(r"`([^`\n]+)`")


def text(name: str) -> str:
    return DOCS[name].read_text(encoding="utf-8")


def exists(path: str) -> bool:
    """A path from toolkit/, or a module path (`core/code/parse.py`) from src/journal_tools/."""
    return ((PACKAGE if path.split("/")[0] in SUBPACKAGES else TOOLKIT) / path).exists()


@pytest.mark.parametrize("name", MAX_LINES)
def test_doc_is_short(name):
    lines = text(name).splitlines()
    assert len(lines) <= MAX_LINES[name], f"toolkit/{name}.md has {len(lines)} lines; at most {MAX_LINES[name]}"


@pytest.mark.parametrize("name", DOCS)
def test_every_make_target_named_exists(name):
    missing = sorted(doc_claims.named_targets(text(name)) - doc_claims.make_targets(MAKEFILE))
    assert not missing, f"toolkit/{name}.md names make targets the Makefile lacks: {missing}"


@pytest.mark.parametrize("name", DOCS)
def test_every_path_named_exists(name):
    named = doc_claims.named_paths(text(name), _PATH)
    assert named, f"toolkit/{name}.md names no path"
    missing = sorted(p for p in named if not exists(p))
    assert not missing, f"toolkit/{name}.md names paths that do not exist: {missing}"


@pytest.mark.parametrize("name", DOCS)
def test_every_relative_link_lands(name):
    missing = doc_claims.broken_links(DOCS[name])
    assert not missing, f"toolkit/{name}.md links files that do not exist: {missing}"


def test_readme_links_the_guide_and_the_guide_its_decisions():
    assert "(DEVELOPING.md)" in text("README"), "toolkit/README.md must link the developer guide"
    assert "(DECISIONS.md)" in text("DEVELOPING"), "DEVELOPING.md must link DECISIONS.md"


def module_name(path: Path) -> str:
    """How the guide names a module: its path from journal_tools/ (`core/code/parse.py`); a
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
    assert not missing, f"modules of journal_tools that toolkit/DEVELOPING.md does not name: {missing}"
