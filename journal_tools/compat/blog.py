"""Material's blog (``material.plugins.blog``, Material 9.8).

Material's blog renders a post's excerpt for every view that lists it (home,
archive, category) by converting the post's whole Markdown and cutting the
HTML at the separator (``Excerpt.render`` reads ``post.markdown`` at each
view): three full conversions of every post, code highlighting included, in
each build (about a third of a warm rebuild here). It has no option to
convert only the excerpt, so the post's ``markdown`` is cut once the post
itself is rendered.
"""

from __future__ import annotations

__all__ = ["keep_excerpt_source_only"]


def keep_excerpt_source_only(page, separator: str) -> None:
    """After a post is rendered, keep only its Markdown up to the excerpt separator.

    Nothing reads a post's Markdown after its own render but those excerpts
    (the feeds get the rendered excerpt from ``journal_tools.feeds``), so the
    rest is dropped; one line after the separator keeps the "Continue
    reading" link.
    """
    head, found, _ = page.markdown.partition(separator)
    if found:
        page.markdown = f"{head}{separator}\n\n..."
