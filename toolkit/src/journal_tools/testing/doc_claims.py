"""The claims a project's docs make that go stale silently when a target is renamed or a
file moves: the `make X` commands they name, the paths they name, their relative links.
Read from the text and the tree only; a journal's README test and the toolkit's docs
test both ask these questions."""

from __future__ import annotations

import re
from pathlib import Path

# A command: in backticks, or at the start of a line of a code block (prose such as "make targets" is no command).
_MAKE = re.compile(r"(?:^|`)make ([a-z][\w-]*)", re.MULTILINE)
_TARGET = re.compile(r"^([a-z][\w-]*)\s*:(?!=)", re.MULTILINE)
# `make X VAR=... VAR2=...`: the variables a command sets; a Makefile uses one as $(VAR) or $(value VAR).
_MAKE_SETS = re.compile(r"(?:^|`)make [a-z][\w-]*((?:[ \t]+[A-Z][A-Z0-9_]*=\S*)+)", re.MULTILINE)
_USED = re.compile(r"\$\((?:value )?([A-Z][A-Z0-9_]*)\)")
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def make_targets(makefile: Path) -> set[str]:
    """The targets ``makefile`` defines."""
    return set(_TARGET.findall(makefile.read_text(encoding="utf-8")))


def make_variables(makefile: Path) -> set[str]:
    """The variables ``makefile`` uses (a variable set on the command line but never used does nothing)."""
    return set(_USED.findall(makefile.read_text(encoding="utf-8")))


def named_variables(text: str) -> set[str]:
    """The variables ``text`` tells a reader to set on a make command line."""
    return {name for group in _MAKE_SETS.findall(text) for name in re.findall(r"([A-Z][A-Z0-9_]*)=", group)}


def named_targets(text: str) -> set[str]:
    """The make targets ``text`` tells a reader to run."""
    return set(_MAKE.findall(text))


def path_pattern(folders: list[str], files: list[str]) -> re.Pattern:
    """A path starting at one of ``folders`` or one of ``files``, ending where path characters end (`<placeholder>`, `:line` stop it)."""
    return re.compile(r"(?<![\w./-])((?:" + "|".join(map(re.escape, folders)) + r")/[\w./-]*|"
                      + "|".join(map(re.escape, files)) + r")")


def named_paths(text: str, pattern: re.Pattern) -> set[str]:
    """The paths ``text`` names (trailing sentence dots dropped)."""
    return {m.rstrip(".") for m in pattern.findall(text)}


def broken_links(doc: Path) -> list[str]:
    """The relative links of ``doc`` that land on no file."""
    links = [t for t in _LINK.findall(doc.read_text(encoding="utf-8")) if not re.match(r"[a-z]+:", t)]
    return sorted(t for t in links if not (doc.parent / t).exists())
