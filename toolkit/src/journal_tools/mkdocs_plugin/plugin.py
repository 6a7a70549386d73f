"""The journal's MkDocs plugin (``plugins: [journal]``, by entry point): each concern is its own module
(toolkit/DEVELOPING.md); this one wires them to MkDocs' events. Serve's additions are ``journal-serve``.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.base import ValidationError
from mkdocs.config.config_options import BaseConfigOption
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.toc import TableOfContents
from mkdocs.utils import get_relative_url

from journal_tools.compat import blog, jupyter, mkdocs_config, mkdocs_log, pages, rss, theme_patches
from journal_tools.core import judge
from journal_tools.core.code import figures
from journal_tools.core.code.sandbox import Sandbox
from journal_tools.core.markup import citations, crossrefs, formula_glyphs, markdown_math
from journal_tools.core.markup.mathml import MathError
from journal_tools.core.mistake import Mistake, SeveralMistakes
from journal_tools.core.page import includes, limits
from journal_tools.core.record import code_reads, mistakes, validate, verified
from journal_tools.core.record.inputs import Inputs, Record
from journal_tools.core.record.mistakes import Mistakes
from journal_tools.core.settings import Settings
from journal_tools.mkdocs_plugin import (
    a11y,
    build_date,
    downloads,
    editors,
    feeds,
    fonts,
    nbids,
    nbtoc,
    notebook_cache,
    notebooks,
    outputs,
    preview,
    prose,
    published_address,
    search_text,
    series,
    site_assets,
    slim,
)

__all__ = ["JournalConfig", "JournalPlugin"]

log = logging.getLogger("mkdocs.plugins.journal")
THEME_DIR = Path(__file__).with_name("theme")


class Seconds(BaseConfigOption[float]):
    """A plugin option holding a time limit in seconds (a number above 0)."""

    def __init__(self, default: float):
        super().__init__()
        self.default = default

    def run_validation(self, value) -> float:
        """The value as float seconds; MkDocs reports a bad one with the option's name."""
        try:
            return limits.seconds(value)
        except ValueError as exc:
            raise ValidationError(str(exc)) from None


class JournalConfig(base.Config):
    """Options of the ``journal`` plugin."""

    block_timeout = Seconds(default=limits.DEFAULT_TIMEOUT)
    """The time limit, in seconds, of each code block (each notebook cell) the page tests and
    ``make serve`` run; a page sets its own with ``timeout: 120`` in its front matter. A block
    past it fails naming its line, and the run goes on (``journal_tools/core/code/sandbox.py``)."""

    unindexed_boxes = c.ListOfItems(c.Type(str), default=[])
    """Titles of boxes every page of a series repeats (``!!! info "Attention from scratch: part 1 of 3"``): an admonition
    whose title starts with one is left out of search, as one of class ``series`` always is
    (``mkdocs_plugin/search_text.py``)."""


