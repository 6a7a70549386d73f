"""Digests of what a page's template (or Markdown render) reads, made so that a change is never missed.

``digest(value)`` walks a value of the template context and feeds a hash with
its type and contents. It knows plain data (text, numbers, dates, lists,
mappings, MkDocs configs), Markup, tables of contents, files, navigation items
and pages. Anything else raises :class:`Uncacheable`, and the caller renders
instead of reusing: an unknown value might be read by a template in a way no
digest of ours foresees.

Pages are digested two ways. The page being rendered (and every excerpt a view
lists) gets a *full* digest: every attribute it holds, so a new attribute set
by a plugin is part of the key without anyone listing it. A page it only
points at (a parent, a previous or next page, the post an excerpt belongs to, a
category) gets a *reference* digest: its kind, title and URL, which is what
Material's templates read of such a page. ``tests/toolkit/unit/test_fingerprint.py``
checks the installed templates still read no more than that.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from pathlib import Path

from markupsafe import Markup
from mkdocs.structure import StructureItem
from mkdocs.structure.files import File
from mkdocs.structure.nav import Navigation
from mkdocs.structure.toc import AnchorLink, TableOfContents

__all__ = ["PLAIN_CLASSES", "SKIPPED_ATTRIBUTES", "Uncacheable", "digest", "hasher", "nav_digest"]

# Attributes of a page no template output depends on: derived from what is
# digested (the Markdown source -> content), build bookkeeping (anchor checks,
# the excerpt's private Markdown converter), or a post's excerpt, which views
# show through their ``posts`` (digested in full there) and whose state depends
# on which view rendered it last. A guard test checks no installed template
# reads ``.markdown`` or ``.excerpt``.
SKIPPED_ATTRIBUTES = frozenset({"markdown", "md", "present_anchor_ids", "links_to_anchors", "excerpt"})

# Classes whose instance attributes are all a template can read of them (their
# properties derive from those attributes): Material's tags as pages list them.
PLAIN_CLASSES = frozenset({
    "material.plugins.tags.structure.tag.Tag",
    "material.plugins.tags.structure.tag.reference.TagReference",
})


class Uncacheable(Exception):
    """A value the fingerprint cannot digest: the step must run."""


def hasher():
    """The hash every key uses."""
    return hashlib.blake2b(digest_size=20)


# The libraries whose output a cached step holds (their version is part of every key).
VERSIONED = ("mkdocs", "mkdocs-material", "Markdown", "pymdown-extensions", "Pygments", "math-core", "Jinja2",
             "mkdocs-rss-plugin", "pybtex", "journal-tools")


PACKAGE = Path(__file__).resolve().parents[2]  # journal_tools/


def toolkit_files() -> list[Path]:
    """The toolkit's files every key covers: its code, templates, and the stylesheets and script it ships."""
    return [path for path in sorted(PACKAGE.rglob("*"))
            if path.is_file() and path.suffix in {".py", ".html", ".css", ".js"} and "__pycache__" not in path.parts]


def toolkit_code() -> bytes:
    """Digest of the versions in VERSIONED and of every file of journal_tools/ (code, templates,
    stylesheets): an edit to the toolkit, or an upgrade, misses every cache keyed on it."""
    from importlib import metadata

    h = hasher()
    for name in VERSIONED:
        try:
            h.update(f"{name}={metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name}=none\n".encode())
    for path in toolkit_files():
        h.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    return h.digest()


def digest(value, *, full_pages: bool = False, refs: dict | None = None) -> bytes:
    """The digest of ``value`` (pages in it by reference unless ``full_pages``).

    ``refs`` memoises reference digests by object (a view lists every post:
    each is digested once per build, not once per view page); pass one only
    while titles and URLs no longer change, i.e. once every page is rendered.
    """
    h = hasher()
    _Walker(h, refs).value(value, full=full_pages)
    return h.digest()


def nav_digest(nav: Navigation) -> bytes:
    """The navigation's shape: every item's kind, title, URL and children, pagination pages included."""
    h = hasher()
    _Walker(h).nav(nav)
    return h.digest()


