"""``make serve`` only: one terminal line per save, once its build and code are done
(``rebuild 3 done in 1.42 s · changed: ... · code: 12 blocks ran in 0.8 s, all passed``), a line per problem
at its ``file:line``; MkDocs' own rebuild lines are left out (``compat.mkdocs_log.quiet_rebuilds``).
"""

from __future__ import annotations

import logging
import re
import threading
from concurrent.futures import Future
from pathlib import Path

from journal_tools.core.settings import Settings
from journal_tools.serve import panels

__all__ = ["SaveLog", "summary"]

log = logging.getLogger("mkdocs.plugins.journal.serve")

FIRST = "first build"  # the label of the build before serving starts: its line counts the pages, it names none


class SaveLog:
    """The runs the current build started, and the line that reports the build once they end."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._futures: dict[Path, Future] = {}
        self._reasons: list[str] = []  # what asked for the next rebuild, besides a saved file
        self._guard = threading.Lock()
        self._build_problems: dict[Path, list[dict]] = {}  # this build's mistakes of pages served all the same
        # What the terminal last said was wrong, so a later line can say what was fixed: each page's
        # problems (``file:line`` -> a short name), and a build that failed as a whole.
        self._code_open: dict[Path, dict[str, str]] = {}  # the code's, per page
        self._build_open: dict[str, str] = {}  # the build's, of the last build
        self._failed: tuple[str, str] | None = None

    def build_problems(self, problems: dict[Path, list[dict]]) -> None:
        """This build's mistakes of pages it served under a panel (``panels.build_problem``)."""
        self._build_problems = dict(problems)

    def failed(self, message: str) -> None:
        """The build failed as a whole (``error_pages``): the next build that ends says it is fixed."""
        m = re.match(r"(\S+?:\d+): (.*)", message.split("\n", 1)[0])
        self._failed = _named({"where": m.group(1), "message": m.group(2)} if m else
                              {"where": "the build", "message": message.split("\n", 1)[0]})

    def scheduled(self, futures: dict[Path, Future]) -> None:
        """The runs this build started (``ServeState.schedule``)."""
        self._futures = dict(futures)

    def asked_by(self, reason: str) -> None:
        """Background work asked for the next rebuild (the line names it)."""
        with self._guard:
            self._reasons.append(reason)

    def built(self, label: str, seconds: float) -> None:
        """The build ended: log its line now, or when the last of its runs is done."""
        futures, self._futures = self._futures, {}
        with self._guard:
            reasons, self._reasons = self._reasons, []
        head = f"{label} done in {seconds:.2f} s"
        problems, self._build_problems = self._build_problems, {}
        if not futures:
            fixed = self._fixed({}, problems)
            why = f"asked for by {', '.join(dict.fromkeys(reasons))}" if reasons else "" if fixed else "no page changed"
            line = " · ".join(p for p in (head, fixed, why) if p)
            (log.warning if problems else log.info)(line)
            self._problem_lines([f for found in problems.values() for f in found], [])
            return
        left = [len(futures)]
        lock = threading.Lock()

        def one_done(_future: Future) -> None:
            with lock:
                left[0] -= 1
                if left[0]:
                    return
            self._report(head, futures, problems)

        for future in futures.values():
            future.add_done_callback(one_done)

    def _report(self, head: str, futures: dict[Path, Future], problems: dict[Path, list[dict]]) -> None:
        outcomes = {page: f.result() for page, f in futures.items()}
        rel = self.settings.rel
        names = [rel(p) for p in futures]
        changed = ", ".join(names[:3]) + (f" and {len(names) - 3:,} more" if len(names) > 3 else "")
        what = f"{len(names):,} pages" if head.startswith(FIRST) else f"changed: {changed}"
        fixed = self._fixed(outcomes, problems)
        failures = panels.with_build_problems([f for found in problems.values() for f in found],
                                              [f for o in outcomes.values() for f in o["failures"]])
        to_fill = [f for o in outcomes.values() for f in o.get("to_fill", [])]
        line = " · ".join(p for p in (head, fixed, what, f"code: {summary(list(outcomes.values()))}") if p)
        (log.warning if failures else log.info)(line)
        self._problem_lines(failures, to_fill)

    def _problem_lines(self, failures: list[dict], to_fill: list[dict]) -> None:
        for f in failures:
            log.warning("%s: %s", _at(f), f["message"])
        for f in to_fill:
            log.info("%s: output to fill (make update-outputs)", _at(f))

    def _fixed(self, outcomes: dict[Path, dict], problems: dict[Path, list[dict]]) -> str:
        """``fixed: docs/x.md:38 snippet include``: what the terminal said was wrong and no longer is (code, build, a failed build)."""
        before = dict(self._build_open)
        for page in outcomes:
            before.update(self._code_open.get(page, {}))
        self._build_open = dict(_named(f) for found in problems.values() for f in found)
        for page, outcome in outcomes.items():
            if not outcome.get("superseded"):  # a run stopped by a later save says nothing of the page
                self._code_open[page] = dict(_named(f) for f in outcome["failures"])
        still = self._build_open | {w: n for found in self._code_open.values() for w, n in found.items()}
        fixed = [f"{w} {n}" for w, n in ([self._failed] if self._failed else []) + list(before.items()) if w not in still]
        self._failed = None
        return f"fixed: {', '.join(fixed)}" if fixed else ""