class JournalPlugin(BasePlugin[JournalConfig]):
    """The journal's build-time code, as one MkDocs plugin."""

    settings: Settings
    figure_svgs: dict[str, str]
    record: Record  # the record of passed checks: the badges
    math_codepoints: set[int]  # what this build's MathML uses: the site's font subset
    serving = False
    kept_downloads: dict  # make serve: each post's download under its digest, kept across rebuilds
    # What the log last said (serve: kept across rebuilds, said again only when it changes).
    _unverified_said: list[str] | None = None  # the pages not verified since their last change (said at the first build)
    _uncited_said: list[str] | None = None  # the BibTeX entries no page cites
    # Draws the build-time figures: (refs, snippet dirs, cache dir) -> {target: svg}. The serve
    # plugin sets its warm worker's drawing here under ``mkdocs serve``.
    draw_figures = None
    # The journal files an entry's code read, for its downloads to carry: (page path relative to the journal root, "docs/blog/posts/x.md")
    # -> [Path or downloads.ReadFile relative to the root]. Set by whoever knows them (the record of what the page tests observed the code
    # open); None: no files, and a download whose code reads one fails where it reads it.
    files_read = None
    _sandbox = None  # make build: the page-code worker (figures, and chains no record says what they read); make serve has its own
    # Where a page's own mistake goes instead of stopping the build: (page source, Mistake) -> None.
    # The serve plugin sets it under ``mkdocs serve``, so one broken page breaks only itself (it is
    # served under a panel naming the mistake); unset, in make build, every mistake stops the build.
    page_mistake = None

    def on_startup(self, *, command, dirty):
        """Note whether MkDocs serves (defining this also keeps one plugin instance across rebuilds)."""
        self.serving = command == "serve"
        self.kept_downloads = {}
        self.post_addresses: dict[str, tuple] = {}  # make serve: each post's last address (dest_uri, path, url)
        self.notebook_numbers: dict[str, list] = {}  # prose.notebook_mismatches' answers, by what the notebook read

    @event_priority(100)  # before mkdocs-rss-plugin and the blog read the build date
    def on_config(self, config):
        """Resolve the settings once; install the theme overrides, the toolkit's assets and notebook renderers."""
        wrong = published_address.problems(config, config.config_file_path)
        if wrong:  # before anything is built: nothing with a placeholder address gets published
            raise PluginError("\n".join(wrong))
        self.settings = mkdocs_config.from_config(config)
        rss.reset_between_builds(config, "serve" if self.serving else "build")
        rss.logo_under_site_url(config)
        self.figure_svgs = {}
        self.math_codepoints = set()
        self.formula_glyphs = formula_glyphs.Pages()  # what each page's formulas need from the served font
        self.download_keys: dict[Path, str] = {}  # make serve: what each post's download is made of, once a build
        self.record = Record(self.settings.root)
        mkdocs_log.LinkLocator.install(self.settings.docs_dir, self.settings.root)
        build_date.pin_build_date(self.settings.root, serving=self.serving)
        # After the user's custom_dir (which may override ours), before the theme's own.
        dirs = config.theme.dirs
        at = 1 if config.theme.custom_dir else 0
        try:
            patched = theme_patches.patched_dir(self.settings.cache_dir / "theme")
        except theme_patches.PatchError as exc:
            raise PluginError(str(exc)) from None
        dirs[at:at] = [str(THEME_DIR), str(patched)]
        site_assets.link(config)  # every page links the stylesheets and script on_files adds
        self._anchor_bibliography(config)
        if "mkdocs-jupyter" in config.plugins:
            notebook_cache.install(self.settings, self.record)
            notebooks.install_markdown(self.settings)
            nbids.install()  # cell ids from the cells, stdout merged after execution: same bytes every build
        return config

    def _anchor_bibliography(self, config) -> None:
        """The options core's Settings resolved, for the build's own Markdown: the citations' BibTeX file as an absolute path (the
        build does not depend on the working folder), and the math font every formula must be drawn with."""
        options = config.mdx_configs.get(citations.listed_name(config.mdx_configs))
        if options is not None and self.settings.bibliography is not None:
            options["bibliography"] = str(self.settings.bibliography)
        for name in markdown_math.NAMES:
            if "font" in self.settings.mdx_configs.get(name, {}):
                config.mdx_configs.setdefault(name, {})["font"] = self.settings.mdx_configs[name]["font"]

    def on_pre_build(self, *, config):
        """Start this build's record of the cited keys and of its render mistakes."""
        self.cited = citations.Cited()
        self.render_mistakes = Mistakes()
        (self.settings.cache_dir / mistakes.TOLD).unlink(missing_ok=True)
        self.unverified: list[str] = []  # this build's pages whose verified badge says "not verified"
        self.broken_includes: set[Path] = set()  # make serve: pages rendered without their failing includes
        self.failed_renders: set[Path] = set()  # make serve: pages served under their panel, never under a "Verified" badge
        self.reference_problems: dict[str, Mistake] = {}  # a page's unresolved reference, by source: its render fails with it

    @event_priority(100)  # before the blog plugin (-50) reads the posts
    def on_files(self, files, *, config):
        """Add the toolkit's assets; check every Markdown page and draw every figure the build misses (one process)."""
        site_assets.add_files(files, config)
        refs, checks = [], Mistakes()
        for file in files.documentation_pages():
            if not file.abs_src_path or not file.src_uri.endswith(".md"):
                continue
            path = Path(file.abs_src_path)
            try:
                refs += self._checked_page(path)
            except validate.InputError as exc:  # the other pages are checked too: every mistake in one build
                if self.page_mistake is None or not (exc.readable or exc.front_matter):
                    checks.add(exc, judge.node_id(self.settings.rel(path), judge.PAGE))
                    continue
                self._serve_broken(file, exc)  # make serve: the page breaks only itself
                refs += figures.find_figures(path.read_text(encoding="utf-8"), self.settings.rel(path))
        self.series, problems = series.collect(self.settings)
        for mistake, test in problems:  # make build: with the other mistakes; make serve: the page breaks alone, under its panel
            if self.page_mistake is None:
                checks.add(mistake, test)
            else:
                self.page_mistake(self.settings.root / mistake.path, mistake)
                self.failed_renders.add(self.settings.root / mistake.path)  # never under a "Verified" badge
        for index in self.series.index_files(config):
            files.append(index)
        if refs:
            draw = self.draw_figures or self._draw_figures
            self.figure_svgs = draw(refs, list(self.settings.snippet_dirs), self.record)
            for mistake in figures.mistakes(refs, self.figure_svgs, self.settings.root):
                if self.page_mistake is None:  # make build: every figure that failed, with the other mistakes, in one error
                    checks.add(mistake, judge.node_id(mistake.path, judge.FIGURES))
                else:  # make serve: the page breaks alone, under its panel
                    self.page_mistake(self.settings.root / mistake.path, mistake)
        self._stop_if_any(checks)
        return files

    def _serve_broken(self, file, mistake: validate.InputError) -> None:
        """make serve: a page with its own mistake is served under its panel (broken include left out; refused post as a draft)."""
        from mkdocs.structure.files import InclusionLevel

        path = Path(file.abs_src_path)
        if mistake.readable:
            self.broken_includes.add(path)
        else:
            file.inclusion = InclusionLevel.DRAFT
            if file.src_uri in self.post_addresses:  # as the blog sets a post's address (its _resolve_post)
                file.dest_uri, file.abs_dest_path, file.url = self.post_addresses[file.src_uri]
            mistake = validate.InputError(mistake.path, mistake.line, f"{mistake.problem} (make serve shows the post "
                                          f"at {file.url} until then: its address comes from its front matter)")
        self.page_mistake(path, mistake)

    def _checked_page(self, path: Path) -> list:
        """Check one page's sources and find its figures."""
        validate.check_page(path, self.settings, blog.post_errors)
        return figures.find_figures(path.read_text(encoding="utf-8"), self.settings.rel(path))

    @event_priority(-60)  # after the blog's on_files (-50) gave posts their URLs and on_nav marked those left out
    def on_nav(self, nav, *, config, files):
        """Each entry's downloads (linking posts' URLs), none for a left-out post; make serve notes post addresses (kept if one breaks)."""
        # make serve keeps each post's download under a digest of what it is made of
        made = downloads.add_files(files, config, self.settings, self._download_key,
                                   self.kept_downloads if self.serving else None, self.files_read or self._files_read)
        self.downloads = downloads.drop_left_out(made, files)
        if self.page_mistake is not None:
            from mkdocs.structure.files import InclusionLevel

            self.post_addresses.update({  # every post the blog placed (not a broken one: the draft level)
                f.src_uri: (f.dest_uri, f.abs_dest_path, f.url) for f in files.documentation_pages(inclusion=lambda i: True)
                if f.inclusion != InclusionLevel.DRAFT and f.abs_src_path and self.settings.is_post(Path(f.abs_src_path))})
        return nav

    @event_priority(-100)  # after mkdocs-jupyter's own on_pre_page gives notebooks their render
    def on_pre_page(self, page, *, config, files):
        """Make a failing formula or notebook cell name its file and line."""
        render = page.render
        rel = self.settings.rel(page.file.abs_src_path) if page.file.abs_src_path else page.file.src_uri

        def checked_render(config, files):
            problem = self.reference_problems.pop(page.file.src_uri, None)
            if problem is not None:
                return self._render_failed(page, problem, f"{rel}::render")
            try:
                return render(config, files)
            except (MathError, citations.CitationError) as exc:
                return self._render_failed(page, exc.located(rel, _source(page)), self._test_of(exc, rel))
            except Exception as exc:
                if not jupyter.is_cell_error(exc):
                    raise
                return self._render_failed(page, jupyter.notebook_cell_message(exc, page.file.abs_src_path, rel),
                                           judge.node_id(rel, judge.NOTEBOOK))

        pages.replace_render(page, checked_render)
        return page

    @staticmethod
    def _test_of(exc: Exception, rel: str) -> str:
        """The page test that reports a render mistake of page ``rel`` (an unreadable BibTeX file: its own test, whoever cited it)."""
        return judge.node_id(exc.rel, judge.BIBLIOGRAPHY) if isinstance(exc, citations.BibError) else judge.node_id(rel, judge.RENDER)

    def _render_failed(self, page, mistake: Mistake, test: str) -> None:
        """A failed render: noted, given empty content; the build stops in on_env (make serve: served, its panel says why it is empty)."""
        if self.page_mistake is not None and page.file.abs_src_path:
            self.page_mistake(Path(page.file.abs_src_path), mistake)
            self.failed_renders.add(Path(page.file.abs_src_path))
            # The blog renders a post's whole Markdown again for its excerpt, on every page listing it.
            excerpt = _renderable_excerpt(page.markdown, mistake, _source(page), self.settings)
            page.markdown = excerpt  # a documented attribute: what the blog's excerpt renders
        else:
            self.render_mistakes.add(mistake, test)
        page.content, page.toc = "", TableOfContents([])

    def on_env(self, env, *, config, files):
        """Stop at all render mistakes; else cache compiled templates (a third of a warm rebuild was compiling Material's templates)."""
        import jinja2

        self._stop_if_any(self.render_mistakes)
        folder = self.settings.cache_dir / "jinja"
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return env  # a read-only tree builds without the bytecode cache
        env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
        return env

    def on_page_markdown(self, markdown, *, page, config, files):
        """Numbers in the text as readers see them; inline the figures this page asks for (make serve: leave out the includes that
        fail)."""
        if page.file.abs_src_path and Path(page.file.abs_src_path) in self.broken_includes:
            markdown = includes.without_failing_includes(markdown, self.settings)
        if page.file.abs_src_path and not notebooks.is_notebook_page(page):
            rel, source = self.settings.rel(page.file.abs_src_path), _source(page) or ""
            first_line = source.count("\n", 0, len(source) - len(markdown)) + 1 if source.endswith(markdown) else 1
            try:
                markdown = crossrefs.resolve(markdown, rel, self.settings.root, first_line)
            except crossrefs.ReferenceProblem as exc:  # the page's render fails with it (on_pre_page's checked_render)
                self.reference_problems[page.file.src_uri] = exc
        if page.file.src_uri.endswith(".md") and page.file.abs_src_path:  # after the references: their lines are the source's
            markdown, missing = prose.shown_markdown(markdown, Path(page.file.abs_src_path), self.settings, self.record,
                                                     self._worker, check_written=not self.serving)  # serve's worker checks them
            for mistake, test in missing:  # a filled number with no value, a wrong one: make serve's panel, else the build stops
                if self.page_mistake is not None:
                    self.page_mistake(Path(page.file.abs_src_path), mistake)
                else:
                    self.render_mistakes.add(mistake, test)
        if not self.figure_svgs or not page.file.abs_src_path:  # a generated page (a series index) has no figures
            return markdown
        try:
            return figures.expand_figures(markdown, self.figure_svgs, self.settings.rel(page.file.abs_src_path))
        except figures.FigureError as exc:
            raise PluginError(str(exc)) from None

    @event_priority(50)  # before the blog's (it computes a post's reading time from this HTML) and the feeds'
    def on_page_content(self, html, *, page, config, files):
        """Fit notebook pages; mark the editors' words; hand the feeds each post's excerpt; add the verified badge; mark outputs."""
        self.cited.note(html)  # the uncited list, on_post_build
        if notebooks.is_notebook_page(page):
            rel = self.settings.rel(page.file.abs_src_path)
            try:
                html = notebooks.on_page_content(html, page=page, config=config, files=files, rel=rel)
            except citations.CitationError as exc:
                self._render_failed(page, exc, self._test_of(exc, rel))
                return ""
            html = a11y.label_notebook_outputs(html)  # printed outputs: named, keyboard-reachable scroll boxes
            self._check_notebook_numbers(page, rel)
            nbtoc.align_toc(html, page.toc)  # TOC entries land on the headings' real ids
        src = Path(page.file.abs_src_path) if page.file.abs_src_path else None
        is_post = src is not None and self.settings.is_post(src)
        html, has_editors = editors.mark(html)  # their words styled as theirs; the page (and its feed item) says so
        if is_post:  # before the badge and the notice: not part of the excerpt
            feeds.set_description(page, html, self.settings, editors.notice_html() if has_editors else "")
            preview.describe(page, html, self.settings, config.site_name)
        if has_editors:
            html = editors.add_notice(html)  # under the title, the date and badge (added next) above it
        part = self.series.part(self.settings.rel(src)) if src is not None else None
        if part is not None:  # the box after the excerpt (a notebook: under its title and badge), the pager at the end
            separator = self.settings.blog.excerpt_separator if self.settings.blog is not None else None
            box = self.series.box(part, page, files)
            html = (html.replace(separator, f"{separator}\n{box}", 1) if separator and separator in html
                    else verified.add_badge(html, box)) + self.series.pager(part, page, files)
        if src is not None and (is_post or self.settings.is_notebook(src)):
            html = self._badge(html, src, page, files, downloads.links_html(self.downloads.get(src), page.url))
        return outputs.mark_outputs(html)

    def _check_notebook_numbers(self, page, rel: str) -> None:
        """A rendered notebook's written numbers its code contradicts: make serve's panel, else the build stops at each, under the
        notebook's page test (make test then shows one failure)."""
        src = Path(page.file.abs_src_path)
        if not page.content:  # its render failed: that is its mistake
            return
        for mistake in prose.notebook_mismatches(src, self.settings, self.record, self._worker, self.notebook_numbers):
            if self.page_mistake is not None:
                self.page_mistake(src, mistake)
            else:
                self.render_mistakes.add(mistake, judge.node_id(rel, judge.NOTEBOOK))

    @event_priority(50)  # before the search plugin indexes the page; after the blog counted its words (hidden text is no reading)
    def on_page_context(self, context, *, page, config, nav):
        """Formulas as words, not their MathML text, for the search index (taken out of the page again: on_post_page); the
        series' boxes left out of it."""
        page.content = search_text.unindexed_boxes(search_text.searchable_math(page.content),
                                                   self.config.unindexed_boxes)
        return context

    def _badge(self, html: str, src: Path, page, files, links: str = "") -> str:
        """Under the title: a post's date, the verified badge (linked to the page that explains it, if any), ``links``."""
        entry = None if src in self.failed_renders else verified.proved(self.record, src, self.settings)
        if entry is None:
            self.unverified.append(self.settings.rel(src))
        checks = files.get_file_from_path(verified.CHECKS_PAGE)
        href = get_relative_url(checks.url, page.url) if checks is not None else None
        date = preview.published(page)
        top = verified.date_html(date) if date is not None else ""
        return verified.add_badge(html, top + verified.badge_html(entry, href) + links)

    def _list_unverified(self) -> None:
        """One line for the pages unverified since their last change, at a build and make serve's first (later saves say what changed)."""
        pages = sorted(set(self.unverified))
        if pages and self._unverified_said is None:
            names = ", ".join(pages[:3]) + (f" and {len(pages) - 3:,} more" if len(pages) > 3 else "")
            log.info(f"not verified since the last change (make test runs the code): {names}")
        self._unverified_said = pages

    def _worker(self) -> Sandbox:
        """make build's page-code worker: figures are drawn there, and the judge runs there the chains the record has no answer for."""
        if self._sandbox is None:
            self._sandbox = Sandbox()
        return self._sandbox

    def _close_worker(self) -> None:
        """Stop the build's worker, if it started (a build in a long-lived process must not leave one behind)."""
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    def on_build_error(self, *, error):
        """A build that stops at a mistake stops its worker too."""
        self._close_worker()

    def _draw_figures(self, refs: list, dirs: list[Path], record: Record) -> dict[str, str]:
        """make build: every figure, from the record or drawn in the build's worker."""
        return figures.prepare(refs, dirs, record, lambda targets, d, root, limit: figures.draw_in(
            self._worker(), targets, d, root, self.settings.block_timeout))

    def _files_read(self, rel: str) -> list[Path]:
        """Data files an entry's code reads: from its chains' records; a chain with none is judged now (``make build``: run once,
        recorded for the page tests), or its newest record is taken (make serve: its worker judges the page after the build)."""
        return code_reads.files_read(self.record, self.settings.root / rel, self.settings, None if self.serving else self._worker())

    def _download_key(self, src: Path) -> str:
        """What a post's download is made of, once per page per build: the page, its includes, each snippet-folder file, names and bytes."""
        if src not in self.download_keys:
            snippets = [self.settings.rel(p) for d in self.settings.snippet_dirs for p in sorted(d.rglob("*"))
                        if p.is_file() and "__pycache__" not in p.parts]
            read = Inputs.observe([*verified.read_by_tests(src, self.settings), *snippets], root=self.settings.root)
            self.download_keys[src] = read.to_json()
        return self.download_keys[src]

    @event_priority(-100)  # last: every other plugin's change to the page is in
    def on_post_page(self, output, *, page, config):
        """The page's final HTML (excerpt views included): its maths noted for the font subset, slimmed."""
        where = self.settings.rel(page.file.abs_src_path) if page.file.abs_src_path else page.url
        return self._final_html(search_text.unsearchable(output), where)

    def on_post_template(self, output_content, *, template_name, config):
        """Static HTML templates (404.html) like pages; sitemap.xml left alone."""
        return self._final_html(output_content, template_name) if template_name.endswith(".html") else output_content

    def _final_html(self, html: str, where: str) -> str:
        html = a11y.number_formulas(html)
        self.math_codepoints |= fonts.math_codepoints(html)
        self.formula_glyphs.add(where, html)
        return slim.unwrap_plain_code_spans(html)

    def on_post_build(self, *, config):
        """Minify the stylesheets; copy the math font into the site, cut to what its formulas use."""
        self._close_worker()
        slim.minify_css(config.site_dir, list(map(str, config.extra_css)), config.docs_dir)  # make serve too: what make build publishes
        self._list_uncited()
        self._list_unverified()
        served = fonts.copy_to_site(config.site_dir, root=self.settings.root, codepoints=self.math_codepoints)
        if not served:
            log.info("math font not installed (python -m journal_tools.mkdocs_plugin.fonts install): "
                     "pages fall back to the reader's math font")
        # A formula the served font cannot draw whole stops the build, naming its page.
        problems = self.formula_glyphs.check(fonts.font_files(self.settings.root), served)
        if problems:
            raise PluginError("\n".join(problems))

    def _stop_if_any(self, found: Mistakes) -> None:
        """Stop the build with every mistake noted, as MkDocs reports a plugin's error (no traceback); each is listed with its page test."""
        try:
            found.stop_if_any(self.settings.cache_dir / mistakes.TOLD)
        except SeveralMistakes as exc:
            raise PluginError(str(exc)) from None

    def _list_uncited(self) -> None:
        """Name the BibTeX entries this build cited nowhere (INFO: a notice that never fails --strict)."""
        path = self.settings.bibliography
        if path is None or not path.is_file():
            return
        try:
            bib = citations.load(path)
        except citations.BibError as exc:
            raise PluginError(str(exc)) from None
        lines = [f"{bib.rel}:{line}: entry {key!r} is cited by no page of this build" for line, key in self.cited.uncited(bib)]
        if lines != self._uncited_said:  # make serve: said again only when it changes, not at every save
            for text in lines:
                log.info(text)
        self._uncited_said = lines


def _renderable_excerpt(markdown: str, mistake: Mistake, source: str | None, settings: Settings) -> str:
    """make serve, a failed post render: its excerpt as written when the mistake is past the separator, else nothing (its title alone)."""
    separator = settings.blog.excerpt_separator if settings.blog is not None else None
    line = mistake.included_at[1] if mistake.included_at else mistake.line
    if not separator or separator not in markdown or source is None or line is None:
        return ""
    at = next((n for n, text in enumerate(source.split("\n"), 1) if separator in text), None)
    return markdown.split(separator, 1)[0] + separator if at is not None and line > at else ""


def _source(page) -> str | None:
    """The page's file as written (front matter included), so lines match the editor."""
    try:
        return page.file.content_string
    except (OSError, TypeError, ValueError):
        return page.markdown
