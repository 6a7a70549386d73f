"""MkDocs' pages (``mkdocs.structure.pages.Page``, MkDocs 1.6).

MkDocs has no event between a page's Markdown and its HTML that sees the
conversion fail, and mkdocs-jupyter gives notebook pages their HTML by
replacing ``render`` on the page instance. So the plugin wraps that method,
on the instance, as mkdocs-jupyter does: the build calls
``page.render(config, files)`` through the instance.
"""

from __future__ import annotations

__all__ = ["replace_render"]


def replace_render(page, render) -> None:
    """Make the build call ``render(config, files)`` for ``page`` instead of its own render."""
    page.render = render
