"""Checks that stop the build at the file and line to edit.

mkdocs-material's blog plugin rejects a bad post with the file but no line
("Error reading metadata of post 'blog/posts/x.md' in 'docs': month must be in
1..12"), pymdownx.snippets fails a missing or escaping include with a
traceback that names the snippet but not the page, and nbclient reports a
failing notebook cell without the notebook. The plugin runs these first and
stops with ``docs/blog/posts/x.md:2: ...``:

- every post has ``date:`` (a date, or ``{created, updated}``), each a real
  ``YYYY-MM-DD`` date; every category is in the blog's ``categories_allowed``;
  with ``post_excerpt: required``, the excerpt separator is there; a post that
  is not a draft (``draft: true``) holds none of ``make new``'s placeholder text;
- every snippet include of every Markdown page resolves (the one include
  expander, as the page tests use it);
- a notebook cell that raises names the notebook and line;
- MkDocs' own link warnings ("Doc file 'x.md' contains a link 'y.md', but the
  target is not found ...") get the file and line in front
  (:class:`LinkLocator`, a filter on MkDocs' page logger).

The same post checks run in each page's own doc-test (``pagetest``), so a
mistake is one failing test there too.
"""

from __future__ import annotations

import copy
import logging
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from journal_tools.readers import frontmatter
from journal_tools.readers.frontmatter import FrontMatterError
from journal_tools.readers.includes import IncludeError, expand
from journal_tools.readers.settings import Settings
from journal_tools.readers.source import SourceError, read_source

__all__ = ["PLACEHOLDER", "InputError", "LinkLocator", "check_page", "check_post", "cell_error_line", "locate_link"]

# Every placeholder ``make new`` writes into an entry starts with this marker
# (journal_tools.commands.new_entry uses it): a post that is published while one
# is still there fails at its line. A draft may keep them: it is not published.
PLACEHOLDER = "Placeholder (make new):"


class InputError(PluginError):
    """A source file the build cannot use; the message starts with ``path:line:``."""


def check_post(text: str, rel: str, settings: Settings) -> None:
    """Raise FrontMatterError naming ``rel`` and the line for a post the blog would reject."""
    fm = frontmatter.read(text, rel)
    if not fm.present:
        unclosed = text.removeprefix("\ufeff").startswith("---")
        raise FrontMatterError(rel, 1, "front matter opened here is never closed (a --- line after it)" if unclosed
                               else "post has no front matter (--- date: YYYY-MM-DD --- at the top)")
    if fm.data.get("date") is None:
        raise fm.error("date", "post has no date (add `date: YYYY-MM-DD` to its front matter)")
    _check_dates(fm)
    _check_as_the_blog_does(fm)
    blog = settings.blog
    categories = fm.data.get("categories") or []
    if blog.categories and blog.categories_allowed:
        for n, category in enumerate(categories):
            if category not in blog.categories_allowed:
                raise fm.error(f"categories.{n}", f"category {category!r} is not in categories_allowed of "
                                                  f"mkdocs.yml ({', '.join(blog.categories_allowed)})")
    if blog.excerpt_required and blog.excerpt_separator not in text:
        line = _after_first_paragraph(text.split("\n"), fm.body_line - 1)
        raise FrontMatterError(rel, line, f"post has no excerpt separator {blog.excerpt_separator}: put it "
                                          "after the opening paragraph (the blog shows what comes before it)")
    if fm.data.get("draft") is not True:
        _check_no_placeholder(text, rel)


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


def _check_as_the_blog_does(fm: frontmatter.FrontMatter) -> None:
    """The blog plugin's own validation of a post's metadata (its ``PostConfig``), on the
    keys it reads, as it does; each error at the line of its key instead of the file only."""
    from material.plugins.blog.structure.config import PostConfig

    config = PostConfig(fm.path)
    config.load_dict(copy.deepcopy({key: value for key, value in fm.data.items() if key in config}))
    errors, _warnings = config.validate()
    for key, error in errors:
        raise fm.error(key, f"{key}: {error} (the blog plugin's check of a post's front matter)")


def _after_first_paragraph(lines: list[str], start: int) -> int:
    """The 1-based line just after the first paragraph at or after ``start`` (0-based)."""
    i = start
    while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
        i += 1
    while i < len(lines) and lines[i].strip():
        i += 1
    return min(i, len(lines) - 1) + 1


