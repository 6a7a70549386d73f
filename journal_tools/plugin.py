"""The journal's MkDocs plugin (``plugins: [journal]`` in mkdocs.yml).

Loaded by entry point (``mkdocs.plugins``: ``journal``), so MkDocs and
ProperDocs find it in any environment where the package is installed. The
math itself is a Markdown extension (``journal_tools.markdown_math``), so it
also runs on engines that load Python-Markdown extensions but no MkDocs
plugins. What the plugin adds, each part its own module:

- ``validate``: bad post front matter, a missing ``<!-- more -->`` and broken
  snippet includes stop the build naming ``file:line`` (before the blog reads
  anything); a notebook cell or a formula that fails names its file and line;
  MkDocs' warnings about broken links name the line of the link;
- ``figures``: ``<!-- journal:figure module.function | caption -->`` lines
  become inline SVG drawn by snippet code (cached);
- ``notebooks``/``notebook_cache``: notebook pages fit the site, their Markdown
  cells go through the site's Markdown, and their cache knows the snippets
  they import;
- ``feeds``: feed descriptions are the post's rendered excerpt;
- ``verified``: every entry and notebook page says what the last ``make test``
  proved about it, while the page and its code are unchanged since;
- ``fonts``: the math font is copied into the site;
- ``reproducible``: the build date is the last commit's;
- ``theme/``: template overrides, added to the theme's search path here.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority

from journal_tools import feeds, figures, fonts, notebook_cache, notebooks, reproducible, validate, verified
from journal_tools.mathml import MathError
from journal_tools.settings import Settings

__all__ = ["JournalConfig", "JournalPlugin"]

log = logging.getLogger("mkdocs.plugins.journal")
THEME_DIR = Path(__file__).with_name("theme")


class JournalConfig(base.Config):
    """Options of the ``journal`` plugin (all on by default)."""

    check_sources = c.Type(bool, default=True)
    """Stop the build at a post with bad front matter (no date, an impossible date, a
    category outside ``categories_allowed``, no excerpt separator) or a page with a
    broken snippet include, naming the file and line; put the file and line in front of
    MkDocs' broken-link warnings."""

    figures = c.Type(bool, default=True)
    """Replace ``<!-- journal:figure module.function | caption -->`` lines with the SVG
    the snippet function draws at build time."""

    figure_cache = c.Type(bool, default=True)
    """Keep drawn figures in ``.cache/figures/`` beside mkdocs.yml, keyed on the snippet
    code; an unchanged rebuild draws nothing."""

    notebooks = c.Type(bool, default=True)
    """Fit mkdocs-jupyter pages to the site: drop Jupyter's inline CSS, render Markdown
    cells with the site's Markdown (math included), resolve links to ``.md`` sources,
    add an ``.ipynb`` download, and key the notebook cache on imported snippets."""

    feed_descriptions = c.Type(bool, default=True)
    """Give mkdocs-rss-plugin each post's rendered excerpt (MathML, absolute links, no
    repeated title) as its feed description."""

    verified_badge = c.Type(bool, default=True)
    """Under each entry's and notebook's title: "N code blocks ran · M numbers checked ·
    PyTorch X · date" from the last test run (``.cache/verified.json``) when the page,
    the snippets it includes or imports and requirements.txt are unchanged since, else
    "not verified since the last change"."""

    math_font = c.Type(bool, default=True)
    """Copy the math font installed by ``python -m journal_tools.fonts install`` into
    the site (``assets/fonts/``)."""

    pin_build_date = c.Type(bool, default=True)
    """Set ``SOURCE_DATE_EPOCH`` to the last commit's time when unset, so two builds of
    one commit are the same bytes."""


