"""mkdocs-jupyter (0.26) and the nbconvert it drives (7.17): the module globals it looks up at each call
(``nbconvert2.HTMLExporter``, ``nbconvert2.SubCell``, ``plugin._compute_cache_key``) replaced, since it has no
setting for a Markdown renderer, a preprocessor or extra cache-key inputs; nbclient's cell error parsed for its
line. The library's own object is kept the first time, so a second install builds on the original.
Imported lazily: mkdocs-jupyter imports nbconvert (about 1.3 s).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath
from types import SimpleNamespace

from journal_tools.compat import CompatError, installed, require
from journal_tools.core.mistake import Mistake

__all__ = ["cache_path", "cell_error_line", "is_cell_error", "notebook_cell_message", "original", "render_detached",
           "replace_exporter", "replace_subcell", "wrap_cache_key"]

DIST = "mkdocs-jupyter"
PLUGIN = "mkdocs-jupyter"  # its name in mkdocs.yml's plugins
_ORIGINALS: dict[str, object] = {}


def _nbconvert2():
    import mkdocs_jupyter.nbconvert2 as nbconvert2

    return nbconvert2


def _plugin_module():
    import mkdocs_jupyter.plugin as plugin

    return plugin


def original(module, name: str, why: str):
    """The library's own ``module.name`` (kept from the first replacement)."""
    key = f"{module.__name__}.{name}"
    if key not in _ORIGINALS:
        _ORIGINALS[key] = require(module, name, DIST, why)
    return _ORIGINALS[key]


def _replace(module, name: str, make, why: str) -> None:
    setattr(module, name, make(original(module, name, why)))


def replace_exporter(make) -> None:
    """``nb2html`` uses ``make(HTMLExporter)`` (a subclass) for every notebook from now on."""
    _replace(_nbconvert2(), "HTMLExporter", make, "render notebook Markdown cells with the site's Markdown")


def replace_subcell(make) -> None:
    """``nb2html`` runs ``make(SubCell)`` (a subclass) as its preprocessor, after execution."""
    _replace(_nbconvert2(), "SubCell", make, "give notebook cells stable ids and merged streams")


def wrap_cache_key(make) -> None:
    """mkdocs-jupyter keys its cache with ``make(its own key function)``: same ``(nb_path, config, exec_nb)``, a hex digest back."""
    _replace(_plugin_module(), "_compute_cache_key", make, "key the notebook cache on imported snippets too")


def _executes(plugin_config, nb_path: str) -> bool:
    """Whether mkdocs-jupyter executes this notebook (``execute``, less ``execute_ignore``), as its on_pre_page decides."""
    return bool(plugin_config["execute"]) and not any(
        PurePath(nb_path).match(p) for p in plugin_config["execute_ignore"] or ())


def cache_path(config, nb_path: str) -> Path | None:
    """Where mkdocs-jupyter keeps this notebook's executed HTML (its own key and path functions); None without its cache."""
    plugin = config.plugins.get(PLUGIN)
    if plugin is None or not plugin.config["cache"]:
        return None
    module = _plugin_module()
    key = require(module, "_compute_cache_key", DIST, "find a notebook's cache entry")(
        nb_path, plugin.config, _executes(plugin.config, nb_path))
    return Path(require(module, "_get_cache_path", DIST, "find a notebook's cache entry")(plugin.config["cache_dir"], key))


def render_detached(render, config, files) -> None:
    """mkdocs-jupyter's ``render`` on a stand-in page: runs the notebook and writes the cache entry, the live page keeping its outputs."""
    func = getattr(render, "__func__", None)
    if func is None:
        raise CompatError(f"{installed(DIST)}: a notebook page's render is no bound method any more; "
                          "journal_tools/compat/jupyter.py runs it on a stand-in page to execute in the background")
    func(SimpleNamespace(), config, files)


# -- nbclient's message of a failing cell --------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELL_FRAME = re.compile(r"Cell In\[\d+\], line (\d+)")


def cell_error_line(script: str, message: str) -> int | None:
    """Script line of the raising statement: the cell source in nbclient's message, found by text, plus IPython's "Cell In[2], line 3"."""
    parts = re.split(r"\n-{18,19}\n", _ANSI.sub("", message))  # 19 dashes around a timed-out cell's preview
    if len(parts) < 2:
        return None
    cell = parts[1].strip("\n")
    pos = script.find(cell) if cell else -1
    if pos < 0:
        first = cell.split("\n", 1)[0].strip()
        pos = script.find(first) if first else -1
        if pos < 0:
            return None
    start = script.count("\n", 0, pos) + 1
    frame = _CELL_FRAME.search(_ANSI.sub("", message))
    return start + int(frame.group(1)) - 1 if frame else start


def is_cell_error(exc: BaseException) -> bool:
    """Is ``exc`` nbclient's ``CellExecutionError`` or ``CellTimeoutError``? By class name: nbclient costs 1 s to import, and nbconvert
    re-exports the classes."""
    return any(cls.__name__ in ("CellExecutionError", "CellTimeoutError") for cls in type(exc).__mro__)


def notebook_cell_message(exc: Exception, abs_src_path: str, rel: str) -> Mistake:
    """The mistake ``notebooks/x.py:12: notebook cell raised NameError: ...`` for nbclient's CellExecutionError."""
    script = Path(abs_src_path).read_text(encoding="utf-8")
    line = cell_error_line(script, str(exc)) if rel.endswith(".py") else None
    timed_out = re.search(r"timed out while it was being executed, after (\d+) seconds", str(exc))
    if timed_out:  # the notebook's execution: timeout:, else the journal's block limit (mkdocs_plugin/notebooks.py)
        return Mistake(rel, line, f"notebook cell ran past its time limit, {timed_out[1]} s, and was stopped")
    reason = f"{getattr(exc, 'ename', 'error')}: {getattr(exc, 'evalue', '')}".rstrip(": ")
    return Mistake(rel, line, f"notebook cell raised {reason}")
