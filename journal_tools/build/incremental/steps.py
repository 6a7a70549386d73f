"""The cached steps of a build: Markdown render, excerpts, templates, search entries, reading time.

Each step's key is made from everything that step reads:

- **Markdown render** (``Page.render``): the page's final Markdown (after every
  plugin's on_page_markdown), its source path and URL, the Markdown settings,
  the contents of the snippet files it includes, the citations' BibTeX file
  when the page cites (its labels and reference list come from it), the code versions
  (``CodeKey``); plus a *trace* of the link targets the render looked up and
  what each resolved to, checked again before reuse (a page linking to an
  entry whose date, hence URL, changed is rendered again). A render that
  logged anything (a broken link, say) is not kept, so its message is given
  again by the next build.
- **Excerpt** (a post as a view lists it): the same, for the post's excerpt
  Markdown in the view's URL.
- **Template**: a digest of the whole template context (``fingerprint``): the
  page in full, the excerpts a view lists, the navigation, and the site
  (``CodeKey`` with mkdocs.yml and the theme overrides). A context holding a
  value the digest does not know is rendered.
- **Search entries** and **reading time**: the page's HTML (and what else
  the search index reads of the page).
"""

from __future__ import annotations

import logging
from pathlib import Path

from journal_tools.build.incremental import fingerprint
from journal_tools.build.incremental.fingerprint import Uncacheable
from journal_tools.build.incremental.store import MISSING, Store
from journal_tools.compat import blog, pages, search
from journal_tools.readers.includes import included_files

__all__ = ["BuildCaches", "CodeKey", "toolkit_files"]


_VERSIONED = ("mkdocs", "mkdocs-material", "Markdown", "pymdown-extensions", "Pygments", "math-core", "Jinja2",
              "mkdocs-rss-plugin", "journal-tools")


PACKAGE = Path(__file__).resolve().parents[2]  # journal_tools/


def toolkit_files() -> list[Path]:
    """The toolkit's files every key covers: its code, templates, and the stylesheets and script it ships."""
    return [path for path in sorted(PACKAGE.rglob("*"))
            if path.is_file() and path.suffix in {".py", ".html", ".css", ".js"} and "__pycache__" not in path.parts]


class CodeKey:
    """What every key of a build shares: library versions, the toolkit's own files, the site's settings."""

    def __init__(self, config, settings):
        from importlib import metadata

        h = fingerprint.hasher()
        for name in _VERSIONED:
            try:
                h.update(f"{name}={metadata.version(name)}\n".encode())
            except metadata.PackageNotFoundError:
                h.update(f"{name}=none\n".encode())
        for path in toolkit_files():  # an edit to the toolkit (make serve watches it) misses everything
            h.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
        self.code = h.copy().digest()
        h.update(settings.markdown_key().encode())
        h.update(repr((config.use_directory_urls, dict(config.validation.links), config.site_url)).encode())
        self.markdown = h.copy().digest()
        h.update(Path(config.config_file_path).read_bytes())
        for folder in config.theme.dirs:  # overrides (ours, patched, custom_dir); Material's own by version
            root = Path(folder)
            if "site-packages" in root.parts:
                continue
            for path in sorted(root.rglob("*")) if root.is_dir() else ():
                if path.is_file():
                    h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
        self.site = h.digest()


class _RecordingFiles:
    """A Files whose ``get_file_from_path`` answers are noted (the render's link trace)."""

    def __init__(self, files):
        self._files = files
        self.trace: dict[str, tuple | None] = {}

    def get_file_from_path(self, path):
        found = self._files.get_file_from_path(path)
        self.trace[path] = _resolved(found)
        return found

    def __getattr__(self, name):
        return getattr(self._files, name)


def _resolved(file) -> tuple | None:
    return None if file is None else (file.src_uri, file.url)


def _trace_holds(trace: dict, files) -> bool:
    return all(_resolved(files.get_file_from_path(path)) == answer for path, answer in trace.items())


