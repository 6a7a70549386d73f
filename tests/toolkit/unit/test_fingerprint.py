"""The page cache's keys (journal_tools/build/incremental): a change is never missed, an unknown value is never guessed.

The template key leaves out the context's ``pages`` (every page of the site)
and a page's ``markdown`` and ``excerpt``: that is safe only while no template
reads them, which the first test checks on the installed Material and on our
overrides, so a Material upgrade that starts to read them fails here.
"""

from __future__ import annotations

import datetime as dt
import pickle
import re
from pathlib import Path

import material
import pytest
from mkdocs.structure.files import File
from mkdocs.structure.nav import Section
from mkdocs.structure.pages import Page

from journal_tools.build import site_assets
from journal_tools.build.incremental import fingerprint
from journal_tools.build.incremental.fingerprint import Uncacheable, digest
from journal_tools.build.incremental.store import MISSING, Store

THEMES = [Path(material.__file__).parent / "templates", Path(fingerprint.__file__).parents[1] / "theme"]
# `pages` as a variable of its own (not `nav_item.pages`), `.markdown`, `.excerpt`.
_UNDIGESTED = re.compile(r"(?<![\w.])pages\b|\.markdown\b|\.excerpt\b")
_JINJA = re.compile(r"{[{%](.*?)[%}]}", re.S)


def test_no_template_reads_what_the_key_leaves_out():
    readers = []
    for folder in THEMES:
        for path in sorted(folder.rglob("*.html")):
            for expr in _JINJA.findall(path.read_text(encoding="utf-8")):
                if _UNDIGESTED.search(expr):
                    readers.append(f"{path.relative_to(folder)}: {{{expr.strip()}}}")
    assert not readers, ("templates read a value the page cache's key leaves out (journal_tools/build/incremental/"
                         "fingerprint.py SKIPPED_ATTRIBUTES, steps.py context_key):\n" + "\n".join(readers))


def test_every_key_covers_the_packaged_stylesheets_and_script():
    """An edit to a packaged asset (journal_tools/build/assets/) misses every cached page, like an edit to the code."""
    covered = set(fingerprint.toolkit_files())
    assets = sorted(site_assets.ASSET_DIR.iterdir())
    assert assets and {site_assets.ASSET_DIR / n for n in site_assets.STYLESHEETS + site_assets.SCRIPTS} <= set(assets)
    assert [p.name for p in assets if p not in covered] == []


def _page(config_dir: Path, uri: str = "blog/a.md", title: str = "A") -> Page:
    file = File(uri, str(config_dir), str(config_dir / "site"), True)
    config = {"site_url": "https://example.org/", "use_directory_urls": True, "edit_uri": None, "repo_url": None,
              "edit_uri_template": None}
    page = Page(title, file, config)
    page.content, page.meta = "<p>x</p>", {"date": dt.date(2025, 7, 27), "tags": ["a"]}
    return page


def test_any_change_of_a_page_changes_its_full_digest(tmp_path):
    page = _page(tmp_path)
    before = digest(page, full_pages=True)
    assert digest(page, full_pages=True) == before
    for change in (lambda p: setattr(p, "content", "<p>y</p>"), lambda p: p.meta.__setitem__("tags", ["b"]),
                   lambda p: setattr(p, "new_attribute_of_a_plugin", 1), lambda p: setattr(p, "title", "B")):
        changed = _page(tmp_path)
        change(changed)
        assert digest(changed, full_pages=True) != before


def test_a_page_it_points_at_counts_by_kind_title_and_url(tmp_path):
    a, b = _page(tmp_path), _page(tmp_path, "blog/b.md", "B")
    a.next_page = b
    before = digest(a, full_pages=True)
    b.content = "<p>other text of b</p>"  # b's text is not what a's template shows of b
    assert digest(a, full_pages=True) == before
    b.title = "B renamed"
    assert digest(a, full_pages=True) != before


def test_a_value_the_key_does_not_know_is_uncacheable(tmp_path):
    page = _page(tmp_path)
    page.something = object()
    with pytest.raises(Uncacheable, match="object"):
        digest(page, full_pages=True)
    with pytest.raises(Uncacheable):
        digest({"x": lambda: 1})


def test_memoised_references_follow_the_object(tmp_path):
    refs: dict = {}
    section = Section("S", [_page(tmp_path)])
    posts = [_page(tmp_path, f"blog/{i}.md", f"P{i}") for i in range(3)]
    first = digest([section, posts], refs=refs)
    assert digest([section, posts], refs=refs) == first == digest([section, posts])
    posts.append(_page(tmp_path, "blog/9.md", "P9"))
    assert digest([section, posts], refs=refs) != first


def test_store_keeps_one_entry_per_slot_on_disk(tmp_path):
    store = Store(tmp_path / "pages")
    store.put("render", "a.md", b"k1", {"content": "<p>1</p>"})
    store.put("render", "a.md", b"k2", {"content": "<p>2</p>"})
    again = Store(tmp_path / "pages")  # another process: reads the disk
    assert again.get("render", "a.md", b"k1") is MISSING
    assert again.get("render", "a.md", b"k2") == {"content": "<p>2</p>"}
    assert len(list((tmp_path / "pages" / "render").iterdir())) == 1


def test_a_damaged_or_foreign_entry_is_a_miss(tmp_path):
    store = Store(tmp_path / "pages")
    store.put("render", "a.md", b"k", "v")
    path = next((tmp_path / "pages" / "render").iterdir())
    for data in (b"not a pickle", pickle.dumps(("another format", b"k", "v"))):
        path.write_bytes(data)
        assert Store(tmp_path / "pages").get("render", "a.md", b"k") is MISSING
