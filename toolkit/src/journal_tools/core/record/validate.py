"""Checks that stop the build at the line to edit, where the blog, pymdownx.snippets and nbclient name no line:
a post's date, categories, authors, excerpt separator and ``make new`` placeholders; every snippet include. The page
tests run the same post checks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from journal_tools.core.mistake import Mistake
from journal_tools.core.page import address, frontmatter
from journal_tools.core.page.frontmatter import FrontMatterError
from journal_tools.core.page.includes import IncludeError, expand
from journal_tools.core.page.source import read_source
from journal_tools.core.settings import Settings

__all__ = ["PLACEHOLDER", "InputError", "check_address", "check_page", "check_post"]

# Every placeholder ``make new`` writes into an entry starts with this marker (journal_tools.commands.new_entry uses it): a post that is
# published while one is still there fails at its line. A draft may keep them: it is not published.
PLACEHOLDER = "Placeholder (make new):"


class InputError(Mistake):
    """A source file the build cannot use, at its line; ``readable``: the page still renders, so ``make serve`` serves it under a panel."""

    readable = False
    front_matter = False  # a post's front matter: the blog cannot read the post (it has no date, say)


# The blog engine's own check of a post's metadata: [(key, error), ...] for (front matter, path).
# With Material that is journal_tools.compat.blog.post_errors; the core names no engine.
MetadataCheck = Callable[[dict, str], list]


def check_post(text: str, rel: str, settings: Settings, engine_check: MetadataCheck | None = None) -> None:
    """FrontMatterError naming ``rel`` and line for a post the blog would reject (``engine_check``: the blog engine's metadata check)."""
    fm = frontmatter.read(text, rel)
    if not fm.present:
        unclosed = text.removeprefix("\ufeff").startswith("---")
        raise FrontMatterError(rel, 1, "front matter opened here is never closed (a --- line after it)" if unclosed
                               else "post has no front matter (--- date: YYYY-MM-DD --- at the top)")
    if fm.data.get("date") is None:
        raise fm.error("date", "post has no date (add `date: YYYY-MM-DD` to its front matter)")
    _check_dates(fm)
    if engine_check is not None:
        for key, error in engine_check(fm.data, fm.path):
            raise fm.error(key, f"{key}: {error} (the blog plugin's check of a post's front matter)")
    blog = settings.blog
    categories = fm.data.get("categories") or []
    if blog.categories and blog.categories_allowed:
        for n, category in enumerate(categories):
            if category not in blog.categories_allowed:
                raise fm.error(f"categories.{n}", f"category {category!r} is not in categories_allowed of "
                                                  f"mkdocs.yml ({', '.join(blog.categories_allowed)})")
    _check_authors(fm, settings)
    if blog.excerpt_required and blog.excerpt_separator not in text:
        line = _after_first_paragraph(text.split("\n"), fm.body_line - 1)
        raise FrontMatterError(rel, line, f"post has no excerpt separator {blog.excerpt_separator}: put it "
                                          "after the opening paragraph (the blog shows what comes before it)")
    if fm.data.get("draft") is not True:
        _check_no_placeholder(text, rel)


def check_address(path: Path, settings: Settings) -> None:
    """FrontMatterError at the line giving post ``path`` its slug when a post before it (by file name) has its address: the build writes
    both to one page. Never kept in a page's record: another post may take the address at any time."""
    found = address.taken(path, settings)
    if found is not None:
        first, mine = found
        raise FrontMatterError(settings.rel(path), mine.line, f"this entry's address {mine.url}/ is also {first}'s (the same date and "
                                                              "slug): the site would keep only one of the two. Give this entry a "
                                                              "`slug:` of its own in its front matter, or another title")


def _check_authors(fm: frontmatter.FrontMatter, settings: Settings) -> None:
    """Every author a post names is in the authors file; else an error at ``authors:`` naming the file and its ids."""
    blog, named = settings.blog, fm.data.get("authors")
    if not blog.authors or blog.authors_file is None or not isinstance(named, list):
        return
    known = blog.author_names()
    if known is None:  # a file that is not YAML: the blog's own error names it
        return
    for name in named:
        if name not in known:
            where = settings.rel(blog.authors_file)
            has = f"which has: {', '.join(known)}" if known else (
                "which names no author" if blog.authors_file.is_file() else "which does not exist")
            raise fm.error("authors", f"author {name!r} is not in {where}, {has}")


def _check_no_placeholder(text: str, rel: str) -> None:
    """A published post holds no scaffold placeholder: named at its first line, the others counted."""
    lines = [n for n, line in enumerate(text.split("\n"), 1) if PLACEHOLDER in line]
    if lines:
        more = f" (also at line{'s' if len(lines) > 2 else ''} {', '.join(map(str, lines[1:]))})" if lines[1:] else ""
        raise FrontMatterError(rel, lines[0], f"placeholder text of make new is still here{more}: replace it with "
                                              "the entry's own, or keep `draft: true` in the front matter until then")


def _check_dates(fm: frontmatter.FrontMatter) -> None:
    date = fm.data["date"]
    for key, value in [(f"date.{k}", v) for k, v in date.items()] if isinstance(date, dict) else [("date", date)]:
        frontmatter.as_date(fm, key)
        if isinstance(value, str):  # '2025-07-27' in quotes: a string, which the blog refuses
            raise fm.error(key, f"{key} {value!r} is quoted: write it without quotes, as a YAML date")


def _after_first_paragraph(lines: list[str], start: int) -> int:
    """The 1-based line just after the first paragraph at or after ``start`` (0-based)."""
    i = start
    while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
        i += 1
    while i < len(lines) and lines[i].strip():
        i += 1
    return min(i, len(lines) - 1) + 1


def check_page(path: Path, settings: Settings, engine_check: MetadataCheck | None = None) -> None:
    """The build's checks for one Markdown page: post front matter, then includes."""
    rel = settings.rel(path)
    try:
        text = read_source(path, rel)
        if settings.is_post(path):
            check_address(path, settings)  # first, as the page tests check it (before their record)
            check_post(text, rel, settings, engine_check)
        if "8<-" in text:
            expand(text, rel, settings)
    except Mistake as exc:  # the page's front matter, its text, an include
        error = InputError.like(exc)
        error.readable = isinstance(exc, IncludeError)
        error.front_matter = isinstance(exc, FrontMatterError)
        raise error from None