class _Logged(logging.Handler):
    """Notes whether MkDocs logged anything at INFO or above while a step ran."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.any = False

    def emit(self, record):
        self.any = True

    def __enter__(self):
        logging.getLogger("mkdocs").addHandler(self)
        return self

    def __exit__(self, *exc):
        logging.getLogger("mkdocs").removeHandler(self)


class BuildCaches:
    """The cached steps for one build (``begin`` at each build's on_config)."""

    def __init__(self, store: Store):
        self.store = store
        self.uncacheable: dict[str, int] = {}  # why a template was rendered: for the profile and the log

    def begin(self, config, settings) -> None:
        """Start a build: the code and site keys, the per-build memo."""
        self.settings = settings
        self.key = CodeKey(config, settings)
        self._nav: tuple[int, bytes] | None = None
        self.refs: dict | None = None  # reference digests, once pages are rendered (wrap_env)
        self.uncacheable = {}
        self.store.take_counts()

    def _key(self, *parts) -> bytes:
        h = fingerprint.hasher()
        for part in parts:
            data = part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogatepass")
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
        return h.digest()

    def _included(self, markdown: str) -> bytes:
        """Digest of the snippet files ``markdown`` includes (none read for a page without includes)."""
        if "8<-" not in markdown:
            return b""
        paths = included_files(markdown, self.settings)
        return self._key(*(part for p in paths for part in (str(p), p.read_bytes())))

    def _cited(self, markdown: str) -> bytes:
        """Digest of the citations' BibTeX file for Markdown that cites (``[@key]``), else nothing."""
        bib = self.settings.bibliography
        if "[@" not in markdown or bib is None or not bib.is_file():
            return b""
        return self._key(str(bib), bib.read_bytes())

    # -- the journal's own source checks ------------------------------------------------

    def checked(self, path: Path, options, check):
        """``check()`` for the page at ``path`` (it raises on a bad page), reused while the page,
        the snippets it includes and the settings are unchanged; only passing checks are kept."""
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        slot = str(path)
        key = self._key(self.key.site, repr(options), data, self._included(text))
        got = self.store.get("check", slot, key)
        if got is MISSING:
            got = check()
            self.store.put("check", slot, key, got)
        return got

    # -- Markdown render ---------------------------------------------------------------

    def render(self, page, config, files, render) -> None:
        """``render(config, files)`` for ``page``, or its cached result."""
        slot = page.file.src_uri
        key = self._key(self.key.markdown, page.markdown, slot, page.url, page.file.dest_uri, self._included(page.markdown),
                        self._cited(page.markdown))
        got = self.store.get("render", slot, key)
        if got is not MISSING and _trace_holds(got[0], files):
            pages.restore_page_render(page, got[1], files)
            return
        recording = _RecordingFiles(files)
        with _Logged() as logged:
            render(config, recording)
        if not logged.any:
            self.store.put("render", slot, key, (recording.trace, pages.page_render_result(page)))

    # -- excerpts ------------------------------------------------------------------------

    def wrap_excerpt(self, post) -> None:
        """Cache ``post.excerpt.render`` (the blog calls it once per view listing the post)."""
        excerpt = getattr(post, "excerpt", None)
        if excerpt is None or getattr(excerpt.render, "journal_cached", False):
            return
        render = excerpt.render

        def cached(view, separator):
            slot = f"{post.file.src_uri}|{view.url}"
            title_rendered = bool(pages.page_render_result(post)["title"])
            key = self._key(self.key.markdown, post.markdown, post.title, title_rendered, post.url, view.url,
                            separator, self._included(post.markdown), self._cited(post.markdown))
            got = self.store.get("excerpt", slot, key)
            processor = blog.excerpt_relpath(excerpt)
            if got is not MISSING and _trace_holds(got[0], processor.files):
                excerpt.markdown, excerpt.content, excerpt.more, excerpt.toc = got[1]
                return
            files = processor.files
            processor.files = recording = _RecordingFiles(files)
            try:
                with _Logged() as logged:
                    render(view, separator)
            finally:
                processor.files = files
            if not logged.any:
                self.store.put("excerpt", slot, key, (recording.trace, (excerpt.markdown, excerpt.content,
                                                                        excerpt.more, excerpt.toc)))

        cached.journal_cached = True
        excerpt.render = cached

    # -- templates -----------------------------------------------------------------------

    def wrap_env(self, env) -> None:
        """Templates from ``env`` reuse their output while the context's digest is unchanged."""
        get_template = env.get_template
        self.refs = {}  # on_env: every page is rendered, titles and URLs are final

        def cached_get_template(name, *args, **kwargs):
            return _CachedTemplate(get_template(name, *args, **kwargs), self)

        env.get_template = cached_get_template

    def context_key(self, name: str, context: dict) -> bytes:
        """The key of rendering template ``name`` with ``context`` (Uncacheable if it cannot be made)."""
        parts = [self.key.site, name]
        for var in sorted(context):
            value = context[var]
            if var in ("config", "pages"):  # the site key covers config; no template reads `pages` (guard test)
                continue
            if var == "nav":
                if self._nav is None or self._nav[0] != id(value):
                    self._nav = (id(value), fingerprint.nav_digest(value))
                parts += [var, self._nav[1]]
            elif var == "pagination" and callable(value):
                # The blog's pager: made from the view's posts and pagination pages, both in the view's full digest.
                parts += [var, "pager"]
            else:
                try:
                    parts += [var, fingerprint.digest(value, full_pages=var in ("page", "posts"), refs=self.refs)]
                except Uncacheable as exc:
                    raise Uncacheable(f"{exc} in {var}") from None
        return self._key(*parts)

    # -- search entries and reading time ------------------------------------------------------

    def wrap_search(self, config) -> None:
        """Cache the search index's entries per page (its HTML parse is a fifth of a cached build)."""
        index = search.search_index(config)
        if index is None or getattr(index.add_entry_from_context, "journal_cached", False):
            return
        add = index.add_entry_from_context

        def cached(page):
            try:
                # What SearchIndex reads of a page: its HTML, table of contents, URL, title and meta.
                key = self._key(self.key.site, page.content, page.url, page.title,
                                fingerprint.digest((page.toc, page.meta)))
            except Uncacheable:
                return add(page)
            got = self.store.get("search", page.url, key)
            if got is not MISSING:
                index.entries.extend(dict(e) for e in got)
                return None
            before = len(index.entries)
            result = add(page)
            self.store.put("search", page.url, key, [dict(e) for e in index.entries[before:]])
            return result

        cached.journal_cached = True
        index.add_entry_from_context = cached

    def readtime(self, page, html: str, words_per_minute: int) -> int:
        """Material's reading time of ``html`` (what the blog would compute), cached on the HTML."""
        from material.plugins.blog.readtime import readtime

        key = self._key(html, words_per_minute)
        got = self.store.get("readtime", page.file.src_uri, key)
        if got is MISSING:
            got = readtime(html, words_per_minute)
            self.store.put("readtime", page.file.src_uri, key, got)
        return got

    def summary(self) -> str:
        """This build's reuse, for the log: "reused 1,310 of 1,318 steps"."""
        missed = ", ".join(f"{n:,} {step}" for step, n in sorted(self.store.missed.items()))
        hits, misses = self.store.take_counts()
        why = "".join(f"; {n} template(s) rendered for a {t}" for t, n in sorted(self.uncacheable.items()))
        return f"reused {hits:,} of {hits + misses:,} cached steps{f' (made: {missed})' if missed else ''}{why}"


class _CachedTemplate:
    """A Jinja template whose ``render`` returns the last output for the same context digest."""

    def __init__(self, template, caches: BuildCaches):
        self._template, self._caches = template, caches

    def __getattr__(self, name):
        return getattr(self._template, name)

    def render(self, *args, **kwargs):
        """The template's output for this context (rendered, or reused for an equal digest)."""
        context = dict(*args, **kwargs)
        page = context.get("page")
        if page is None:  # sitemap, 404: site-wide, rendered every build
            return self._template.render(context)
        try:
            key = self._caches.context_key(self._template.name, context)
        except Uncacheable as exc:
            counts = self._caches.uncacheable
            counts[str(exc)] = counts.get(str(exc), 0) + 1
            return self._template.render(context)
        slot = f"{self._template.name}|{page.url}"
        got = self._caches.store.get("template", slot, key)
        if got is MISSING:
            got = self._template.render(context)
            self._caches.store.put("template", slot, key, got)
        return got
