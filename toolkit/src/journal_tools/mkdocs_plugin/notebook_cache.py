"""mkdocs-jupyter's notebook cache keyed also on what the notebook's code read in its newest observed run (else
on every file under the snippet folders), as they are now: its own key covers the notebook file only.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from journal_tools.compat import jupyter
from journal_tools.core.record.inputs import Inputs, Record, environment
from journal_tools.core.record.verified import PAGE
from journal_tools.core.settings import Settings

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


def code_read(nb_path: Path, settings: Settings, record: Record) -> Inputs:
    """What the notebook's code read in its newest observed run, as it is now (else every snippet file)."""
    rel = settings.rel(nb_path)
    latest = record.latest(PAGE, rel, environment())
    if latest is not None:
        files, folders = list(latest[0].files), list(latest[0].folders)
    else:
        files = [settings.rel(p) for d in settings.snippet_dirs for p in sorted(d.rglob("*"))
                 if p.is_file() and "__pycache__" not in p.parts]
        folders = []
    return Inputs.observe([rel, *files], folders, root=settings.root)


def install(settings: Settings, record: Record) -> None:
    """Make mkdocs-jupyter's cache key cover what the notebook read, and the renderer (idempotent)."""
    renderer = renderer_digest(settings.markdown_key())

    def with_what_it_read(original):
        def compute_cache_key(nb_path, config, exec_nb):
            hasher = hashlib.sha256(original(nb_path, config, exec_nb).encode())
            hasher.update(renderer)
            hasher.update(code_read(Path(nb_path), settings, record).to_json().encode())
            return hasher.hexdigest()

        return compute_cache_key

    jupyter.wrap_cache_key(with_what_it_read)  # only for a site that has notebooks: 1.3 s of imports
