"""Guards for the compat touches the incremental build relies on (compat/pages.py, blog.py, search.py, rss.py).

Each drives the library's real code: a small blog built twice with the same
plugin instances, as ``mkdocs serve`` rebuilds it.
"""

from __future__ import annotations

import inspect
import re

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from journal_tools.compat import blog, installed, pages, rss, search

CONFIG = """\
site_name: t
site_url: https://example.org/j/
theme: material
plugins:
  - search
  - journal:
      figures: false
      notebooks: false
      verified_badge: false
      math_font: false
      pin_build_date: false
  - blog:
      categories_allowed: [Attention]
      post_excerpt: required
  - rss:
      match_path: "blog/posts/.*"
      use_git: false
      date_from_meta:
        as_creation: date
        as_update: date
        datetime_format: "%Y-%m-%d"
markdown_extensions:
  - toc:
      permalink: true
  - journal_tools.readers.markdown_math
"""


def expect(condition, dist: str, what: str) -> None:
    if not condition:
        pytest.fail(f"{installed(dist)}: {what}", pytrace=False)


@pytest.fixture
def site(tmp_path):
    (tmp_path / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    posts = tmp_path / "docs" / "blog" / "posts"
    posts.mkdir(parents=True)
    (tmp_path / "docs" / "blog" / "index.md").write_text("# Blog\n", encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text("# Home *page*\n\nSee [the post](blog/posts/a.md).\n", encoding="utf-8")
    for name, day in (("a", "01"), ("b", "02")):
        (posts / f"{name}.md").write_text(f"---\ndate: 2025-01-{day}\ncategories: [Attention]\n---\n\n# Post {name}\n\n"
                                          f"Head of {name}, see [home](../../index.md).\n\n<!-- more -->\n\nTail.\n", encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    config.plugins.on_startup(command="serve", dirty=False)  # one set of plugin instances for every build
    return tmp_path, config


def _feed_items(site_dir) -> int:
    return (site_dir / "feed_rss_created.xml").read_text(encoding="utf-8").count("<item>")


def test_a_restored_render_is_the_render(site):
    root, config = site
    config = load_config(str(root / "mkdocs.yml"))

    def page():
        return Page(None, File("index.md", config.docs_dir, config.site_dir, config.use_directory_urls), config)

    rendered = page()
    rendered.read_source(config)
    files = Files([rendered.file])
    rendered.render(config, files)
    kept = pages.page_render_result(rendered)
    restored = page()
    restored.read_source(config)
    pages.restore_page_render(restored, kept, files)
    expect(restored.title == rendered.title == "Home page", "mkdocs",
           f"a restored render's title is {restored.title!r}, the render's {rendered.title!r}: Page.render no longer "
           "keeps the rendered title in _title_from_render (journal_tools/compat/pages.py)")
    for name in ("content", "present_anchor_ids"):
        expect(getattr(restored, name) == getattr(rendered, name), "mkdocs", f"Page.render sets {name} differently now")
    expect([a.id for a in restored.toc] == [a.id for a in rendered.toc], "mkdocs", "Page.render's toc is not what compat keeps")
    expect(set(vars(rendered)) <= set(vars(restored)) | {"markdown", "meta"}, "mkdocs",
           f"Page.render now sets {sorted(set(vars(rendered)) - set(vars(restored)))}, which a cached render does not restore")


def test_the_blog_keeps_identity_posts_and_asks_membership_of_them(site):
    root, config = site
    from material.plugins.blog.plugin import BlogPlugin

    for event in (BlogPlugin.on_page_markdown, BlogPlugin.on_page_content):
        expect("page not in self.blog.posts" in inspect.getsource(event), "mkdocs-material",
               f"{event.__qualname__} no longer asks 'page not in self.blog.posts': compat.blog.IdentityPosts may be moot")
    build(config)
    plugin = blog.blog_plugin(config)
    expect(plugin is not None, "mkdocs-material", "the blog plugin has no 'blog' view after a build")
    posts = plugin.blog.posts
    expect(isinstance(posts, blog.IdentityPosts) and len(posts) == 2, "mkdocs-material",
           "the blog replaced its post list after on_files: the identity list is no longer the one it asks")
    first = posts[0]
    expect(first in posts and Page(first.title, first.file, config) not in posts, "mkdocs-material", "identity membership")
    blog.use_identity_posts(config)  # a second call keeps the same list
    assert plugin.blog.posts is posts


def test_an_excerpt_resolves_links_through_its_relpath_files(site):
    root, config = site
    build(config)
    post = blog.blog_plugin(config).blog.posts[0]
    processor = blog.excerpt_relpath(post.excerpt)
    seen = []
    real = processor.files

    class Recording:
        def get_file_from_path(self, path):
            seen.append(path)
            return real.get_file_from_path(path)

        def __getattr__(self, name):
            return getattr(real, name)

    processor.files = Recording()
    try:
        post.excerpt.render(post.parent, "<!-- more -->")
    finally:
        processor.files = real
    expect("index.md" in seen, "mkdocs-material",
           f"an excerpt's links were looked up as {seen}, not through excerpt.md's relpath processor's files")


def test_search_entries_are_appended_by_add_entry_from_context(site):
    root, config = site
    build(config)
    index = search.search_index(config)
    expect(index is not None, "mkdocs-material", "the search plugin keeps no search_index")
    page = blog.blog_plugin(config).blog.posts[0]
    before = len(index.entries)
    index.add_entry_from_context(page)
    expect(len(index.entries) > before and all("location" in e for e in index.entries[before:]), "mkdocs-material",
           "SearchIndex.add_entry_from_context no longer appends the page's sections to entries")


def test_rss_state_is_fresh_at_each_rebuild(site):
    root, config = site
    build(config)
    first = _feed_items(root / "site")
    rss.reset_between_builds(config, "serve")
    build(config)
    expect(first == 2 and _feed_items(root / "site") == first, "mkdocs-rss-plugin",
           f"a rebuild's feed has {_feed_items(root / 'site')} items, the first build's {first}")


def test_rss_keeps_its_per_build_lists_from_on_startup():
    from mkdocs_rss_plugin.plugin import GitRssPlugin

    source = inspect.getsource(GitRssPlugin.on_startup)
    expect(all(re.search(rf"self\.{name}\b.*=", source) for name in ("pages_to_filter", "feed_created", "feed_updated")),
           "mkdocs-rss-plugin", "on_startup no longer makes pages_to_filter and the feeds: compat.rss.reset_between_builds "
           "must reset them another way (or no longer needs to)")


def test_an_excerpt_makes_its_converter_only_when_rendered_and_renders_the_same(site):
    """compat.blog.defer_excerpt_markdown: Excerpt.__init__ builds its converter through its module's
    name ``Markdown``; the deferred one renders what Material's own renders."""
    root, config = site
    from material.plugins.blog import structure

    build(config)  # the journal plugin defers every excerpt's converter (page_cache is on by default)
    blog.defer_excerpt_markdown()  # a second call changes nothing
    init = structure.Excerpt.__init__
    assert not getattr(init.journal_original, "journal_deferred", False)
    expect("Markdown(" in inspect.getsource(init.journal_original), "mkdocs-material",
           "Excerpt.__init__ no longer builds its converter with Markdown(...): compat.blog.DeferredMarkdown may be moot")
    for post in blog.blog_plugin(config).blog.posts:
        files = Files([post.file])
        excerpt = structure.Excerpt(post, config, files)
        expect(isinstance(excerpt.md, blog.DeferredMarkdown), "mkdocs-material",
               "Excerpt.__init__ no longer takes its converter from its module's Markdown name")
        expect(excerpt.md._real is None, "mkdocs-material", "Excerpt.__init__ now uses its converter, not only registers on it")
        relpath = blog.excerpt_relpath(excerpt)  # found without making the converter
        assert excerpt.md._real is None and hasattr(relpath, "files")
        excerpt.render(post, "<!-- more -->")
        assert excerpt.md._real is not None and excerpt.md.treeprocessors["relpath"] is relpath

        eager = structure.Excerpt.__new__(structure.Excerpt)
        init.journal_original(eager, post, config, files)  # Material's own, a real converter
        eager.render(post, "<!-- more -->")
        assert not isinstance(eager.md, blog.DeferredMarkdown)
        assert (excerpt.content, excerpt.more, [a.id for a in excerpt.toc]) == (eager.content, eager.more, [a.id for a in eager.toc])
        assert "Head of" in excerpt.content and "Tail." not in excerpt.content


def test_the_blog_reads_front_matter_with_libyaml_as_mkdocs_does(site):
    root, config = site
    import yaml
    from material.plugins.blog import structure
    from mkdocs.utils import meta

    blog.read_posts_with_libyaml()
    expect(structure.SafeLoader is getattr(yaml, "CSafeLoader", yaml.SafeLoader), "mkdocs-material",
           "the blog's module no longer reads posts through its name SafeLoader")
    expect(meta.SafeLoader is structure.SafeLoader, "mkdocs", "MkDocs reads page front matter with another loader now")
    build(config)
    post = blog.blog_plugin(config).blog.posts[0]
    assert str(post.meta["date"]) in ("2025-01-02", "2025-01-01") and post.meta["categories"] == ["Attention"]
