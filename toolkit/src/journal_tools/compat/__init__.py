"""Every place the journal reaches into another library's internals, in one package.

The toolkit needs a few things MkDocs, Material, mkdocs-jupyter and nbconvert
offer no public way to do. Each such touch (a private name read or called, a
library's class or function replaced, one of its templates edited) lives here, in a function that names what it relies on and why no
public API does it; the rest of ``journal_tools`` calls these functions.
``toolkit/tests/compat/test_compat.py`` has a guard for each: it fails naming the
library, its installed version and what changed, so an upgrade (a Dependabot
pull request) fails CI instead of publishing a broken site. Add a new touch
here, with its guard, never inline in another module (a test checks that no
other module reads a third party's private name or assigns into its modules).

- :mod:`.livereload` (MkDocs' ``LiveReloadServer``): wait for the rebuild
  under way and the visible epoch (``_epoch_cond``, ``_visible_epoch``,
  ``_wanted_epoch``), add the live-reload script to a page of ours
  (``_inject_js_into_html``), ask for a rebuild (``_rebuild_cond``,
  ``_want_rebuild``).
- :mod:`.pages` (MkDocs' ``Page``): a page's ``render`` replaced on the
  instance (a failing formula or notebook cell names its file and line).
- :mod:`.rss` (mkdocs-rss-plugin): its per-build state reset between
  ``mkdocs serve`` rebuilds.
- :mod:`.jupyter` (mkdocs-jupyter and nbconvert): ``nbconvert2.HTMLExporter``
  and ``nbconvert2.SubCell`` replaced, ``plugin._compute_cache_key`` wrapped,
  ``plugin._get_cache_path`` called, a notebook page's ``render`` run on a
  stand-in page.
- :mod:`.theme_patches` (Material's templates): exact-text edits applied to
  the installed templates at build time (``home.html`` is one made from
  ``blog.html``).

Public-named but undocumented APIs the toolkit builds on are guarded by the
same test file without living here: pymdownx.arithmatex's processors
(``journal_tools.core.markup.markdown_math`` subclasses them) and pymdownx.snippets'
``SnippetPreprocessor`` methods (``journal_tools.core.page.includes``).
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["CompatError", "installed", "require"]


class CompatError(RuntimeError):
    """An installed library no longer offers what a compat function relies on."""


def installed(dist: str) -> str:
    """``"mkdocs 1.6.1"``: the distribution and its installed version, for messages."""
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        return f"{dist} (not installed)"


def require(obj, name: str, dist: str, why: str):
    """``obj.name``, or CompatError naming the library's version, the missing name and what needs it."""
    try:
        return getattr(obj, name)
    except AttributeError:
        owner = getattr(obj, "__name__", None) or type(obj).__name__  # a module or class, else an instance's class
        raise CompatError(f"{installed(dist)}: {owner} has no {name!r}, which journal_tools/compat relies on "
                          f"to {why}; check this release's changes and update journal_tools/compat") from None
