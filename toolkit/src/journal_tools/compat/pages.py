"""MkDocs' ``Page`` (1.6): ``render`` wrapped on the instance, as mkdocs-jupyter does, since no event sees a
page's conversion fail.
"""

from __future__ import annotations

__all__ = ["replace_render"]


def replace_render(page, render) -> None:
    """Make the build call ``render(config, files)`` for ``page`` instead of its own render."""
    page.render = render
