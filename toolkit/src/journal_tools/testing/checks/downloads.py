"""Each entry's code to take home, as the built site serves it (journal_tools/mkdocs_plugin/downloads.py).

For every entry of the session build, drafts included (the test build builds them):
its page links ``downloads/<entry>.py`` and ``<entry>.ipynb`` next to the badge; the
files are what ``downloads.make`` gives for the entry's sources; and the .py, run as a
reader runs it (alone in an empty folder, with only the packages its header
names), prints every checked output of the page
(journal_tools.testing.downloads.check_downloads); the notebook is jupytext's cells of the
script, opening with its header and ``Needs:`` line. A failure names the download's file
and line and the page's; a wrong output the page's own test reports is that test's
failure alone (this one skips naming it).
"""

from __future__ import annotations

import json
import re

from journal_tools.mkdocs_plugin import downloads
from journal_tools.testing.downloads import check_downloads, made_for
from journal_tools.testing.journal import Journal


def pytest_generate_tests(metafunc):
    """One test per entry of the journal (drafts too); no entry fails (Journal.entries), never skips."""
    if "name" in metafunc.fixturenames:
        # File names only: an entry's front matter may be wrong (its page test says where), and that must
        # stay its one failure, not this module's collection error too.
        journal = Journal(metafunc.config.rootpath)
        names = sorted(p.name for p in journal.posts_dir.glob("*.md"))
        assert names, f"no entry in {journal.settings.rel(journal.posts_dir)}/ (the blog's post_dir): no download to check"
        metafunc.parametrize("name", names)


def test_entry_links_its_downloads_next_to_the_badge(built, journal, name):
    stem = name[:-3]
    entry = next(e for e in journal.entries if e.name == name)
    html = (built.site / journal.entry_pages(built.site)[entry]).read_text(encoding="utf-8")
    badge = re.search(r'<p class="journal-verified[^"]*"[^>]*>.*?</p>\s*<p class="journal-downloads">(.*?)</p>', html, re.S)
    assert badge, f"{name}: no download links right after the verified badge"
    for ext in (".py", ".ipynb"):
        assert f'download="{stem}{ext}"' in badge.group(1), f"{name}: the badge's links miss {stem}{ext}"
    made, _ = made_for(built, name)
    script = (built.site / "downloads" / f"{stem}.py").read_text(encoding="utf-8")
    assert script == made.script
    notebook = (built.site / "downloads" / f"{stem}.ipynb").read_text(encoding="utf-8")
    assert notebook == downloads.notebook(script), f"{name}: the .ipynb is not jupytext's notebook of the .py"
    needs = re.search(r"(?m)^# (Needs: .*)$", script)
    first = "".join(json.loads(notebook)["cells"][0]["source"])
    assert needs and needs[1] in first.split("\n"), f"{name}: the .ipynb does not open with the .py's Needs: line"


def test_downloads_print_what_the_page_shows(built, request, name):
    """The script and the notebook in one test (journal_tools.testing.downloads.check_downloads)."""
    check_downloads(built, request, name)
