"""A notebook cache that knows the code the notebook imports.

mkdocs-jupyter keeps executed notebooks in ``.cache/mkdocs-jupyter`` under a
key made from the notebook file and its settings only, so editing a snippet
module the notebook imports would leave stale outputs on the page. Its key
function is wrapped (``journal_tools.compat.jupyter.wrap_cache_key``): the key also
covers every module of ``snippets/`` the notebook imports, directly or through
another snippet. An unchanged rebuild then executes nothing, and editing a
snippet re-executes exactly the notebooks that import it.

Written here rather than taken from a library because mkdocs-jupyter offers no
setting for extra key inputs.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from pathlib import Path

from journal_tools.compat import jupyter


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


# The cached entry holds the rendered HTML, Markdown cells included: the code
# that renders them (and the site's Markdown settings) is part of the key too.
_RENDERERS = ("build/notebooks.py", "readers/markdown_math.py", "readers/mathml.py")  # under journal_tools/


def renderer_digest(markdown_settings: str) -> bytes:
    """sha256 of the modules that render notebook Markdown and the site's Markdown settings."""
    h = hashlib.sha256(markdown_settings.encode())
    here = Path(__file__).parents[1]
    for name in _RENDERERS:
        h.update(name.encode() + b"\0" + (here / name).read_bytes())
    return h.digest()


def install(snippets_dir: Path, markdown_settings: str = "") -> None:
    """Make mkdocs-jupyter's cache key cover the imported snippets and the renderer (idempotent)."""
    renderer = renderer_digest(markdown_settings)

    def with_snippets(original):
        def compute_cache_key(nb_path, config, exec_nb):
            hasher = hashlib.sha256(original(nb_path, config, exec_nb).encode())
            hasher.update(renderer)
            for path in imported_snippets(Path(nb_path), snippets_dir):
                hasher.update(path.name.encode() + b"\0" + path.read_bytes())
            return hasher.hexdigest()

        return compute_cache_key

    jupyter.wrap_cache_key(with_snippets)  # only for a site that has notebooks: 1.3 s of imports