def _named(item: dict) -> tuple[str, str]:
    """A problem's ``file:line`` and short name (``snippet include``, ``NameError``, ``bad TeX in formula``), for a later fixed line."""
    head = re.split(r"[:;(]", item["message"], maxsplit=1)[0].strip().removesuffix(" failed")
    words = head.split()
    return item["where"], " ".join(words[:4]) + ("…" if len(words) > 4 else "")


def _at(item: dict) -> str:
    """``file:line`` of a failure or an output to fill (``Origin.describe``: a snippet line names the page line too)."""
    return item["where"]


def summary(outcomes: list[dict]) -> str:
    """What the runs of one build did: blocks run, seconds, failures, outputs to fill."""
    if any(o.get("superseded") for o in outcomes) and all(o.get("superseded") or not o["ran"] for o in outcomes):
        return "stopped: saved again before it was done"
    ran = sum(o["ran"] for o in outcomes)
    blocks = sum(max(o.get("blocks", 0), o["ran"]) for o in outcomes)
    seconds = max((o["seconds"] for o in outcomes), default=0.0) if len(outcomes) == 1 else sum(o["seconds"] for o in outcomes)
    failed = sum(len(o["failures"]) for o in outcomes)
    fill = sum(len(o.get("to_fill", [])) for o in outcomes)
    if not ran and not failed:
        return "no code blocks"
    if not ran and all(o["failures"] and not o.get("blocks") for o in outcomes):  # failed while read as tests
        return "not run: the page cannot be read as tests (below)" if len(outcomes) == 1 else \
            f"not run: {len(outcomes)} pages cannot be read as tests (below)"
    counted = f"{ran:,} of {blocks:,} blocks" if ran < blocks else f"{ran:,} block{'' if ran == 1 else 's'}"
    reused = sum(o.get("reused", 0) for o in outcomes)  # passed before with the same code and reads: the judge ran them not again
    if reused == ran and not failed and not fill:
        return f"{counted} passed before with this code and what it read: not run again"
    parts = [f"{counted} ran in {seconds:.1f} s" + (f" ({reused:,} passed before, not run again)" if reused else "")]
    parts.append(f"{failed} failed" if failed else "all passed" if not fill else "")
    if fill:
        parts.append(f"{fill} output{'' if fill == 1 else 's'} to fill (make update-outputs)")
    return ", ".join(p for p in parts if p)
