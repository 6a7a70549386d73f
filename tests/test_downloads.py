"""Each entry's code to take home, as the built site serves it (journal_tools/mkdocs_plugin/downloads.py).

For every entry of the session build: its page links ``downloads/<entry>.py`` and
``<entry>.ipynb`` next to the badge; the files are what ``downloads.make`` gives
for the entry's sources (so the map of blocks below is theirs); and each,
run as a reader runs it (the script in a fresh process, the notebook with
nbclient in a fresh kernel: journal_tools/testing/downloads.py), prints every checked
output of the page. A failure names the download's file and line and the page's.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from mkdocs.utils import meta as mkdocs_meta

from journal_tools.compat import mkdocs_config
from journal_tools.core.parse import parse_page
from journal_tools.mkdocs_plugin import downloads
from journal_tools.testing.downloads import notebook_problems, script_problems
from journal_tools.testing.page_check_reuse import PageChecks
from journal_tools.testing.site import TOOLKIT, tree_digest


def _published(posts: Path) -> list[str]:
    """The entries the published build keeps: a draft (``draft: true``, as ``make new`` writes it) has
    no downloads there (toolkit/tests/test_draft_downloads.py)."""
    return sorted(p.name for p in posts.glob("*.md") if not mkdocs_meta.get_data(p.read_text(encoding="utf-8"))[1].get("draft"))


ENTRIES = _published(Path(__file__).resolve().parents[1] / "docs" / "blog" / "posts")


def _made(built, name: str):
    settings = mkdocs_config.load(built.project / "mkdocs.yml")
    src = built.project / "docs" / "blog" / "posts" / name
    return downloads.make(src, settings), parse_page(src, settings)


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
    made, _ = _made(built, name)
    assert (built.site / "downloads" / f"{stem}.py").read_text(encoding="utf-8") == made.script
    assert (built.site / "downloads" / f"{stem}.ipynb").read_text(encoding="utf-8") == made.notebook


def _read_by_the_check(built, name: str) -> list[str]:
    """What the comparison reads besides the downloads, relative to the build's folder: the
    sources the downloads and the page's steps are made from (the entry, every snippet, the
    settings, the pins). The toolkit's code that makes and compares them is in the key."""
    folder = built.site.parent
    return [f"project/docs/blog/posts/{name}", "project/mkdocs.yml", "project/requirements.txt",
            *sorted(p.relative_to(folder).as_posix() for p in (built.project / "snippets").rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts)]


@pytest.mark.parametrize("name", ENTRIES)
def test_downloads_print_what_the_page_shows(built, request, name):
    """The script and the notebook in one test: a wrong output on the page (or a changed snippet)
    is one failure here beside the page's own, not one per file. Reused while the downloads and
    everything they are compared with are unchanged since it passed (journal_tools/testing/page_check_reuse.py)."""
    checks = PageChecks(request, built.site.parent)
    checks.key_also(tree_digest(TOOLKIT).encode())  # the toolkit: the downloads' maker, runner and comparison
    script, notebook = f"site/downloads/{name[:-3]}.py", f"site/downloads/{name[:-3]}.ipynb"
    if checks.reused(script) is not None:
        print(f"\n{name}: downloads{checks.note()}")
        return
    made, page = _made(built, name)
    stem = built.site / "downloads" / name[:-3]
    # The script's own process runs while the notebook's kernel does: each is still a fresh one.
    with ThreadPoolExecutor(1) as pool:
        script_run = pool.submit(script_problems, stem.with_suffix(".py"), made, page)
        notebook_run = notebook_problems(stem.with_suffix(".ipynb"), made, page)
    problems = script_run.result() + notebook_run
    assert not problems, "\n".join(problems)
    checks.passed(script, [notebook, *_read_by_the_check(built, name)])
