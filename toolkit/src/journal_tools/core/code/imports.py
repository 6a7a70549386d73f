"""Which snippet modules a page or notebook imports, followed through snippet-to-snippet imports.

The verified record keys a page on them (a snippet edit makes its pages
unverified) and the notebook cache keys a notebook on them.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path


def code_of(notebook: Path) -> str:
    """The code of a notebook: its code cells (``.ipynb``), or the whole jupytext script."""
    if notebook.suffix == ".ipynb":
        cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
        return "\n".join(
            "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells
            if c.get("cell_type") == "code"
        )
    return notebook.read_text(encoding="utf-8")  # a jupytext script is Python


_IMPORT_LINE = re.compile(r"^[ \t>]*(?:from[ \t]+(?P<module>[A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+(?P<names>[\w., \t]+))",
                          re.MULTILINE)


def imported_names_in_text(text: str) -> set[str]:
    """Top-level modules named by the import lines of ``text`` (code in a page, indented or not)."""
    names = set()
    for m in _IMPORT_LINE.finditer(text):
        if m["module"]:
            names.add(m["module"])
        else:
            names.update(n.split()[0].split(".")[0] for n in m["names"].split(",") if n.strip())
    return names


def _imported_names(code: str) -> set[str]:
    names = set()
    try:
        tree = ast.parse(code)
    except SyntaxError:
        # IPython magics in an .ipynb cell, a half-written module: scan its import lines.
        return imported_names_in_text(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def imported_snippets(notebook: Path, snippets_dir: Path | list[Path]) -> list[Path]:
    """The snippet modules ``notebook`` imports, followed through snippet-to-snippet imports."""
    return follow_imports(_imported_names(code_of(notebook)), snippets_dir)


def follow_imports(names: set[str], snippets_dirs: Path | list[Path]) -> list[Path]:
    """The snippet modules among ``names`` (top-level module names) and those they import, in turn."""
    dirs = [snippets_dirs] if isinstance(snippets_dirs, Path) else list(snippets_dirs)
    found: dict[str, Path] = {}
    todo = set(names)
    while todo:
        name = todo.pop()
        path = next((d / f"{name}.py" for d in dirs if (d / f"{name}.py").is_file()), None)
        if name not in found and path is not None:
            found[name] = path
            todo |= _imported_names(path.read_text(encoding="utf-8")) - set(found)
    return [found[name] for name in sorted(found)]
