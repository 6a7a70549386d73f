"""Every post's address as the blog forms it (``post_url_format`` from its date, slug, first category and file name), to find two
posts with one address: the build writes both to one page, and the site silently keeps only one.

The slug is the blog's: ``slug:`` in the front matter, else its ``post_slugify`` of the title MkDocs gives a post before rendering
(``title:``, else a first line ``# Heading``, else the file name). The date is the created day (``yyyy/MM/dd``, the blog's default
``post_url_date_format``). Read once per ``Settings`` object (a build makes its own in ``on_config``, a pytest process one in
``pagetest.state``), a post again only when its file changed, so a build of many entries pays a ``stat`` per post; a post's whole
front matter only when another has its day.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from journal_tools.core.mistake import Mistake
from journal_tools.core.page import frontmatter
from journal_tools.core.page.source import read_source
from journal_tools.core.settings import BlogSettings, Settings

__all__ = ["Address", "of", "taken"]


@dataclass(frozen=True)
class Address:
    """A post's address and the line that gives it its slug (``slug:``, ``title:``, the heading; else ``date:``)."""

    url: str
    line: int
    day: str  # its created day, YYYY-MM-DD


_READ: dict[Path, tuple[tuple[int, int], Address | None]] = {}  # a post -> ((mtime_ns, size) when read, its address)
_DAYS: dict[Path, tuple[tuple[int, int], str | None]] = {}  # a post -> (the same, its created day)
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\n(.*?\n)---[ \t]*\n", re.S)
_DATE_LINE = re.compile(r"^date:[ \t]*(\d{4}-\d{2}-\d{2})[ \t]*$", re.M)
_TAKEN: tuple[Settings, dict[str, tuple[str, Address]]] | None = None  # the settings of this build or session, and its collisions


def taken(path: Path, settings: Settings) -> tuple[str, Address] | None:
    """(the first post, by file name, that has ``path``'s address; ``path``'s Address), or None for a post whose address is its own
    (the first of a collision keeps it: the others are reported)."""
    global _TAKEN
    if _TAKEN is None or _TAKEN[0] is not settings:
        _TAKEN = (settings, _collisions(settings))
    return _TAKEN[1].get(settings.rel(path))


def _collisions(settings: Settings) -> dict[str, tuple[str, Address]]:
    # by name without .md: a copy (entry-2.md) comes after what it copies (entry.md)
    posts = sorted(settings.blog.posts_dir.rglob("*.md"), key=lambda p: p.with_suffix("").as_posix())
    if "{date}" in settings.blog.post_url_format:  # only posts of one day can share an address: most days have one
        days: dict[str | None, list[Path]] = {}
        for path in posts:
            days.setdefault(_day(path, settings), []).append(path)
        sharing = {path for group in days.values() if len(group) > 1 for path in group}
        posts = [path for path in posts if path in sharing]
    first: dict[str, str] = {}
    out = {}
    for path in posts:
        address = of(path, settings)
        if address is not None:
            rel = first.setdefault(address.url, settings.rel(path))
            if rel != settings.rel(path):
                out[settings.rel(path)] = (rel, address)
    return out


def _day(path: Path, settings: Settings) -> str | None:
    """The created day of post ``path``: from a plain ``date: YYYY-MM-DD`` line, a regular expression's work (the front matter is read
    whole only for posts sharing a day, about 0.5 ms a post); from the whole front matter otherwise."""
    def read() -> str | None:
        head = _FRONT.match(path.read_bytes().decode("utf-8", errors="replace"))
        plain = _DATE_LINE.search(head[1]) if head else None
        address = None if plain else of(path, settings)
        return plain[1] if plain else (address.day if address else None)

    return _kept(_DAYS, path, read)


def of(path: Path, settings: Settings) -> Address | None:
    """The address post ``path`` gets (None: the blog cannot read it; its own check names why)."""
    def read() -> Address | None:
        rel = settings.rel(path)
        try:
            text = read_source(path, rel)
            return _form(frontmatter.read(text, rel), text, path, settings.blog)
        except Mistake:  # a post the blog cannot read: its own check names it
            return None

    return _kept(_READ, path, read)


def _kept(store: dict, path: Path, read):
    """``read()``, kept in ``store`` while ``path``'s modification time and size are as they were (None: no such file)."""
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if store.get(path, (None,))[0] != stamp:
            store[path] = (stamp, read())
    except OSError:
        return None
    return store[path][1]


def _form(fm: frontmatter.FrontMatter, text: str, path: Path, blog: BlogSettings) -> Address | None:
    date = fm.data.get("date")
    created = date.get("created") if isinstance(date, dict) else date
    if not isinstance(created, dt.date):
        return None
    slugify = blog.post_slugify or _default_slugify()
    title, line = _title(fm, text, path)
    slug = fm.data.get("slug")
    if slug:
        line = fm.line("slug")
    else:
        slug = slugify(title, blog.post_slugify_separator)
    categories = [slugify(str(c), blog.post_slugify_separator) for c in (fm.data.get("categories") or [])[:1]]
    url = blog.post_url_format.format(date=created.strftime("%Y/%m/%d"), slug=slug, categories="/".join(categories), file=path.stem)
    return Address(posixpath.normpath(url).strip("/"), line, created.strftime("%Y-%m-%d"))


def _title(fm: frontmatter.FrontMatter, text: str, path: Path) -> tuple[str, int]:
    """The title MkDocs gives a page before it is rendered (``Page.title``), and its line."""
    if "title" in fm.data:
        return str(fm.data["title"]), fm.line("title")
    lines = text.split("\n")
    for number in range(fm.body_line, len(lines) + 1):
        line = lines[number - 1].strip()
        if line:
            if line.startswith("# "):
                return line.lstrip("# "), number
            break
    title = path.stem.replace("-", " ").replace("_", " ")
    return (title.capitalize() if title.lower() == title else title), fm.line("date")


def _default_slugify():
    from pymdownx.slugs import slugify

    return slugify(case="lower")