def check_page(path: Path, settings: Settings) -> None:
    """The build's checks for one Markdown page: post front matter, then includes."""
    rel = settings.rel(path)
    try:
        text = read_source(path, rel)
        if settings.is_post(path):
            check_post(text, rel, settings)
        if "8<-" in text:
            expand(text, rel, settings)
    except (SourceError, FrontMatterError, IncludeError) as exc:
        raise InputError(str(exc)) from None


# -- notebook pages (mkdocs-jupyter) ------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELL_FRAME = re.compile(r"Cell In\[\d+\], line (\d+)")


def cell_error_line(script: str, message: str) -> int | None:
    """Line in the script of the statement that raised, from nbclient's message.

    The message holds the cell's source between two dashed lines, then
    IPython's traceback ("Cell In[2], line 3"). A percent script keeps code
    cells verbatim, so the cell is found by its text.
    """
    parts = _ANSI.sub("", message).split("\n------------------\n")
    if len(parts) < 2:
        return None
    cell = parts[1].strip("\n")
    pos = script.find(cell) if cell else -1
    if pos < 0:
        first = cell.split("\n", 1)[0].strip()
        pos = script.find(first) if first else -1
        if pos < 0:
            return None
    start = script.count("\n", 0, pos) + 1
    frame = _CELL_FRAME.search(_ANSI.sub("", message))
    return start + int(frame.group(1)) - 1 if frame else start


def notebook_cell_message(exc: Exception, abs_src_path: str, rel: str) -> str:
    """``notebooks/x.py:12: notebook cell raised NameError: ...`` for nbclient's CellExecutionError."""
    script = Path(abs_src_path).read_text(encoding="utf-8")
    line = cell_error_line(script, str(exc)) if rel.endswith(".py") else None
    where = f"{rel}:{line}" if line else rel
    reason = f"{getattr(exc, 'ename', 'error')}: {getattr(exc, 'evalue', '')}".rstrip(": ")
    return f"{where}: notebook cell raised {reason}"


# -- MkDocs' link warnings ------------------------------------------------------

_LINK_WARNING = re.compile(r"^Doc file '(?P<file>[^']+)' contains (?:a|an [\w ]+?) link (?:to )?'(?P<link>[^']+)'")


def locate_link(message: str, docs_dir: Path, root: Path) -> str:
    """``docs/x.md:12: Doc file 'x.md' contains a link ...``: MkDocs' warning with the
    file (relative to ``root``) and the line where the link is written; unchanged
    when it is no link warning or the link is not found in the file."""
    m = _LINK_WARNING.match(message)
    if m is None:
        return message
    path = docs_dir / m["file"]
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError:
        return message
    link = m["link"]
    for needle in (f"]({link}", f"]: {link}", f'"{link}"', f"({link})", link):
        pos = text.find(needle)
        if pos >= 0:
            line = text.count("\n", 0, pos) + 1
            try:
                rel = path.resolve().relative_to(root).as_posix()
            except ValueError:
                rel = str(path)
            return f"{rel}:{line}: {message}"
    return message


class LinkLocator(logging.Filter):
    """Puts ``file:line:`` in front of MkDocs' link warnings (a filter on ``mkdocs.structure.pages``)."""

    LOGGER = "mkdocs.structure.pages"

    def __init__(self, docs_dir: Path, root: Path):
        super().__init__()
        self.docs_dir, self.root = Path(docs_dir), Path(root).resolve()

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message in place; never drops a record."""
        if record.levelno >= logging.INFO:
            located = locate_link(record.getMessage(), self.docs_dir, self.root)
            if located is not record.getMessage():
                record.msg, record.args = located, ()
        return True

    @classmethod
    def install(cls, docs_dir: Path, root: Path) -> LinkLocator:
        """Install one locator on MkDocs' page logger, replacing any from an earlier build."""
        logger = logging.getLogger(cls.LOGGER)
        for old in [f for f in logger.filters if isinstance(f, cls)]:
            logger.removeFilter(old)
        locator = cls(docs_dir, root)
        logger.addFilter(locator)
        return locator
