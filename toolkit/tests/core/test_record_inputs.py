"""The one record of passed checks (journal_tools/core/record/inputs.py), what page code is seen to read
(journal_tools/core/code/observe.py) and the badge (journal_tools/core/record/verified.py)."""

from __future__ import annotations

import datetime as dt
import glob
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from journal_tools.core.code import observe
from journal_tools.core.record import inputs
from journal_tools.core.record.inputs import KEPT, Inputs, Record
from journal_tools.core.record.verified import add_badge, badge_html, date_html, read_by_tests


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.delenv("FRESH", raising=False)
    monkeypatch.delenv("CI", raising=False)
    (tmp_path / "docs").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "docs" / "p.md").write_text("page\n", encoding="utf-8")
    (tmp_path / "data" / "a.txt").write_text("six words in a data file\n", encoding="utf-8")
    return tmp_path


def read(root: Path) -> Inputs:
    return Inputs.observe(["docs/p.md", "data/a.txt", "data/later.txt"], ["data"], root=root)


def test_inputs_hold_until_a_file_or_listed_folder_changes(root):
    seen = read(root)
    assert seen.holds(root) and seen.files["data/later.txt"] == inputs.MISSING
    for change, label in ((lambda: (root / "data" / "a.txt").write_text("seven words in a data file now\n"), "data/a.txt"),
                          (lambda: (root / "data" / "later.txt").write_text("x"), "data/later.txt"),  # looked for, appears
                          (lambda: (root / "data" / "other.csv").write_text("x"), "data/")):  # in a folder it listed
        change()
        assert seen.changed(root) == [label]
        seen = read(root)
    assert Inputs.from_json(seen.to_json()) == seen


def test_a_passed_check_is_found_while_its_inputs_hold_and_a_revert_finds_it_again(root):
    record = Record(root)
    assert record.find("page", "docs/p.md", "env") is None
    record.passed("page", "docs/p.md", "env", read(root), {"blocks": 1})
    assert record.find("page", "docs/p.md", "env") == {"blocks": 1}
    assert record.find("page", "docs/p.md", "another env") is None
    assert record.find("page", "docs/q.md", "env") is None
    original = (root / "data" / "a.txt").read_text()
    (root / "data" / "a.txt").write_text("changed\n")
    assert Record(root).find("page", "docs/p.md", "env") is None  # the next session
    record.passed("page", "docs/p.md", "env", read(root), {"blocks": 2})
    assert record.find("page", "docs/p.md", "env") == {"blocks": 2}
    (root / "data" / "a.txt").write_text(original)  # the revert: what passed before holds again
    assert Record(root).find("page", "docs/p.md", "env") == {"blocks": 1}


def test_a_failure_drops_what_holds_now_and_fresh_reuses_nothing(root, monkeypatch):
    record = Record(root)
    record.passed("page", "docs/p.md", "env", read(root), {"blocks": 1})
    monkeypatch.setenv("FRESH", "1")
    fresh = Record(root)
    assert fresh.find("page", "docs/p.md", "env") is None
    assert fresh.holding("page", "docs/p.md", "env") == {"blocks": 1}  # the badge reads it all the same
    monkeypatch.delenv("FRESH")
    monkeypatch.setenv("CI", "true")  # CI alone reuses: a pull request's run with main's record restored
    assert Record(root).find("page", "docs/p.md", "env") == {"blocks": 1}
    monkeypatch.delenv("CI")
    record.failed("page", "docs/p.md", "env")
    assert record.holding("page", "docs/p.md", "env") is None


def test_the_newest_states_are_kept(root):
    record = Record(root)
    page = root / "docs" / "p.md"
    for n in range(KEPT + 2):
        page.write_text(f"version {n}\n")
        record.passed("page", "docs/p.md", "env", read(root), {"n": n})
    rows = sqlite3.connect(record.path).execute("SELECT COUNT(*) FROM passed").fetchone()[0]
    assert rows == KEPT
    page.write_text("version 2\n")
    assert record.find("page", "docs/p.md", "env") == {"n": 2}
    page.write_text("version 1\n")
    assert record.find("page", "docs/p.md", "env") is None


@pytest.mark.parametrize("content", [b"", b"not sqlite at all"])
def test_an_unusable_record_vouches_for_nothing(root, content):
    (root / ".cache").mkdir()
    (root / ".cache" / inputs.NAME).write_bytes(content)
    assert Record(root).find("page", "docs/p.md", "env") is None


