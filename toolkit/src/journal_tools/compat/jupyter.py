"""mkdocs-jupyter (0.26) and the nbconvert it drives (7.17).

mkdocs-jupyter's ``nb2html`` builds nbconvert's ``HTMLExporter`` and its
``SubCell`` preprocessor itself, with no setting for the Markdown renderer or
for extra preprocessors, and its notebook cache is keyed by a private function
with no setting for extra key inputs. All three are looked up as module
globals at each call (``mkdocs_jupyter.nbconvert2.HTMLExporter``,
``mkdocs_jupyter.nbconvert2.SubCell``, ``mkdocs_jupyter.plugin._compute_cache_key``),
so replacing those globals is the one way in. A failing cell is reported by
nbclient's ``CellExecutionError``, whose message text is parsed here for the
notebook line (:func:`notebook_cell_message`). The library's own object is
kept the first time, so installing again (every ``mkdocs serve`` rebuild, a
test) builds on the original, never on an earlier replacement.

Imported lazily: mkdocs-jupyter imports nbconvert (about 1.3 s), needed only
by a site with notebooks.
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
    """mkdocs-jupyter keys its cache with ``make(its own key function)``: same arguments
    ``(nb_path, config, exec_nb)``, a hex digest back."""
    _replace(_plugin_module(), "_compute_cache_key", make, "key the notebook cache on imported snippets too")


def _executes(plugin_config, nb_path: str) -> bool:
    """Whether mkdocs-jupyter executes this notebook (``execute``, less ``execute_ignore``), as its on_pre_page decides."""
    return bool(plugin_config["execute"]) and not any(
        PurePath(nb_path).match(p) for p in plugin_config["execute_ignore"] or ())


def cache_path(config, nb_path: str) -> Path | None:
    """Where mkdocs-jupyter keeps (or will keep) this notebook's executed HTML; None without its cache.

    The same key and path its ``on_pre_page`` computes (its private key and
    path functions, the key as wrapped by :func:`wrap_cache_key`).
    """
    plugin = config.plugins.get(PLUGIN)
    if plugin is None or not plugin.config["cache"]:
        return None
    module = _plugin_module()
    key = require(module, "_compute_cache_key", DIST, "find a notebook's cache entry")(
        nb_path, plugin.config, _executes(plugin.config, nb_path))
    return Path(require(module, "_get_cache_path", DIST, "find a notebook's cache entry")(plugin.config["cache_dir"], key))


def render_detached(render, config, files) -> None:
    """Run a notebook page's mkdocs-jupyter ``render`` on a stand-in page: it executes the
    notebook and writes the cache entry, leaving the live page alone.

    mkdocs-jupyter's render (a function bound to the page in its
    ``on_pre_page``) only sets ``content``, ``toc`` and ``title`` on its first
    argument besides writing the cache, so the background execution of
    ``make serve`` runs it on a stand-in while the live page keeps its
    previous outputs.
    """
    func = getattr(render, "__func__", None)
    if func is None:
        raise CompatError(f"{installed(DIST)}: a notebook page's render is no bound method any more; "
                          "journal_tools/compat/jupyter.py runs it on a stand-in page to execute in the background")
    func(SimpleNamespace(), config, files)


# -- nbclient's message of a failing cell --------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELL_FRAME = re.compile(r"Cell In\[\d+\], line (\d+)")


def cell_error_line(script: str, message: str) -> int | None:
    """Line in the script of the statement that raised, from nbclient's message.

    The message holds the cell's source between two dashed lines, then
    IPython's traceback ("Cell In[2], line 3"). A percent script keeps code
    cells verbatim, so the cell is found by its text.
    """
    parts = _ANSI.sub("", message).split("\n------------------\n")
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
    """Is ``exc`` nbclient's ``CellExecutionError`` (a notebook cell raised while mkdocs-jupyter executed it)?

    Matched by class name: nbclient is imported only by a build with notebook pages
    (about 1 s), and mkdocs-jupyter may raise nbconvert's re-export of the class."""
    return any(cls.__name__ == "CellExecutionError" for cls in type(exc).__mro__)


def notebook_cell_message(exc: Exception, abs_src_path: str, rel: str) -> Mistake:
    """The mistake ``notebooks/x.py:12: notebook cell raised NameError: ...`` for nbclient's CellExecutionError."""
    script = Path(abs_src_path).read_text(encoding="utf-8")
    line = cell_error_line(script, str(exc)) if rel.endswith(".py") else None
    reason = f"{getattr(exc, 'ename', 'error')}: {getattr(exc, 'evalue', '')}".rstrip(": ")
    return Mistake(rel, line, f"notebook cell raised {reason}")
