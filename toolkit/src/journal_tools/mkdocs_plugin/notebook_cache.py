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

import hashlib
from pathlib import Path

from journal_tools.compat import jupyter
from journal_tools.core.code.imports import imported_snippets

# The cached entry holds the rendered HTML, Markdown cells included: the code
# that renders them (and the site's Markdown settings) is part of the key too.
_RENDERERS = ("mkdocs_plugin/notebooks.py", "core/markup/markdown_math.py", "core/markup/mathml.py")  # under journal_tools/


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
