"""The verified record and badge (journal_tools/core/record/verified.py) on inline pages: what the
digest covers, how a session's results merge into the record, what the badge says."""

from __future__ import annotations

import dataclasses
import json

import pytest

from journal_tools.core.record.verified import Entry, add_badge, badge_html, page_digest, read_record, record_path, update_record

PAGE = '```python\n--8<-- "demo.py:two"\nfrom helper import h\nprint(x)\n```\n'


@pytest.fixture
def site(journal):
    settings, write = journal
    snippets = settings.root / "snippets"
    (snippets / "helper.py").write_text("import deep\nh = 1\n", encoding="utf-8")
    (snippets / "deep.py").write_text("d = 1\n", encoding="utf-8")
    (snippets / "unrelated.py").write_text("u = 1\n", encoding="utf-8")
    (settings.root / "requirements.txt").write_text("torch==2.13.0\n", encoding="utf-8")
    return settings, write("p.md", PAGE)


@pytest.mark.parametrize("edit, changes", [
    ("docs/p.md", True),                # the page
    ("snippets/demo.py", True),         # a file it includes
    ("snippets/helper.py", True),       # a module its code imports
    ("snippets/deep.py", True),         # a module that module imports
    ("requirements.txt", True),         # the pins
    ("snippets/unrelated.py", False),   # nothing the page uses
])
def test_digest_covers_what_the_code_depends_on(site, edit, changes):
    settings, page = site
    before = page_digest(page, settings)
    path = settings.root / edit
    path.write_text(path.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert (page_digest(page, settings) != before) is changes


def test_the_kept_digest_is_made_again_on_any_change_it_depends_on(site):
    """page_digest keeps the files each page includes and imports for make serve's rebuilds: a
    same-size edit, a module that appears where the page's import looks, and a new included file
    all count, and the digest is always the one made afresh (the cache emptied first)."""
    from journal_tools.core.record import verified

    settings, page = site
    snippets = settings.root / "snippets"
    page.write_text(PAGE + '```python\nfrom later import z\n--8<-- "extra.py"\n```\n', encoding="utf-8")
    seen = set()
    for edit in (lambda: None,
                 lambda: (snippets / "helper.py").write_text("import deep\nh = 2\n", encoding="utf-8"),  # same size
                 lambda: (snippets / "later.py").write_text("z = 1\n", encoding="utf-8"),  # the import now finds it
                 lambda: (snippets / "extra.py").write_text("e = 1\n", encoding="utf-8"),  # the include now finds it
                 lambda: (snippets / "unrelated.py").write_text("u = 2\n", encoding="utf-8")):
        edit()
        kept = page_digest(page, settings)
        verified._kept.clear()
        assert kept == page_digest(page, settings)
        seen.add(kept)
    assert len(seen) == 4  # each change the page depends on made a new digest; the unrelated one did not


def test_digest_of_a_notebook_follows_its_imports(journal):
    settings, write = journal
    (settings.root / "snippets" / "helper.py").write_text("h = 1\n", encoding="utf-8")
    nb = settings.root / "docs" / "nb.py"
    nb.write_text("# %%\nfrom helper import h\n", encoding="utf-8")
    settings = dataclasses.replace(settings, notebook_include=("*.py",))  # as if mkdocs-jupyter listed it
    before = page_digest(nb, settings)
    (settings.root / "snippets" / "helper.py").write_text("h = 2\n", encoding="utf-8")
    assert page_digest(nb, settings) != before


def test_record_merges_sessions(site, journal):
    settings, write = journal
    for name in ("a.md", "b.md", "c.md"):
        write(name, PAGE)
    a, b, c = (Entry(f"d{n}", 3, 5, "2.13.0", "2026-01-01") for n in "abc")
    update_record(settings, {"docs/a.md": a, "docs/b.md": b, "docs/c.md": c}, set())
    newer = Entry("da2", 4, 5, "2.13.0", "2026-01-02")
    (settings.root / "docs" / "c.md").unlink()
    update_record(settings, {"docs/a.md": newer}, {"docs/b.md"})  # a passed again, b failed, c deleted
    assert read_record(settings) == {"docs/a.md": newer}
    update_record(settings, {}, set())  # a session that ran neither keeps both as they were
    assert read_record(settings) == {"docs/a.md": newer}


@pytest.mark.parametrize("content", ["", "not json", '{"version": 99, "pages": {}}', '{"version": 1, "pages": {"x": {"digest": 1}}}'])
def test_unusable_record_vouches_for_nothing(site, content):
    settings, _ = site
    record_path(settings).parent.mkdir(parents=True, exist_ok=True)
    record_path(settings).write_text(content, encoding="utf-8")
    assert read_record(settings) == {}


def test_record_file_is_json_with_a_version(site):
    settings, _ = site
    update_record(settings, {"docs/p.md": Entry("d", 1, 2, "2.13.0", "2026-01-01")}, set())
    raw = json.loads(record_path(settings).read_text(encoding="utf-8"))
    assert raw["version"] == 1 and raw["pages"]["docs/p.md"]["blocks"] == 1


def test_badge_says_what_ran_only_for_the_same_digest():
    entry = Entry("abc", 13, 104, "2.13.0", "2026-11-30")
    shown = badge_html(entry, "abc")
    assert 'data-verified="true"' in shown
    assert "13 code blocks ran · 104 numbers checked · PyTorch 2.13.0 · 2026-11-30" in shown
    assert "1 code cell ran · 1 number checked" in badge_html(Entry("n", 1, 1, "2.13.0", "2026-11-30", notebook=True), "n")
    for stale in (badge_html(entry, "abd"), badge_html(None, "abc")):
        assert 'data-verified="false"' in stale and "not verified since the last change" in stale.lower()
        assert "code blocks ran" not in stale


def test_badge_goes_under_the_title():
    assert add_badge("<h1 id='t'>T</h1><p>x</p>", "<p>B</p>") == "<h1 id='t'>T</h1>\n<p>B</p><p>x</p>"
    assert add_badge("<p>x</p>", "<p>B</p>") == "<p>B</p>\n<p>x</p>"
