"""One terminal line per save (journal_tools.serve.save_log): what was rebuilt, what ran, what failed;
a line of its own at ``file:line`` for each problem the page's panel shows, and each output to fill."""

from __future__ import annotations

import logging
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace

from journal_tools.serve.save_log import SaveLog

LOGGER = "mkdocs.plugins.journal.serve"
SETTINGS = SimpleNamespace(rel=lambda p: f"docs/{Path(p).name}")


def _done(outcome: dict) -> Future:
    future = Future()
    future.set_result(outcome)
    return future


def _lines(caplog) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == LOGGER]


def test_a_save_whose_code_passed_is_one_line(caplog):
    log = SaveLog(SETTINGS)
    log.scheduled({Path("a.md"): _done({"ran": 12, "seconds": 0.8, "failures": [], "to_fill": []})})
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built("rebuild 3", 1.4217)
    assert _lines(caplog) == [("INFO", "rebuild 3 done in 1.42 s · changed: docs/a.md · code: 12 blocks ran in 0.8 s, all passed")]


def test_a_save_whose_code_passed_before_says_nothing_ran(caplog):
    """A prose save: the judge takes the page's chains from the record (the same code passed, what it read holds)."""
    log = SaveLog(SETTINGS)
    log.scheduled({Path("a.md"): _done({"ran": 12, "reused": 12, "seconds": 0.0, "failures": [], "to_fill": []}),
                   Path("b.md"): _done({"ran": 3, "reused": 0, "seconds": 0.5, "failures": [], "to_fill": []})})
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built("rebuild 3", 1.0)
    log.scheduled({Path("a.md"): _done({"ran": 12, "reused": 12, "seconds": 0.0, "failures": [], "to_fill": []})})
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built("rebuild 4", 1.0)
    assert [m for _, m in _lines(caplog)] == [
        "rebuild 3 done in 1.00 s · changed: docs/a.md, docs/b.md · code: 15 blocks ran in 0.5 s (12 passed before, not run "
        "again), all passed",
        "rebuild 4 done in 1.00 s · changed: docs/a.md · code: 12 blocks passed before with this code and what it read: not run "
        "again"]


def test_each_problem_gets_its_own_line_at_its_file_and_line(caplog):
    log = SaveLog(SETTINGS)
    failure = {"where": "docs/a.md:58", "line": 55, "message": "the expected output differs", "report": "..."}
    log.scheduled({Path("a.md"): _done({"ran": 3, "seconds": 0.2, "failures": [failure],
                                        "to_fill": [{"where": "docs/a.md:70", "line": 66}]})})
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built("rebuild 4", 1.0)
    assert _lines(caplog) == [
        ("WARNING", "rebuild 4 done in 1.00 s · changed: docs/a.md · code: 3 blocks ran in 0.2 s, 1 failed, "
                    "1 output to fill (make update-outputs)"),
        ("WARNING", "docs/a.md:58: the expected output differs"),
        ("INFO", "docs/a.md:70: output to fill (make update-outputs)"),
    ]


def test_the_line_waits_for_code_that_ends_after_the_build(caplog):
    log = SaveLog(SETTINGS)
    late = Future()
    log.scheduled({Path("a.md"): late})
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built("rebuild 5", 1.0)
        assert _lines(caplog) == []
        late.set_result({"ran": 1, "seconds": 4.0, "failures": [], "to_fill": []})
    assert _lines(caplog) == [("INFO", "rebuild 5 done in 1.00 s · changed: docs/a.md · code: 1 block ran in 4.0 s, all passed")]


def test_a_rebuild_with_no_page_changed_names_what_asked_for_it(caplog):
    log = SaveLog(SETTINGS)
    log.asked_by("a notebook run in the background")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built("rebuild 6", 1.3)
        log.built("rebuild 7", 1.2)
    assert _lines(caplog) == [("INFO", "rebuild 6 done in 1.30 s · asked for by a notebook run in the background"),
                              ("INFO", "rebuild 7 done in 1.20 s · no page changed")]


def test_a_run_stopped_by_a_later_save_says_so(caplog):
    log = SaveLog(SETTINGS)
    log.scheduled({Path("a.md"): _done({"ran": 0, "seconds": 0.0, "failures": [], "superseded": True, "pending": True})})
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built("rebuild 8", 1.0)
    assert _lines(caplog)[0][1].endswith("code: stopped: saved again before it was done")


