"""A draft is left out of `make build` whole: Material's blog drops its page, and the journal
plugin drops its code to take home (downloads/<entry>.py and .ipynb), which it makes before the
blog decides which posts the build keeps. The test build (journal_tools.testing.site.with_drafts)
builds it whole, so a draft gets every check of the built site before it is published."""

from __future__ import annotations

from pathlib import Path

from journal_tools.testing.journal import Journal
from journal_tools.testing.site import mkdocs_build, with_drafts

from fixture_journal import fixture_project, without_notebook_execution

ENTRY = "2025-07-27-fixture-entry"


def _with_a_draft(project: Path) -> Path:
    posts = project / "docs" / "blog" / "posts"
    text = (posts / f"{ENTRY}.md").read_text(encoding="utf-8")
    draft = text.replace("date: 2025-07-27\n", "date: 2025-07-28\ndraft: true\n", 1).replace("# Fixture entry", "# Draft entry", 1)
    draft = draft.replace("series: weights-by-hand\npart: 1\n", "", 1)  # a copy of a series' part 1 would be a second part 1
    assert "draft: true" in draft
    (posts / "2025-07-28-draft-entry.md").write_text(draft, encoding="utf-8")
    return project


def test_a_draft_publishes_neither_its_page_nor_its_downloads(tmp_path):
    project = _with_a_draft(without_notebook_execution(fixture_project(tmp_path / "journal")))
    site = tmp_path / "site"
    proc = mkdocs_build(project, site)
    assert proc.returncode == 0, proc.stdout[-3000:]
    published = sorted(p.name for p in (site / "downloads").iterdir())
    # The published entry keeps both files; the draft has neither, and no page of the site is the draft's.
    assert published == [f"{ENTRY}.ipynb", f"{ENTRY}.py"]
    assert not [p for p in site.rglob("*.html") if "Draft entry" in p.read_text(encoding="utf-8")]
    assert not Path(site / "blog" / "2025" / "07" / "28").exists()


def test_the_test_build_builds_a_draft_with_its_downloads(tmp_path):
    """What the session build of a journal's checks builds (testing/fixtures.py): the draft's page and
    both its downloads, and the downloads check runs on it (entries lists drafts)."""
    project = with_drafts(_with_a_draft(without_notebook_execution(fixture_project(tmp_path / "journal"))))
    assert "2025-07-28-draft-entry.md" in [e.name for e in Journal(project).entries]
    site = tmp_path / "site"
    proc = mkdocs_build(project, site)
    assert proc.returncode == 0, proc.stdout[-3000:]
    built = sorted(p.name for p in (site / "downloads").iterdir())
    assert built == ["2025-07-27-fixture-entry.ipynb", "2025-07-27-fixture-entry.py",
                     "2025-07-28-draft-entry.ipynb", "2025-07-28-draft-entry.py"], built
    assert [p for p in site.rglob("*.html") if "Draft entry" in p.read_text(encoding="utf-8")]


def test_with_drafts_sets_the_blog_option_once(tmp_path):
    config = tmp_path / "mkdocs.yml"
    config.write_text("plugins:\n  - search\n  - blog:\n      blog_dir: .\n  - tags\n", encoding="utf-8")
    with_drafts(tmp_path)
    assert config.read_text(encoding="utf-8") == "plugins:\n  - search\n  - blog:\n      draft: true\n      blog_dir: .\n  - tags\n"
    config.write_text("plugins:\n  - blog\n", encoding="utf-8")
    with_drafts(tmp_path)
    assert config.read_text(encoding="utf-8") == "plugins:\n  - blog:\n      draft: true\n"
