"""mkdocs-rss-plugin (1.19): its per-build lists are made in ``on_startup``, which ``mkdocs serve`` calls once,
so its own ``on_startup`` is run again before each later build (else an entry stays at its old URL).
"""

from __future__ import annotations

__all__ = ["reset_between_builds"]


def reset_between_builds(config, command: str) -> None:
    """Give mkdocs-rss-plugin fresh per-build state (its own on_startup) when an earlier build left some."""
    plugin = config.plugins.get("rss")
    if plugin is not None and getattr(plugin, "pages_to_filter", None):
        plugin.on_startup(command=command, dirty=False)
