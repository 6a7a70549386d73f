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

__all__ = ["DeferredMarkdown", "IdentityPosts", "blog_plugin", "defer_excerpt_markdown", "excerpt_relpath",
           "keep_excerpt_source_only", "read_posts_with_libyaml", "use_identity_posts"]


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
    processor = md.registered("relpath") if isinstance(md, DeferredMarkdown) else md.treeprocessors["relpath"]
    require(processor, "files", "mkdocs", "record the links a cached excerpt resolves")
    return processor


class DeferredMarkdown:
    """``Excerpt.md`` until it is first used: the converter made then, with the tree processors
    registered on it so far.

    Material's ``Excerpt.__init__`` builds a whole Markdown converter for every post at
    every build (``Markdown(extensions=..., extension_configs=...)``, every extension
    constructed, pymdownx's deep-copying their options): 1,000 entries spent a fifth of a
    warm rebuild there. The page cache reuses most excerpts' renders
    (``journal_tools.build.incremental.steps``), and those never touch the converter, so it
    is made only for an excerpt that is rendered.
    """

    def __init__(self, make, args: tuple, kwargs: dict):
        self._make, self._args, self._kwargs = make, args, kwargs
        self._registered: list[tuple[tuple, dict]] = []
        self._real = None
        self.treeprocessors = _Registrations(self)

    def made(self):
        """The real converter (made now if not yet)."""
        if self._real is None:
            real = self._make(*self._args, **self._kwargs)
            for args, kwargs in self._registered:
                real.treeprocessors.register(*args, **kwargs)
            self._real = real
            self.treeprocessors = real.treeprocessors
        return self._real

    def registered(self, name: str):
        """The tree processor registered as ``name``, without making the converter."""
        if self._real is not None:
            return self._real.treeprocessors[name]
        for args, kwargs in self._registered:
            given = dict(zip(("item", "name", "priority"), args), **kwargs)
            if given.get("name") == name:
                return given["item"]
        raise KeyError(name)

    def __getattr__(self, name):  # anything else (convert, reset, toc_tokens): the real converter's
        return getattr(self.made(), name)


class _Registrations:
    """``DeferredMarkdown.treeprocessors`` before the converter exists: ``register`` is noted,
    anything else makes the converter and asks its registry."""

    def __init__(self, md: DeferredMarkdown):
        self._md = md

    def register(self, *args, **kwargs) -> None:
        """Noted, and replayed on the converter when it is made."""
        self._md._registered.append((args, kwargs))

    def __getitem__(self, key):
        return self._md.made().treeprocessors[key]

    def __getattr__(self, name):
        return getattr(self._md.made().treeprocessors, name)


def defer_excerpt_markdown() -> None:
    """Make every Material ``Excerpt``'s converter a :class:`DeferredMarkdown` (idempotent).

    ``Excerpt.__init__`` calls the name ``Markdown`` of its module: while it runs, that
    name gives a DeferredMarkdown instead.
    """
    from material.plugins.blog import structure

    excerpt = require(structure, "Excerpt", "mkdocs-material", "defer the excerpts' Markdown converters")
    if getattr(excerpt.__init__, "journal_deferred", False):
        return
    original_init = excerpt.__init__
    real_markdown = require(structure, "Markdown", "mkdocs-material", "defer the excerpts' Markdown converters")

    def deferred(*args, **kwargs):
        return DeferredMarkdown(real_markdown, args, kwargs)

    def init(self, *args, **kwargs):
        structure.Markdown = deferred
        try:
            original_init(self, *args, **kwargs)
        finally:
            structure.Markdown = real_markdown

    init.journal_deferred = True
    init.journal_original = original_init  # for the guard test's eager converter
    excerpt.__init__ = init


def read_posts_with_libyaml() -> None:
    """Material reads every post's front matter with PyYAML's pure-Python ``SafeLoader`` (the
    name ``SafeLoader`` of ``material.plugins.blog.structure``), at every build: a tenth of a
    warm rebuild at 1,000 entries. MkDocs reads the same front matter with libyaml's
    ``CSafeLoader`` when PyYAML has it (``mkdocs.utils.meta``); the blog is given the same.
    """
    import yaml
    from material.plugins.blog import structure

    loader = require(structure, "SafeLoader", "mkdocs-material", "read the posts' front matter with libyaml")
    if loader is yaml.SafeLoader and hasattr(yaml, "CSafeLoader"):
        structure.SafeLoader = yaml.CSafeLoader