class _Walker:
    def __init__(self, h, refs: dict | None = None):
        self.h = h
        self.refs = refs
        self.seen: set[int] = set()  # full page digests in progress: a page reached again is a reference

    def put(self, *parts) -> None:
        # repr of a tuple of text, numbers, None and bytes is unambiguous: one update per call.
        data = repr(parts).encode("utf-8", "surrogatepass")
        self.h.update(len(data).to_bytes(8, "little"))
        self.h.update(data)

    def text(self, tag: bytes, data: bytes) -> None:
        # Page HTML runs to tens of kB: hashed as it is, not escaped by repr first.
        self.h.update(tag + len(data).to_bytes(8, "little"))
        self.h.update(data)

    def value(self, v, *, full: bool = False) -> None:  # noqa: C901 - one branch per kind of value, flat
        if v is None or isinstance(v, (bool, int, float)):
            self.put(type(v).__name__, repr(v))
        elif isinstance(v, str):  # Markup included: its text is what renders
            self.text(b"m" if isinstance(v, Markup) else b"s", v.encode("utf-8", "surrogatepass"))
        elif isinstance(v, bytes):
            self.text(b"b", v)
        elif isinstance(v, (dt.date, dt.datetime, dt.time, dt.timedelta)):
            self.put(type(v).__name__, repr(v))
        elif isinstance(v, (list, tuple)):
            self.sequence(v, full)
        elif isinstance(v, (set, frozenset)):
            parts = sorted(digest(item) for item in v)
            self.put("set", len(parts), *parts)
        elif isinstance(v, TableOfContents):
            self.put("toc", len(v.items))
            for link in v.items:
                self.value(link)
        elif isinstance(v, AnchorLink):
            self.put("anchor", v.title, v.id, v.level, len(v.children))
            for child in v.children:
                self.value(child)
        elif isinstance(v, File):
            self.put("file", v.src_uri, v.dest_uri, v.url)
        elif isinstance(v, Navigation):
            self.nav(v)
        elif isinstance(v, StructureItem):
            self.page(v) if full and id(v) not in self.seen else self.reference(v)
        elif isinstance(v, Mapping):  # MkDocs and Material configs, page meta, authors
            self.put("map", type(v).__name__, len(v))
            for key in sorted(v, key=str):
                self.put(key)
                self.value(v[key], full=full)
        elif f"{type(v).__module__}.{type(v).__qualname__}" in PLAIN_CLASSES:
            self.put("obj", type(v).__qualname__)
            self.value(vars(v), full=full)
        else:
            raise Uncacheable(f"{type(v).__module__}.{type(v).__qualname__}")

    def sequence(self, v, full: bool) -> None:
        # A blog view's list of every post it shows, shared by its pagination pages:
        # digested once per build (lists of page references only, while memoising).
        memo = None if self.refs is None or full else self.refs.get(("seq", id(v)))
        if memo is not None and memo[0] is v and memo[1] == len(v):
            self.put(memo[2])
            return
        sub = _Walker(hasher(), self.refs)
        sub.seen = self.seen
        sub.put(type(v).__name__, len(v))
        for item in v:
            sub.value(item, full=full)
        summary = sub.h.digest()
        if self.refs is not None and not full and v and all(isinstance(i, StructureItem) for i in v):
            self.refs[("seq", id(v))] = (v, len(v), summary)
        self.put(summary)

    def reference(self, item: StructureItem) -> None:
        if self.refs is None:
            self.put(repr(_reference_parts(item)))  # the same bytes as a memoised reference
            return
        memo = self.refs.get(id(item))
        if memo is None or memo[0] is not item:
            memo = self.refs[id(item)] = (item, repr(_reference_parts(item)))
        self.put(memo[1])

    def page(self, item: StructureItem) -> None:
        self.seen.add(id(item))
        self.put("page", type(item).__name__, _title(item), getattr(item, "url", None),
                 getattr(item, "canonical_url", None), getattr(item, "edit_url", None))
        chain, parent = [], getattr(item, "parent", None)
        while parent is not None:  # the active trail the navigation highlights
            chain.append(parent)
            parent = getattr(parent, "parent", None)
        self.value(chain)
        for name in sorted(vars(item)):
            value = vars(item)[name]
            if name in SKIPPED_ATTRIBUTES or (callable(value) and hasattr(type(item), name)):
                continue  # (a method replaced on the instance, as the journal wraps ``render``: behaviour, not data)
            self.put(name)
            # A view's lists of posts and views, a post's categories: pages by reference.
            self.value(vars(item)[name])

    def nav(self, nav: Navigation) -> None:
        self.put("nav", len(nav.items))
        for item in nav.items:
            self._nav_item(item)

    def _nav_item(self, item) -> None:
        self.reference(item)
        for page in getattr(item, "pages", None) or ():  # a blog view's pagination pages
            self.reference(page)
        for child in getattr(item, "children", None) or ():
            self._nav_item(child)


def _reference_parts(item) -> tuple:
    """What a template reads of a page it points at: kind, title, URL (a section: its items too)."""
    parts = ("ref", type(item).__name__, _title(item), getattr(item, "url", None))
    children = getattr(item, "children", None)
    if children and not hasattr(item, "file"):  # a section: its items are what a template lists
        parts += tuple(_reference_parts(child) for child in children)
    return parts


def _title(item) -> str | None:
    """A page's title, or None where it has none yet (an excerpt before its first render)."""
    try:
        return item.title
    except AttributeError:
        return None