def test_site_files_are_resolved_under_their_root(root, tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    (site / "index.html").write_text("<p>x</p>")
    seen = Inputs.observe(["site:index.html"], roots={"site": site})
    assert seen.holds(roots={"site": site})
    (site / "index.html").write_text("<p>y</p>")
    assert seen.changed(roots={"site": site}) == ["site:index.html"]


# -- what code is seen to read ------------------------------------------------------------------

def test_the_observer_sees_every_way_code_reads_a_file(root, monkeypatch):
    import numpy
    import torch

    (root / "snippets").mkdir()
    (root / "snippets" / "observed_mod.py").write_text("VALUE = 1\n")
    torch.save(torch.ones(2), root / "data" / "t.pt")
    numpy.save(root / "data" / "n.npy", numpy.ones(2))
    monkeypatch.syspath_prepend(str(root / "snippets"))
    monkeypatch.chdir(root)
    observe.start(str(root))
    try:
        open(root / "data" / "a.txt").read()  # noqa: SIM115
        Path("data/a.txt").read_text()  # relative to the folder it runs in
        torch.load(root / "data" / "t.pt")
        numpy.load(root / "data" / "n.npy")
        (root / "out.txt").write_text("written")  # an output, not an input
        (root / "out.txt").read_text()
        sorted(glob.glob(str(root / "docs" / "*.md")))
        os.listdir(root / "snippets")
        list((root / "data").iterdir())
        __import__("observed_mod")
        with pytest.raises(FileNotFoundError):
            open(root / "data" / "absent.txt")  # noqa: SIM115
    finally:
        seen = observe.finish()
        sys.modules.pop("observed_mod", None)
    assert sorted(seen["files"]) == ["data/a.txt", "data/absent.txt", "data/n.npy", "data/t.pt", "snippets/observed_mod.py"]
    assert seen["files"]["data/absent.txt"] == inputs.MISSING
    assert sorted(seen["folders"]) == ["data", "docs", "snippets"]
    assert observe.finish() is None  # nothing observed once it ended


def test_imports_alone_list_no_folder_and_files_outside_the_journal_do_not_count(root, monkeypatch):
    (root / "snippets").mkdir()
    (root / "snippets" / "quiet_mod.py").write_text("import json\nVALUE = 1\n")
    monkeypatch.syspath_prepend(str(root / "snippets"))
    outside = root.parent / f"{root.name}-outside.txt"
    outside.write_text("x")
    observe.start(str(root))
    try:
        __import__("quiet_mod")
        outside.read_text()
    finally:
        seen = observe.finish()
        sys.modules.pop("quiet_mod", None)
    assert seen == {"files": {"snippets/quiet_mod.py": inputs.file_digest(root / "snippets" / "quiet_mod.py")}, "folders": {}}


def test_the_page_tests_read_the_page_its_includes_the_bibliography_and_mkdocs_yml(journal):
    settings, write = journal
    page = write("p.md", '```python\n--8<-- "demo.py:two"\nprint(x)\n```\n')
    assert read_by_tests(page, settings) == ["docs/p.md", "snippets/demo.py", "mkdocs.yml"]


def test_a_post_s_tests_read_the_authors_file_too(journal):
    """Its authors: are checked against that file: an edit there must rerun the post's tests."""
    settings, write = journal
    post = write("blog/posts/p.md", "---\ndate: 2025-07-27\n---\n\n# P\n\nText.\n\n<!-- more -->\n")
    assert read_by_tests(post, settings) == ["docs/blog/posts/p.md", "docs/blog/.authors.yml", "mkdocs.yml"]


def _a_chain_that_read_data(journal, text: str):
    """Page ``docs/p.md`` holding ``text``, and a record in which its one chain passed having read ``snippets/data.txt``."""
    from journal_tools.core.code.parse import parse_page
    from journal_tools.core.judge import CHAIN, chain_key

    settings, write = journal
    (settings.root / "snippets" / "data.txt").write_text("seen\n", encoding="utf-8")
    page = write("p.md", text)
    parsed = parse_page(page, settings)
    record = Record(settings.root)
    record.passed(CHAIN, "docs/p.md#0", chain_key(parsed, parsed.steps), Inputs.observe(["snippets/data.txt"], root=settings.root))
    return page, record


def test_what_an_entry_s_code_read_comes_from_its_chains_records_after_a_prose_edit(journal, monkeypatch):
    """The build's downloads carry what the page's code was seen to read: after a prose edit its chains' records (kept under
    their code) still say, so nothing runs; after a code edit they do not, and the judge runs the chain to be watched."""
    from journal_tools.core.record.code_reads import files_read

    monkeypatch.delenv("FRESH", raising=False)
    settings, write = journal
    page, record = _a_chain_that_read_data(journal, "# P\n\nProse.\n\n```python\nprint(1)\n```\n")
    ran = []

    class Sandbox:  # the judge's worker, watched: which page's chain it was asked to run
        def run_chain(self, page, steps, result, update=None, **kwargs):
            ran.append(settings.root / page.path)

    write("p.md", "# P\n\nMore prose than before.\n\n```python\nprint(1)\n```\n")
    assert files_read(record, page, settings, Sandbox()) == [Path("snippets/data.txt")] and not ran
    write("p.md", "# P\n\nMore prose than before.\n\n```python\nprint(2)\n```\n")
    files_read(record, page, settings, Sandbox())
    assert ran == [page]


def test_make_serve_s_build_takes_the_newest_reads_of_a_chain_whose_code_changed(journal, monkeypatch):
    """make serve's build runs no code (its worker judges the saved page after the build): after a code save its downloads carry
    what the chain's newest record says its code read, of the code before the save, rather than nothing."""
    from journal_tools.core.record.code_reads import files_read

    monkeypatch.delenv("FRESH", raising=False)
    settings, write = journal
    page, record = _a_chain_that_read_data(journal, "# P\n\n```python\nprint(1)\n```\n")
    write("p.md", "# P\n\n```python\nprint(2)\n```\n")
    assert files_read(record, page, settings) == [Path("snippets/data.txt")]


# -- the badge ------------------------------------------------------------------------------------

def test_badge_says_what_ran_only_when_a_record_holds():
    shown = badge_html({"blocks": 13, "numbers": 104, "torch": "2.13.0", "date": "2026-11-30"}, "../verified/")
    assert 'data-verified="true" data-search-exclude>' in shown  # Material's search leaves it out
    assert ("Verified</span> on 2026-11-30 with PyTorch 2.13.0: 13 code blocks ran, and the 104 numbers of the printed"
            " outputs, matrices and sentences shown match what the code gives." in shown)
    assert shown.endswith(' <a href="../verified/">What is checked</a></p>')
    one_cell = badge_html({"blocks": 1, "numbers": 1, "torch": "2.13.0", "date": "2026-11-30", "notebook": True})
    assert "1 code cell ran and their asserts held; the 1 number written in its sentences matches" in one_cell
    stale = badge_html(None)
    assert 'data-verified="false"' in stale and "not verified since the last change" in stale.lower()
    assert "code blocks ran" not in stale and "<a " not in stale  # no page to link to: no link


def test_a_page_with_no_number_to_compare_says_so_never_0_numbers_checked():
    shown = badge_html({"blocks": 12, "numbers": 0, "torch": "2.13.0", "date": "2026-11-30"})
    assert "12 code blocks ran and their asserts held; the page shows no printed numbers to compare." in shown
    assert "0 number" not in shown


def test_a_notebook_s_badge_says_its_outputs_are_the_build_s_own_not_that_it_has_none():
    """A notebook page shows printed tensors (the build runs its cells): its badge must not say it shows no numbers."""
    shown = badge_html({"blocks": 12, "numbers": 0, "torch": "2.13.0", "date": "2026-11-30", "notebook": True})
    assert ("12 code cells ran and their asserts held; the outputs shown are printed by the site build's own run of"
            " these cells, not compared with a stored copy." in shown)
    assert "no printed numbers" not in shown
    shown = badge_html({"blocks": 12, "numbers": 1, "torch": "2.13.0", "date": "2026-11-30", "notebook": True})
    assert ("12 code cells ran and their asserts held; the 1 number written in its sentences matches the code; the outputs shown"
            " are printed by the site build's own run of these cells, not compared with a stored copy." in shown), shown


def test_an_entry_s_date_reads_as_material_writes_it():
    assert date_html(dt.datetime(2025, 7, 6, tzinfo=dt.timezone.utc)) == (
        '<p class="journal-date" data-search-exclude><time datetime="2025-07-06">July 6, 2025</time></p>')


def test_badge_goes_under_the_title():
    assert add_badge("<h1 id='t'>T</h1><p>x</p>", "<p>B</p>") == "<h1 id='t'>T</h1>\n<p>B</p><p>x</p>"
    assert add_badge("<p>x</p>", "<p>B</p>") == "<p>B</p>\n<p>x</p>"


def test_a_check_may_keep_fewer_states(root):
    """A built page's check keeps 2 (its full-page screenshot is 1.6 MB): the newest two hold again."""
    record = Record(root)
    page = root / "docs" / "p.md"
    for n in range(4):
        page.write_text(f"version {n}\n")
        record.passed("site check", "t p", "env", read(root), {"n": n}, keep=2)
    assert sqlite3.connect(record.path).execute("SELECT COUNT(*) FROM passed").fetchone()[0] == 2
    page.write_text("version 2\n")
    assert record.find("site check", "t p", "env") == {"n": 2}


def test_a_check_passed_in_another_thread_is_kept(root):
    """make serve reads the record in MkDocs' thread and writes figures redrawn (and pages judged) from threads of its own: a row
    written there was lost (sqlite refuses a connection from another thread, and a failed write only costs a run), so every
    rebuild redrew the figure and asked for one more rebuild, for ever."""
    import threading

    record = Record(root)
    record.passed("figure", "m.g", "env", read(root), {"svg": "<svg/>"})  # this thread opens the file first
    writer = threading.Thread(target=record.passed, args=("figure", "m.f", "env", read(root), {"svg": "<svg/>"}))
    writer.start()
    writer.join()
    assert record.find("figure", "m.f", "env") == {"svg": "<svg/>"}
