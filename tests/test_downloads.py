"""Each entry's code to take home, as the built site serves it (journal_tools/mkdocs_plugin/downloads.py).

For every entry of the session build, drafts included (the test build builds them):
its page links ``downloads/<entry>.py`` and ``<entry>.ipynb`` next to the badge; the
files are what ``downloads.make`` gives for the entry's sources; and each, run as a
reader runs it, prints every checked output of the page
(journal_tools.testing.downloads.check_downloads). A failure names the download's file
and line and the page's; a wrong output the page's own test reports is that test's
failure alone (this one skips naming it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from journal_tools.testing.downloads import check_downloads, entries, made_for

ENTRIES = entries(Path(__file__).resolve().parents[1])


def _entry_html(built, stem: str) -> str:
    pages = [p for p in built.site.joinpath("blog").rglob("index.html") if f"downloads/{stem}.py" in p.read_text(encoding="utf-8")]
    assert len(pages) == 1, f"{stem}: {len(pages)} built pages link downloads/{stem}.py (one entry page should)"
    return pages[0].read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ENTRIES)
def test_entry_links_its_downloads_next_to_the_badge(built, name):
    stem = name[:-3]
    html = _entry_html(built, stem)
    badge = re.search(r'<p class="journal-verified[^"]*"[^>]*>.*?</p>\s*<p class="journal-downloads">(.*?)</p>', html, re.S)
    assert badge, f"{name}: no download links right after the verified badge"
    for ext in (".py", ".ipynb"):
        assert f'download="{stem}{ext}"' in badge.group(1), f"{name}: the badge's links miss {stem}{ext}"
    made, _ = made_for(built, name)
    assert (built.site / "downloads" / f"{stem}.py").read_text(encoding="utf-8") == made.script
    assert (built.site / "downloads" / f"{stem}.ipynb").read_text(encoding="utf-8") == made.notebook


@pytest.mark.parametrize("name", ENTRIES)
def test_downloads_print_what_the_page_shows(built, request, name):
    """The script and the notebook in one test (journal_tools.testing.downloads.check_downloads)."""
    check_downloads(built, request, name)
