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

from journal_tools.compat import require

__all__ = ["IdentityPosts", "blog_plugin", "excerpt_relpath", "keep_excerpt_source_only", "use_identity_posts"]


def keep_excerpt_source_only(page, separator: str) -> None:
    """After a post is rendered, keep only its Markdown up to the excerpt separator.

    Nothing reads a post's Markdown after its own render but those excerpts
    (the feeds get the rendered excerpt from ``journal_tools.build.feeds``), so the
    rest is dropped; one line after the separator keeps the "Continue
    reading" link.
    """
    head, found, _ = page.markdown.partition(separator)
    if found:
        page.markdown = f"{head}{separator}\n\n..."


def blog_plugin(config):
    """The enabled ``material/blog`` plugin instance (its posts read), or None."""
    plugin = config.plugins.get("material/blog")
    return plugin if plugin is not None and plugin.config.enabled and hasattr(plugin, "blog") else None


class IdentityPosts(list):
    """The blog's list of posts, with ``in`` by identity.

    Material (9.8) asks ``page not in self.blog.posts`` in its on_page_markdown
    and on_page_content for every page, and ``Page.__eq__`` compares titles,
    which before a page is rendered re-reads its Markdown for the first
    heading: 1,000 entries made two million such comparisons per build (30% of
    a cached build). Each file has one page object and a post equals only
    itself (``__eq__`` also requires the same file), so identity gives the same
    answer.
    """

    def __contains__(self, item) -> bool:
        return any(post is item for post in self)


def use_identity_posts(config) -> None:
    """Replace the blog's post list by an :class:`IdentityPosts` (after the blog's on_files)."""
    plugin = blog_plugin(config)
    if plugin is not None:
        view = plugin.blog
        posts = require(view, "posts", "mkdocs-material", "make the blog's membership test cheap")
        if not isinstance(posts, IdentityPosts):
            view.posts = IdentityPosts(posts)


def excerpt_relpath(excerpt):
    """The MkDocs link rewriter inside a Material excerpt's own Markdown converter.

    ``Excerpt.__init__`` builds its own converter (``excerpt.md``) with MkDocs'
    private ``_RelativePathTreeprocessor`` registered as ``relpath``; its
    ``files`` is where link targets are looked up, which a cached excerpt must
    record to know when a link would now resolve differently.
    """
    md = require(excerpt, "md", "mkdocs-material", "record the links a cached excerpt resolves")
    processor = md.treeprocessors["relpath"]
    require(processor, "files", "mkdocs", "record the links a cached excerpt resolves")
    return processor
