"""Where the reports arrive (the controller under pytest-xdist): the tally of blocks run and
pages reused, the rewrites of ``--update-outputs``, and the verified record
(``journal_tools.core.record.verified``) written at the end of the session."""

from __future__ import annotations

from pathlib import Path

import pytest

from journal_tools.core.code.outputs import apply_updates
from journal_tools.core.record.verified import Entry, page_digest, today, torch_version, update_record
from journal_tools.pagetest import state


class Tally:
    """Counts page blocks where the reports arrive (the controller under
    pytest-xdist), so the totals add up across workers. One per config, so a
    pytest run inside a test (pytester) keeps its own counts."""

    def __init__(self, config):
        self.config = config
        self.run = self.skipped = self.fences = self.pages = self.reused = 0
        self.skips: list[str] = []
        self.written: list = []  # outputs.PageRewrite, one per page rewritten
        self.seen: set[str] = set()  # every page a report came from (run, reused or unreadable)
        self.reused_blocks: dict[str, int] = {}  # a reused page: the blocks its reused run ran

    def pytest_runtest_logreport(self, report):
        """Add up what one test ran, skipped and reused."""
        page = dict(report.user_properties).get("pagetest_page")
        if page is not None:
            self.seen.add(page["path"])
            if page.get("reused") is not None:
                self.reused_blocks[page["path"]] = page["reused"].get("blocks", 0)
        if report.when != "call":
            return
        for key, value in report.user_properties:
            if key == "pagetest_run":
                self.run += value
            elif key == "pagetest_reused":
                self.reused += value
            elif key == "pagetest_skipped":
                self.skipped += len(value)
                self.skips.extend(value)
            elif key == "pagetest_fences":
                self.fences += value
                self.pages += 1

    def pytest_sessionfinish(self, session):
        """Apply --update-outputs' rewrites, noting each page's digest before and after."""
        updates = self.config.stash[state.UPDATES]
        if not updates:
            return
        settings = state.settings(self.config)
        pages = {u.page for u in updates if u.can_rewrite}
        before = {rel: page_digest(settings.root / rel, settings) for rel in pages}
        self.written = apply_updates(Path(self.config.rootpath), updates)
        self.config.stash[state.REWRITTEN] = {rel: (before[rel], page_digest(settings.root / rel, settings)) for rel in pages}

    def pytest_terminal_summary(self, terminalreporter):
        """The page doc-tests' section: blocks run, pages reused, skips, rewrites."""
        if not self.pages and not self.run and not self.reused and not self.seen:
            return
        tr = terminalreporter
        tr.section("page doc-tests")
        # Always, whatever failed: the blocks of every page (a reused one's as its reused run counted them).
        reused = len(self.reused_blocks)
        pages = max(len(self.seen), self.pages + reused)
        tr.write_line(
            f"executed {self.run} of {self.fences + sum(self.reused_blocks.values())} code blocks on "
            + (f"{self.pages} pages" if self.pages == pages else f"{self.pages} of {pages} pages")
            + (f"; {reused} page{'s' if reused > 1 else ''} reused" if reused else "")
            + (f"; {self.skipped} skipped with a written reason" if self.skipped else "")
        )
        if self.reused:
            tr.write_line(f"reused: the tests of {self.reused} unchanged page{'s' if self.reused > 1 else ''} (the page, its "
                          "snippets, the pins, PyTorch and the toolkit are the same as when they passed); FRESH=1 re-runs them")
        for skip in self.skips:
            tr.write_line(f"  skipped {skip}")
        for page in self.written:
            tr.write_line(f"  rewrote {page.summary()}")


class Verified:
    """Collects, where the reports arrive, which pages passed all their tests, and
    writes the verified record (``journal_tools.core.record.verified``) at the end of the session.

    A page counts as verified when every one of its items reported and none failed
    (a run of some of its items, ``-k`` or ``::page``, leaves its entry as it was);
    a page with a failed item loses its entry. Only the controller writes (under
    pytest-xdist the workers' reports come to it). A page --update-outputs rewrote
    is recorded under its digest after the rewrite (its outputs now are what the
    code printed), if nothing else changed it since it was collected.
    """

    def __init__(self, config):
        self.config = config
        self.pages: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report):
        """Note a page item's outcome and what it ran."""
        props = dict(report.user_properties)
        page = props.get("pagetest_page")
        if page is None:
            return
        seen = self.pages.setdefault(page["path"], {"page": page, "items": set(), "failed": False,
                                                    "blocks": 0, "numbers": 0})
        if report.failed:
            seen["failed"] = True
        if report.when == "call" or (report.when == "setup" and not report.passed):
            proved = page["reused"] or {}
            seen["items"].add(report.nodeid)
            seen["blocks"] += props.get("pagetest_run", 0) + proved.get("blocks", 0)
            seen["numbers"] += props.get("pagetest_numbers", 0) + proved.get("numbers", 0)

    @pytest.hookimpl(trylast=True)  # after Tally's, which rewrites pages under --update-outputs
    def pytest_sessionfinish(self, session):
        """Write the verified record (the controller only)."""
        if hasattr(self.config, "workerinput") or not self.pages:
            return
        settings = state.settings(self.config)
        if settings is None:
            return
        passed, failed = {}, set()
        torch, date = torch_version(), today()
        rewritten = self.config.stash[state.REWRITTEN]
        for rel, seen in self.pages.items():
            page = seen["page"]
            digest = page["digest"]
            if rel in rewritten:
                before, after = rewritten[rel]
                digest = after if before == digest else None  # edited during the run: vouch for nothing
            if seen["failed"] or digest is None:
                failed.add(rel)
            elif len(seen["items"]) == page["items"]:
                passed[rel] = Entry(digest, seen["blocks"], seen["numbers"], torch, date, page["notebook"])
                if page["run_key"] and digest == page["digest"] and page["reused"] is None:
                    state.page_runs(self.config).record(page["run_key"], {"blocks": seen["blocks"], "numbers": seen["numbers"]})
        update_record(settings, passed, failed)
