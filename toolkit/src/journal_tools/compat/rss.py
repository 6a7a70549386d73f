"""mkdocs-rss-plugin (1.19).

It makes its per-build lists (the pages it collects, the two feeds) in
``on_startup``, which ``mkdocs serve`` calls once: every rebuild then adds its
items to the last one's, and an entry whose date (so URL) changed stays in the
feed at its old URL (found by toolkit/tests/sites/test_serve_equivalence.py). Its own
``on_startup`` is the reset; it is run again before each build after the first.
"""

from __future__ import annotations

__all__ = ["reset_between_builds"]


def reset_between_builds(config, command: str) -> None:
    """Give mkdocs-rss-plugin fresh per-build state (its own on_startup) when an earlier build left some."""
    plugin = config.plugins.get("rss")
    if plugin is not None and getattr(plugin, "pages_to_filter", None):
        plugin.on_startup(command=command, dirty=False)
