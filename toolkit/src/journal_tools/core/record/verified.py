"""The "verified" badge: ``Verified on DATE with PyTorch X: N code blocks ran, and the M numbers ...`` while one of the page's
records holds (``core.record.inputs``), else ``Not verified since the last change``.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from pathlib import Path

from journal_tools.core.page import series
from journal_tools.core.page.includes import included_files
from journal_tools.core.record.inputs import Record, environment
from journal_tools.core.settings import Settings

__all__ = ["CHECKS_PAGE", "PAGE", "add_badge", "badge_html", "date_html", "proved", "read_by_tests", "today", "torch_version"]

CHECKS_PAGE = "verified.md"  # the page the badge links to, when the journal has one
PAGE = "page"  # the record's kind for a page's whole test: its render check and all its code


def read_by_tests(path: Path, settings: Settings) -> list[str]:
    """Files the page tests read themselves: the page, its included snippets, the BibTeX file, mkdocs.yml, a post's authors file."""
    files = [Path(path)]
    text = files[0].read_bytes().decode("utf-8-sig", errors="replace")
    if not settings.is_notebook(path):
        files += included_files(text, settings)
    # A part: the series file. Not the other parts, nor the pages a reference names: an edit of one entry re-runs its own tests
    # only; the build, which make test runs too, renders every page and finds a reference or part number that no longer holds.
    if "series:" in text and series.series_file(settings).is_file():
        files.append(series.series_file(settings))
    if settings.is_post(path) and settings.blog.authors_file is not None:
        files.append(settings.blog.authors_file)  # its ids are checked against the post's authors:
    files += [f for f in (settings.bibliography, settings.config_file) if f is not None]
    return [settings.rel(f) for f in files]


def proved(record: Record, path: Path, settings: Settings) -> dict | None:
    """What page ``path``'s passed tests proved (blocks, numbers, torch, date, notebook) if a record holds now; else None."""
    return record.holding(PAGE, settings.rel(path), environment())


def torch_version() -> str:
    """The installed PyTorch's public version (``2.13.0`` for ``2.13.0+cpu``), or "" without it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch").split("+", 1)[0]
    except PackageNotFoundError:
        return ""


def today() -> str:
    """The date a run ends, UTC."""
    return dt.datetime.now(dt.timezone.utc).date().isoformat()


def _plural(n: int, one: str) -> str:
    return f"{n} {one}" if n == 1 else f"{n} {one}s"


def badge_html(entry: dict | None, checks_href: str | None = None) -> str:
    """The badge for a page whose tests proved ``entry`` (None: nothing that holds now), linked to ``checks_href``.

    Its words say what ran and what was compared, so it cannot read as a fact check of the prose; search leaves it out.
    """
    more = f' <a href="{html.escape(checks_href)}">What is checked</a>' if checks_href else ""
    if entry is None:
        return ('<p class="journal-verified journal-verified--stale" data-verified="false" data-search-exclude>'
                f"Not verified since the last change: <code>make test</code> runs this page's code.{more}</p>")
    ran = f"{_plural(entry['blocks'], 'code cell' if entry.get('notebook') else 'code block')} ran"
    if entry.get("notebook"):  # its outputs are printed by the build's own run of its cells: nothing stored to compare
        n = entry["numbers"]  # its numbers are those written in its sentences
        written = f"; the {_plural(n, 'number')} written in its sentences {'matches' if n == 1 else 'match'} the code" if n else ""
        compared = (f" and their asserts held{written}; the outputs shown are printed by the site build's own run of these cells,"
                    " not compared with a stored copy")
    elif entry["numbers"]:
        compared = (f", and the {_plural(entry['numbers'], 'number')} of the printed outputs, matrices and sentences shown"
                    " match what the code gives")
    else:  # never "0 numbers checked": that reads as a failure
        compared = " and their asserts held; the page shows no printed numbers to compare"
    torch = f" with PyTorch {entry['torch']}" if entry.get("torch") else ""
    text = html.escape(f"on {entry['date']}{torch}: {ran}{compared}.", quote=False)
    return (f'<p class="journal-verified" data-verified="true" data-search-exclude>'
            f'<span class="journal-verified__label">Verified</span> {text}{more}</p>')


def date_html(date: dt.date) -> str:
    """An entry's own date, for the top of its page (Material shows it in a sidebar that phones put last)."""
    if isinstance(date, dt.datetime):
        date = date.date()
    return (f'<p class="journal-date" data-search-exclude><time datetime="{date.isoformat()}">'
            f"{date:%B} {date.day}, {date.year}</time></p>")


_H1_END = re.compile(r"</h1>", re.IGNORECASE)


def add_badge(page_html: str, badge: str) -> str:
    """``badge`` right after the page's title (its first ``</h1>``), or first when it has none."""
    m = _H1_END.search(page_html)
    if m is None:
        return badge + "\n" + page_html
    return page_html[: m.end()] + "\n" + badge + page_html[m.end():]
