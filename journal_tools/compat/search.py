"""Material's search plugin (``material.plugins.search``, Material 9.8).

``SearchIndex.add_entry_from_context(page)`` parses the page's HTML and
appends its sections to ``entries``; a cached page (journal_tools.build.incremental)
appends the entries it made before. The plugin exposes no API for either.
"""

from __future__ import annotations

from journal_tools.compat import require

__all__ = ["search_index"]


def search_index(config):
    """The search plugin's index for this build (its ``entries`` are what it writes), or None."""
    plugin = config.plugins.get("material/search")
    if plugin is None or not plugin.config.enabled:
        return None
    index = getattr(plugin, "search_index", None)
    if index is not None:
        require(index, "entries", "mkdocs-material", "reuse a page's search entries")
        require(index, "add_entry_from_context", "mkdocs-material", "reuse a page's search entries")
    return index
