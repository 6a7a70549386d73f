"""Where the reports arrive (the controller under pytest-xdist): the tally of blocks run and
pages reused, the rewrites of ``--update-outputs``, and the record of the pages that passed
(``journal_tools.core.record.inputs``) written at the end of the session."""

from __future__ import annotations

from pathlib import Path

import pytest

from journal_tools.core.code.outputs import apply_updates
from journal_tools.core.record.inputs import Inputs, environment, file_digest
from journal_tools.core.record.verified import PAGE, today, torch_version
from journal_tools.pagetest import state


class Tally:
    """Counts page blocks where reports arrive (the xdist controller), so totals add up; one per config, so a pytester run keeps its own."""

    def __init__(self, config):
        self.config = config
        self.run = self.skipped = self.fences = self.pages = self.reused = 0
        self.skips: list[str] = []
        self.written: list = []  # outputs.PageRewrite, one per page rewritten
        self.seen: set[str] = set()  # every page a report came from (run, reused or unreadable)
        self.reused_blocks: dict[str, int] = {}  # a reused page: the blocks its reused run ran
        self.reused_chains = 0  # blocks not run again: their code passed before and what it read is unchanged

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
            elif key == "pagetest_chain_reused":
                self.reused_chains += value
            elif key == "pagetest_skipped":
                self.skipped += len(value)
                self.skips.extend(value)
            elif key == "pagetest_fences":
                self.fences += value
                self.pages += 1

    def pytest_sessionfinish(self, session):
        """Apply --update-outputs' rewrites, noting each page's bytes (their digest) before and after."""
        updates = self.config.stash[state.UPDATES]
        if not updates:
            return
        settings = state.settings(self.config)
        pages = {u.page for u in updates if u.can_rewrite}
        before = {rel: file_digest(settings.root / rel) for rel in pages}
        self.written = apply_updates(Path(self.config.rootpath), updates)
        self.config.stash[state.REWRITTEN] = {rel: (before[rel], file_digest(settings.root / rel)) for rel in pages}

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
        if self.reused_chains:
            tr.write_line(f"reused: {self.reused_chains} code block{'s' if self.reused_chains > 1 else ''} of changed pages, whose code "
                          "and every file it read are as when they passed (prose edits run no code); FRESH=1 re-runs them")
        if self.reused:
            tr.write_line(f"reused: the tests of {self.reused} unchanged page{'s' if self.reused > 1 else ''} (every file "
                          "they read and their code read is as when they passed, and so are the packages and the "
                          "toolkit); FRESH=1 re-runs them")
        for skip in self.skips:
            tr.write_line(f"  skipped {skip}")
        for page in self.written:
            tr.write_line(f"  rewrote {page.summary()}")


class Verified:
    """Records the pages that passed at session end (controller only): every item reported, none failed; a failure drops its records;
    ``--update-outputs`` pages after the rewrite; reused ones stand."""

    def __init__(self, config):
        self.config = config
        self.pages: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report):
        """Note a page item's outcome, what it ran and what its code read."""
        props = dict(report.user_properties)
        page = props.get("pagetest_page")
        if page is None:
            return
        seen = self.pages.setdefault(page["path"], {"page": page, "items": set(), "failed": False,
                                                    "blocks": 0, "numbers": 0, "read": Inputs()})
        if report.failed:
            seen["failed"] = True
        if report.when == "call" or (report.when == "setup" and not report.passed):
            seen["items"].add(report.nodeid)
            seen["blocks"] += props.get("pagetest_run", 0) + props.get("pagetest_chain_reused", 0)
            seen["numbers"] += props.get("pagetest_numbers", 0)
            observed = props.get("pagetest_observed") or {}
            seen["read"] |= Inputs(observed.get("files", {}), observed.get("folders", {}))

    @pytest.hookimpl(trylast=True)  # after Tally's, which rewrites pages under --update-outputs
    def pytest_sessionfinish(self, session):
        """Write the pages that passed, and drop what holds of those that failed (the controller only)."""
        if hasattr(self.config, "workerinput") or not self.pages:
            return
        settings = state.settings(self.config)
        if settings is None:
            return
        record, key = state.record(self.config), environment()
        torch, date = torch_version(), today()
        rewritten = self.config.stash[state.REWRITTEN]
        for rel, seen in self.pages.items():
            page = seen["page"]
            if page["reused"] is not None:
                continue
            read = Inputs.from_json(page["read"]) if page["read"] is not None else None
            if read is not None and rel in rewritten:
                before, after = rewritten[rel]
                # Edited during the run (not by the rewrite): vouch for nothing.
                read = Inputs({**read.files, rel: after}, read.folders) if read.files.get(rel) == before else None
            if seen["failed"] or read is None:
                record.failed(PAGE, rel, key)
            elif len(seen["items"]) == page["items"]:
                result = {"blocks": seen["blocks"], "numbers": seen["numbers"], "torch": torch, "date": date,
                          "notebook": page["notebook"]}
                record.passed(PAGE, rel, key, seen["read"] | read, result)
