"""Every place the journal relies on a third party's private names or unpublished behaviour.

Each function says what it relies on and why no public API does it; each has
a guard test in ``tests/unit/test_compat.py`` that fails, naming the library
and what changed, when an upgrade breaks the assumption. Nothing else in
``journal_tools`` touches an underscore name of MkDocs, Material,
mkdocs-jupyter or nbconvert.
"""

from __future__ import annotations

__all__ = [
    "IdentityPosts",
    "use_identity_posts",
    "blog_plugin",
    "excerpt_relpath",
    "page_render_result",
    "reset_rss_between_builds",
    "restore_page_render",
    "search_index",
]


# -- MkDocs: what Page.render leaves on a page --------------------------------------
# Page.render (MkDocs 1.6) sets content, toc, present_anchor_ids, links_to_anchors
# and the private _title_from_render (the first <h1> of the HTML, which `title`
# prefers). A cached render must set all five, or titles would fall back to the
# Markdown's first heading; MkDocs has no public setter for the rendered title.

def page_render_result(page) -> dict:
    """What ``Page.render`` left on ``page``, to keep (links to anchors by target path)."""
    links = page.links_to_anchors
    return {
        "content": page.content,
        "toc": page.toc,
        "title": page._title_from_render,
        "anchors": set(page.present_anchor_ids or ()),
        "links": None if links is None else {f.src_uri: dict(v) for f, v in links.items()},
    }


def restore_page_render(page, result: dict, files) -> None:
    """Set what ``Page.render`` would have set, from ``page_render_result``'s dict."""
    page.content = result["content"]
    page.toc = result["toc"]
    page._title_from_render = result["title"]
    page.present_anchor_ids = set(result["anchors"])
    if result["links"] is not None:
        page.links_to_anchors = {files.get_file_from_path(uri): dict(v) for uri, v in result["links"].items()}


# -- Material's blog plugin ------------------------------------------------------------

def blog_plugin(config):
    """The enabled ``material/blog`` plugin instance, or None."""
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
    if plugin is not None and not isinstance(plugin.blog.posts, IdentityPosts):
        plugin.blog.posts = IdentityPosts(plugin.blog.posts)


def excerpt_relpath(excerpt):
    """The MkDocs link rewriter inside a Material excerpt's private Markdown converter.

    ``Excerpt.__init__`` builds its own converter (``excerpt.md``) with MkDocs'
    private ``_RelativePathTreeprocessor`` registered as ``relpath``; its
    ``files`` is where link targets are looked up, which a cached excerpt must
    record to know when a link would now resolve differently.
    """
    return excerpt.md.treeprocessors["relpath"]


# -- Material's search plugin ---------------------------------------------------------
# SearchIndex.add_entry_from_context(page) parses the page's HTML and appends
# its sections to ``entries``; a cached page appends the entries it made before.

def search_index(config):
    """The search plugin's index for this build (``.entries`` is the list it writes), or None."""
    plugin = config.plugins.get("material/search")
    if plugin is None or not plugin.config.enabled:
        return None
    return getattr(plugin, "search_index", None)


# -- mkdocs-rss-plugin -------------------------------------------------------------------
# mkdocs-rss-plugin (1.19) makes its per-build lists (the pages it collects, the two
# feeds) in on_startup, which `mkdocs serve` calls once: every rebuild then adds its
# items to the last one's, and an entry whose date (so URL) changed stays in the
# feed at its old URL. Its own on_startup is the reset; it is run again before
# each build after the first.

def reset_rss_between_builds(config, command: str) -> None:
    """Give mkdocs-rss-plugin fresh per-build state (its own on_startup) when an earlier build left some."""
    plugin = config.plugins.get("rss")
    if plugin is not None and getattr(plugin, "pages_to_filter", None):
        plugin.on_startup(command=command, dirty=False)
