"""A series drawn from front matter (``core/page/series.py``): the box under a part's title listing the parts, "previous / next in
the series" at its end, and an index page per series (``series/<name>/``), generated. The box and pager are left out of the search
index (``data-search-exclude``: they repeat other pages' titles).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.utils import get_relative_url

from journal_tools.core.page import series
from journal_tools.core.page.series import Part, SeriesError
from journal_tools.core.settings import Settings

__all__ = ["Series", "collect"]


@dataclass
class Series:
    """This build's series: the declared ones and their parts in order (only parts that passed their checks)."""

    declared: dict[str, dict] = field(default_factory=dict)
    parts: dict[str, list[Part]] = field(default_factory=dict)  # series name -> parts by number
    docs: str = "docs"  # the docs folder, relative to the journal's root as parts' paths are

    def part(self, rel: str) -> Part | None:
        """The part the page ``rel`` (relative to the journal's root) is, or None."""
        return next((p for ps in self.parts.values() for p in ps if p.path == rel), None)

    def index_files(self, config) -> list[File]:
        """One generated Markdown page per series with parts: its title, description and the parts in order, linked."""
        made = []
        for name, parts in self.parts.items():
            entry = self.declared[name]
            src = f"series/{name}.md"
            lines = [f"# {entry['title']}", "", str(entry.get("description") or ""), ""]
            lines += [f"{p.number}. [{p.title}]({get_relative_url(self._src(p), src)})"
                      + (f" · {p.date:%B} {p.date.day}, {p.date.year}" if p.date else " · a notebook") for p in parts]
            made.append(File.generated(config, src, content="\n".join(lines) + "\n", inclusion=InclusionLevel.NOT_IN_NAV))
        return made

    def _src(self, part: Part) -> str:
        return Path(part.path).relative_to(self.docs).as_posix()

    def _href(self, part: Part, page, files: Files) -> str | None:
        file = files.get_file_from_path(self._src(part))
        return get_relative_url(file.url, page.url) if file is not None else None

    def box(self, part: Part, page, files: Files) -> str:
        """The series box: its title (linked to its index), "part N of M" and every part, this one marked."""
        parts = self.parts[part.series]
        title = html.escape(self.declared[part.series]["title"])
        index = files.get_file_from_path(f"series/{part.series}.md")
        heading = f'<a href="{get_relative_url(index.url, page.url)}">{title}</a>' if index is not None else title
        items = []
        for p in parts:
            href = self._href(p, page, files)
            name = html.escape(p.title)
            if p is part:
                items.append(f'<li value="{p.number}"><strong aria-current="page">{name}</strong> (this page)</li>')
            else:
                items.append(f'<li value="{p.number}">' + (f'<a href="{href}">{name}</a>' if href else name) + "</li>")
        return (f'<aside class="journal-series" aria-label="Series: {title}" data-search-exclude>'
                f"<p>{heading}: part {part.number} of {len(parts)}</p><ol>{''.join(items)}</ol></aside>")

    def pager(self, part: Part, page, files: Files) -> str:
        """"Previous in the series" and "Next in the series" links, as the journal's pager draws its links (no ``rel``: the
        previous and next entry are the date order's, the journal pager's)."""
        parts = self.parts[part.series]
        at = parts.index(part)
        links = []
        for other, side, direction in ((parts[at - 1] if at else None, "prev", "Previous in the series"),
                                      (parts[at + 1] if at + 1 < len(parts) else None, "next", "Next in the series")):
            href = self._href(other, page, files) if other is not None else None
            if href:
                links.append(f'<a href="{href}" class="journal-pager__link journal-pager__link--{side}">'
                             f'<span class="journal-pager__direction">{direction}</span>'
                             f'<span class="journal-pager__title">{html.escape(other.title)}</span></a>')
        if not links:
            return ""
        return (f'<nav class="journal-pager journal-series-pager" aria-label="Previous and next in the series" '
                f'data-search-exclude>{"".join(links)}</nav>')


def collect(settings: Settings) -> tuple[Series, list[tuple[SeriesError, str]]]:
    """The series of the docs folder, and each mistake with the page test that reports it (``::page``, a notebook's ``::notebook``)."""
    unreadable: list[SeriesError] = []
    every = series.parts(settings, unreadable)
    test = {p.path: _test_of(p.path) for p in every}
    docs = settings.rel(settings.docs_dir)
    try:
        declared = series.declared(settings)
    except SeriesError as exc:  # the first part's test reports the series file (core/page/series.py: check_page)
        return Series(docs=docs), [(exc, test[every[0].path])] if every else []
    found, problems = Series(declared, docs=docs), [(exc, _test_of(exc.path)) for exc in unreadable]
    for part in every:
        try:
            series.check(part, every, declared, settings)
        except SeriesError as exc:
            problems.append((exc, test[part.path]))
            continue
        found.parts.setdefault(part.series, []).append(part)
    for parts in found.parts.values():
        parts.sort(key=lambda p: p.number)
    return found, problems


def _test_of(rel: str) -> str:
    """The page test that reports a series mistake of page ``rel``."""
    return f"{rel}::{'notebook' if rel.endswith(('.py', '.ipynb')) else 'page'}"
