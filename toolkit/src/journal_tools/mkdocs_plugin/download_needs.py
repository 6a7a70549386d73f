"""What an entry's download needs installed: the distributions its code and written-in modules import
(``packages_distributions()``), less the standard library, pinned from requirements.txt or as installed,
so the header names exactly what a run alone needs.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from journal_tools.core.code.imports import imported_names_in_text

__all__ = ["Need", "canonical", "header_line", "imported_modules", "needs"]


@dataclass(frozen=True)
class Need:
    """One distribution the download imports: ``torch``, ``2.13.0``; ``modules`` are its import names."""

    name: str
    version: str
    modules: tuple[str, ...]

    def pin(self) -> str:
        """``name==version``, as pip takes it."""
        return f"{self.name}=={self.version}" if self.version else self.name


def imported_modules(sources: list[str]) -> set[str]:
    """The top-level module names every absolute import of ``sources`` names."""
    names: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:  # the page test reports it; the import lines still tell the modules
            names |= imported_names_in_text(source)
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return names - {"__future__"}


def needs(modules: set[str], written_in: set[str], requirements: Path) -> tuple[list[Need], list[str]]:
    """(distributions providing ``modules``, sorted; modules none provides), the standard library and ``written_in`` left out."""
    provided = _packages_distributions()
    pins = _pins(requirements)
    by_dist: dict[str, list[str]] = {}
    missing = []
    for module in sorted(modules - written_in - set(sys.stdlib_module_names)):
        dists = provided.get(module)
        if not dists:
            missing.append(module)
            continue
        for dist in dists:
            by_dist.setdefault(canonical(dist), []).append(module)
    found = []
    for key, mods in sorted(by_dist.items()):
        name, version = _named(key, pins)
        found.append(Need(name, version, tuple(mods)))
    return found, missing


def header_line(found: list[Need], missing: list[str]) -> list[str]:
    """The script's ``# Needs:`` comment lines."""
    if not found:
        lines = ["# Needs: Python 3 alone (the code imports no package)."]
    else:
        pins = " ".join(n.pin() for n in found)
        lines = [f"# Needs: {', '.join(n.pin() for n in found)} (pip install {pins})"]
    if missing:
        lines.append(f"# It also imports {', '.join(missing)}, which no installed package provided when it was made.")
    return lines


def canonical(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.lru_cache(maxsize=1)
def _packages_distributions() -> dict[str, list[str]]:
    # Every installed distribution's metadata is read: once a process (a build makes all entries).
    return importlib.metadata.packages_distributions()


def _pins(requirements: Path) -> dict[str, tuple[str, str]]:
    """{canonical name: (name as written, version)} of the ``name==version`` lines of requirements.txt."""
    try:
        text = requirements.read_text(encoding="utf-8")
    except OSError:
        return {}
    pins = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;#]+)", line)
        if m:
            pins[canonical(m[1])] = (m[1], m[2])
    return pins


def _named(key: str, pins: dict[str, tuple[str, str]]) -> tuple[str, str]:
    if key in pins:
        return pins[key]
    try:
        dist = importlib.metadata.distribution(key)
    except importlib.metadata.PackageNotFoundError:
        return key, ""
    return dist.metadata["Name"] or key, dist.version
