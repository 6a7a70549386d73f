"""Series of entries, from front matter: ``series: attention-from-scratch`` and ``part: 2`` in an entry's front matter (in a notebook's
``# jupyter:`` header, where jupytext keeps its metadata); every series declared once, with its title, in ``.series.yml`` beside the
blog's authors file (data, not settings: adding a series does not change mkdocs.yml, which every page's record reads).

A part naming an undeclared series, a part that is not a number from 1, and two parts with one number are :class:`SeriesError` at
the front matter key's line (of two parts with one number, the one whose path sorts later: one mistake, one failure).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from journal_tools.core.mistake import Mistake
from journal_tools.core.page import frontmatter
from journal_tools.core.settings import Settings

__all__ = ["FILE", "Part", "SeriesError", "check", "check_page", "declared", "file_of", "part_of", "parts", "series_file"]

FILE = ".series.yml"
_HEADING = re.compile(r"^#[ \t]+(?P<title>.+?)[ \t#]*$", re.MULTILINE)


class SeriesError(Mistake):
    """A series key of a page's front matter (or of the series file) that cannot be used, at its line."""


@dataclass(frozen=True)
class Part:
    """One page of a series: its path (relative to the journal's root), series, number and the lines of those keys, title."""

    path: str
    series: str
    number: int
    series_line: int
    part_line: int
    title: str
    date: dt.date | None = None  # a post's (its creation date), shown on the index page


def series_file(settings: Settings) -> Path:
    """Where the series are declared: beside the blog's authors file, else at the top of the docs folder."""
    if settings.blog is not None and settings.blog.authors_file is not None:
        return settings.blog.authors_file.parent / FILE
    return settings.docs_dir / FILE


def declared(settings: Settings) -> dict[str, dict]:
    """{name: {"title": ..., "description": ...}} of the series file (none without one); SeriesError at its line."""
    path = series_file(settings)
    if not path.is_file():
        return {}
    rel = settings.rel(path)
    try:  # the front-matter reader gives each key's line
        fm = frontmatter.read(f"---\n{path.read_text(encoding='utf-8')}---\n", rel)
    except frontmatter.FrontMatterError as exc:
        raise SeriesError(rel, max(1, (exc.line or 2) - 1), exc.problem.replace("front matter", rel)) from None
    lines = {key: line - 1 for key, line in fm.lines.items()}  # less the --- line added above
    for name, entry in fm.data.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("title"), str):
            raise SeriesError(rel, lines.get(name, 1), f"series {name!r} needs a title: `{name}:` then `  title: ...` "
                                                       "(and `  description: ...`)")
    return fm.data


def _as_markdown(text: str) -> str:
    """A jupytext percent script's header and Markdown cells as Markdown, line for line ("# ---" as "---")."""
    return "\n".join(line[2:] if line.startswith("# ") else "" if line == "#" else line for line in text.split("\n"))


def part_of(text: str, rel: str, notebook: bool = False) -> Part | None:
    """The series part ``text`` (page ``rel``) declares, or None; SeriesError at the key for a part without a number."""
    if "series:" not in text:
        return None
    fm = frontmatter.read(_as_markdown(text) if notebook else text, rel)
    keys = fm.data.get("jupyter") if notebook else fm.data
    prefix = "jupyter." if notebook else ""
    if not isinstance(keys, dict) or keys.get("series") is None:
        return None
    name, number = keys["series"], keys.get("part")
    if not isinstance(name, str):
        raise SeriesError(rel, fm.line(f"{prefix}series"), "series: the name of a series (as .series.yml declares it)")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise SeriesError(rel, fm.line(f"{prefix}part", fm.line(f"{prefix}series")),
                          f"a part of series {name!r} needs `part: N`, its place in the series (1, 2, ...), not {number!r}")
    heading = _HEADING.search(_as_markdown(text) if notebook else frontmatter.body(text))
    title = fm.data.get("title") or (heading["title"] if heading else Path(rel).stem)
    date = fm.data.get("date")
    date = date.get("created") if isinstance(date, dict) else date
    return Part(rel, name, number, fm.line(f"{prefix}series"), fm.line(f"{prefix}part"), str(title),
                date if isinstance(date, dt.date) else None)


def file_of(path: Path, settings: Settings) -> Part | None:
    """The part the page at ``path`` declares, or None."""
    return part_of(path.read_text(encoding="utf-8-sig"), settings.rel(path), settings.is_notebook(path))


def parts(settings: Settings, problems: list | None = None) -> list[Part]:
    """Every part of every series in the docs folder, by path; a page whose own part cannot be read is left out (its SeriesError added
    to ``problems``; other mistakes of its front matter are its own checks')."""
    found = []
    for path in sorted(settings.docs_dir.rglob("*")):
        if path.suffix == ".md" or settings.is_notebook(path):
            try:
                part = file_of(path, settings)
            except SeriesError as exc:
                if problems is not None:
                    problems.append(exc)
                continue
            except (Mistake, UnicodeError):
                continue
            if part is not None:
                found.append(part)
    return found


def check(part: Part, every: list[Part], series: dict[str, dict], settings: Settings) -> None:
    """SeriesError when ``part``'s series is not declared, or an earlier part (by path) has its number."""
    if part.series not in series:
        where = settings.rel(series_file(settings))
        has = f"which declares {', '.join(series)}" if series else "which declares none (add it there with its title)"
        raise SeriesError(part.path, part.series_line, f"series {part.series!r} is not declared in {where}, {has}")
    same = [p for p in every if p.series == part.series and p.number == part.number and p.path < part.path]
    if same:
        raise SeriesError(part.path, part.part_line, f"part {part.number} of series {part.series!r} is also "
                                                     f"{same[0].path}:{same[0].part_line}: each part has its own number")


def check_page(path: Path, settings: Settings) -> None:
    """The page tests' check of one page's part (SeriesError at its key); a broken series file fails the first part's test only."""
    part = file_of(path, settings)
    if part is None:
        return
    every = parts(settings)
    try:
        known = declared(settings)
    except SeriesError:
        if every and every[0].path == part.path:
            raise
        return
    check(part, every, known, settings)