def test_the_first_build_counts_its_pages(caplog):
    from journal_tools.serve.save_log import FIRST

    log = SaveLog(SETTINGS)
    log.scheduled({Path(f"{n}.md"): _done({"ran": 2, "seconds": 0.5, "failures": [], "to_fill": []}) for n in "abc"})
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built(FIRST, 2.0)
    assert _lines(caplog) == [("INFO", "first build done in 2.00 s · 3 pages · code: 6 blocks ran in 1.5 s, all passed")]


def test_the_line_counts_every_block_of_the_page_and_every_output_to_fill(caplog):
    log = SaveLog(SETTINGS)
    fills = [{"where": f"docs/a.md:{n}", "line": n - 4} for n in (20, 40, 60, 80, 100)]
    log.scheduled({Path("a.md"): _done({"ran": 12, "blocks": 12, "seconds": 0.9, "failures": [], "to_fill": fills})})
    failure = {"where": "docs/b.md:38", "line": 36, "message": "NameError: name 'x' is not defined", "report": "..."}
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built("rebuild 2", 1.0)
        log.scheduled({Path("b.md"): _done({"ran": 5, "blocks": 12, "seconds": 0.4, "failures": [failure], "to_fill": []})})
        log.built("rebuild 3", 1.0)
    lines = [line for _, line in _lines(caplog)]
    assert lines[0].endswith("code: 12 blocks ran in 0.9 s, 5 outputs to fill (make update-outputs)"), lines
    assert lines[6].endswith("code: 5 of 12 blocks ran in 0.4 s, 1 failed"), lines


def test_a_rebuild_after_a_problem_says_what_it_fixed(caplog):
    """Never "no page changed" after a fix: the page's build mistake, its failing block, a failed build."""
    log = SaveLog(SETTINGS)
    include = {"where": "docs/a.md:38", "line": None, "message": "snippet include failed: ... (did you mean 'wrapper'?)",
               "report": "...", "build": True}
    block = {"where": "docs/b.md:12", "line": 10, "message": "NameError: name 'x' is not defined", "report": "..."}
    passed = {"ran": 2, "blocks": 2, "seconds": 0.1, "failures": [], "to_fill": []}
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.build_problems({Path("a.md"): [include]})
        log.scheduled({Path("b.md"): _done({**passed, "ran": 1, "failures": [block]})})
        log.built("rebuild 1", 1.0)
        log.built("rebuild 2", 1.0)  # the include fixed; no code ran
        log.scheduled({Path("b.md"): _done(passed)})
        log.built("rebuild 3", 1.0)  # the block fixed
        log.failed("mkdocs.yml:7: the nav names a page that does not exist\nmore")
        log.built("rebuild 5", 1.0)
    lines = [line for _, line in _lines(caplog)]
    assert lines[:3] == [
        "rebuild 1 done in 1.00 s · changed: docs/b.md · code: 1 of 2 blocks ran in 0.1 s, 1 failed",
        "docs/a.md:38: snippet include failed: ... (did you mean 'wrapper'?)",
        "docs/b.md:12: NameError: name 'x' is not defined"], lines
    assert lines[3:] == [
        "rebuild 2 done in 1.00 s · fixed: docs/a.md:38 snippet include",
        "rebuild 3 done in 1.00 s · fixed: docs/b.md:12 NameError · changed: docs/b.md · code: 2 blocks ran in 0.1 s, all passed",
        "rebuild 5 done in 1.00 s · fixed: mkdocs.yml:7 the nav names a…"], lines


def test_a_page_that_cannot_be_read_as_tests_is_not_run_not_counted_as_a_block(caplog):
    log = SaveLog(SETTINGS)
    include = {"where": "docs/a.md:38", "line": None, "message": "snippet include failed: ...", "report": "..."}
    log.scheduled({Path("a.md"): _done({"ran": 0, "blocks": 0, "seconds": 0.0, "failures": [include], "to_fill": []})})
    with caplog.at_level(logging.INFO, logger=LOGGER):
        log.built("rebuild 1", 1.0)
    assert _lines(caplog)[0][1].endswith("code: not run: the page cannot be read as tests (below)"), _lines(caplog)