class JournalPlugin(BasePlugin[JournalConfig]):
    """The journal's build-time code, as one MkDocs plugin."""

    settings: Settings
    figure_svgs: dict[str, str]
    verified_record: dict[str, verified.Entry]

    @event_priority(100)  # before mkdocs-rss-plugin and the blog read the build date
    def on_config(self, config):
        """Resolve the settings once; install the theme overrides and notebook renderers."""
        self.settings = Settings.from_config(config)
        self.figure_svgs = {}
        self.verified_record = verified.read_record(self.settings) if self.config.verified_badge else {}
        if self.config.check_sources:
            validate.LinkLocator.install(self.settings.docs_dir, self.settings.root)
        if self.config.pin_build_date:
            reproducible.pin_build_date(self.settings.root)
        # After the user's custom_dir (which may override ours), before the theme's own.
        dirs = config.theme.dirs
        dirs.insert(1 if config.theme.custom_dir else 0, str(THEME_DIR))
        if self.config.notebooks:
            markdown_key = repr((self.settings.markdown_extensions, sorted(map(str, self.settings.mdx_configs.items()))))
            notebook_cache.install(self.settings.snippet_dirs[0], markdown_key)
            notebooks.install_markdown(self.settings)
        return config

    @event_priority(100)  # before the blog plugin (-50) reads the posts
    def on_files(self, files, *, config):
        """Check every Markdown page and draw every figure the build misses (one process)."""
        refs = []
        for file in files.documentation_pages():
            if not file.abs_src_path or not file.src_uri.endswith(".md"):
                continue
            path = Path(file.abs_src_path)
            if self.config.check_sources:
                validate.check_page(path, self.settings)
            if self.config.figures:
                refs += figures.find_figures(path.read_text(encoding="utf-8"), self.settings.rel(path))
        if refs:
            cache = self.settings.cache_dir / "figures" if self.config.figure_cache else None
            try:
                self.figure_svgs = figures.prepare(refs, list(self.settings.snippet_dirs), cache)
            except figures.FigureError as exc:
                raise PluginError(str(exc)) from None
        return files

    @event_priority(-100)  # after mkdocs-jupyter's own on_pre_page gives notebooks their render
    def on_pre_page(self, page, *, config, files):
        """Make a failing formula or notebook cell name its file and line."""
        render = page.render
        rel = self.settings.rel(page.file.abs_src_path) if page.file.abs_src_path else page.file.src_uri

        def checked_render(config, files):
            try:
                return render(config, files)
            except MathError as exc:
                raise PluginError(str(exc.located(rel, _source(page)))) from None
            except Exception as exc:
                if type(exc).__name__ != "CellExecutionError":
                    raise
                raise PluginError(validate.notebook_cell_message(exc, page.file.abs_src_path, rel)) from None

        page.render = checked_render
        return page

    def on_page_markdown(self, markdown, *, page, config, files):
        """Inline the figures this page asks for."""
        if not self.figure_svgs:
            return markdown
        try:
            return figures.expand_figures(markdown, self.figure_svgs, self.settings.rel(page.file.abs_src_path))
        except figures.FigureError as exc:
            raise PluginError(str(exc)) from None

    def on_page_content(self, html, *, page, config, files):
        """Fit notebook pages; hand the feeds each post's excerpt; add the verified badge."""
        if self.config.notebooks and notebooks.is_notebook_page(page):
            html = notebooks.on_page_content(html, page=page, config=config, files=files,
                                             rel=self.settings.rel(page.file.abs_src_path))
        src = Path(page.file.abs_src_path) if page.file.abs_src_path else None
        is_post = src is not None and self.settings.is_post(src)
        if self.config.feed_descriptions and is_post:
            feeds.set_description(page, html, self.settings)  # before the badge: not part of the excerpt
        if self.config.verified_badge and src is not None and (is_post or self.settings.is_notebook(src)):
            html = self._badge(html, src)
        return html

    def _badge(self, html: str, src: Path) -> str:
        rel = self.settings.rel(src)
        entry = self.verified_record.get(rel)
        digest = verified.page_digest(src, self.settings)
        if entry is None or entry.digest != digest:
            log.info(f"{rel}: not verified since the last change (make test runs its code)")
        return verified.add_badge(html, verified.badge_html(entry, digest))

    def on_post_build(self, *, config):
        """Copy the math font into the site."""
        if self.config.math_font and not fonts.copy_to_site(config.site_dir, root=self.settings.root):
            log.info("math font not installed (python -m journal_tools.fonts install): "
                     "pages fall back to the reader's math font")


def _source(page) -> str | None:
    """The page's file as written (front matter included), so lines match the editor."""
    try:
        return page.file.content_string
    except (OSError, TypeError, ValueError):
        return page.markdown
