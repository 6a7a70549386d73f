"""A draft is left out of `make build` whole: Material's blog drops its page, and the journal
plugin drops its code to take home (downloads/<entry>.py and .ipynb), which it makes before the
blog decides which posts the build keeps."""

from __future__ import annotations

from pathlib import Path

from journal_tools.testing.site import mkdocs_build, without_notebook_execution

from fixture_journal import fixture_project

ENTRY = "2025-07-27-fixture-entry"


def test_a_draft_publishes_neither_its_page_nor_its_downloads(tmp_path):
    project = without_notebook_execution(fixture_project(tmp_path / "journal"))
    posts = project / "docs" / "blog" / "posts"
    text = (posts / f"{ENTRY}.md").read_text(encoding="utf-8")
    draft = text.replace("date: 2025-07-27\n", "date: 2025-07-28\ndraft: true\n", 1).replace("# Fixture entry", "# Draft entry", 1)
    assert "draft: true" in draft
    (posts / "2025-07-28-draft-entry.md").write_text(draft, encoding="utf-8")

    site = tmp_path / "site"
    proc = mkdocs_build(project, site)
    assert proc.returncode == 0, proc.stdout[-3000:]
    published = sorted(p.name for p in (site / "downloads").iterdir())
    # The published entry keeps both files; the draft has neither, and no page of the site is the draft's.
    assert published == [f"{ENTRY}.ipynb", f"{ENTRY}.py"]
    assert not [p for p in site.rglob("*.html") if "Draft entry" in p.read_text(encoding="utf-8")]
    assert not Path(site / "blog" / "2025" / "07" / "28").exists()
