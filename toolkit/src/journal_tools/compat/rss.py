"""mkdocs-rss-plugin (1.19): its per-build lists are made in ``on_startup``, which ``mkdocs serve`` calls once,
so its own ``on_startup`` is run again before each later build (else an entry stays at its old URL).
"""

from __future__ import annotations

__all__ = ["logo_under_site_url", "reset_between_builds"]

FAVICON = "assets/images/favicon.png"  # Material's default favicon, in every built site


def reset_between_builds(config, command: str) -> None:
    """Give mkdocs-rss-plugin fresh per-build state (its own on_startup) when an earlier build left some."""
    plugin = config.plugins.get("rss")
    if plugin is not None and getattr(plugin, "pages_to_filter", None):
        plugin.on_startup(command=command, dirty=False)


def logo_under_site_url(config) -> None:
    """The feed logo, when mkdocs.yml sets none, as the favicon under site_url (which comes from the environment, so
    mkdocs.yml cannot spell the logo's URL); run before the plugin's own on_config, which reads ``image`` (unset, the
    1.19 feed says ``<url>None</url>``)."""
    plugin = config.plugins.get("rss")
    if plugin is not None and not plugin.config.get("image") and config.site_url:
        plugin.config["image"] = config.site_url.rstrip("/") + "/" + FAVICON
