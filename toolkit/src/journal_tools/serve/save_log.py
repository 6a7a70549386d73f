"""``make serve`` only: one terminal line per save, once the build and the code it started are done.

    rebuild 3 done in 1.42 s · changed: docs/blog/posts/x.md · code: 12 blocks ran in 0.8 s, all passed

A page gets a line of its own only for a problem, at its ``file:line``: every
failure the page's panel shows (a warning), and every empty output fence
still to fill (``make update-outputs``). A build that ran no page's code
because none changed says what asked for it (a notebook's or figure's work
in the background). MkDocs' own lines for each rebuild (``Detected file
changes``, ``Building documentation...``, ``Documentation built in``,
``Reloading browsers``) are left out once serving starts
(``journal_tools.compat.mkdocs_log.quiet_rebuilds``): this line says all of it.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from pathlib import Path

from journal_tools.core.settings import Settings

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
        if not futures:
            why = f"asked for by {', '.join(dict.fromkeys(reasons))}" if reasons else "no page changed"
            log.info("%s · %s", head, why)
            return
        left = [len(futures)]
        lock = threading.Lock()

        def one_done(_future: Future) -> None:
            with lock:
                left[0] -= 1
                if left[0]:
                    return
            self._report(head, futures)

        for future in futures.values():
            future.add_done_callback(one_done)

    def _report(self, head: str, futures: dict[Path, Future]) -> None:
        outcomes = [f.result() for f in futures.values()]
        rel = self.settings.rel
        names = [rel(p) for p in futures]
        changed = ", ".join(names[:3]) + (f" and {len(names) - 3:,} more" if len(names) > 3 else "")
        what = f"{len(names):,} pages" if head.startswith(FIRST) else f"changed: {changed}"
        failures = [f for o in outcomes for f in o["failures"]]
        to_fill = [f for o in outcomes for f in o.get("to_fill", [])]
        line = f"{head} · {what} · code: {summary(outcomes)}"
        (log.warning if failures else log.info)(line)
        for f in failures:
            log.warning("%s: %s", _at(f), f["message"])
        for f in to_fill:
            log.info("%s: output to fill (make update-outputs)", _at(f))


def _at(item: dict) -> str:
    """``file:line`` of a failure or an output to fill (``Origin.describe``: a snippet line names the page line too)."""
    return item["where"]


def summary(outcomes: list[dict]) -> str:
    """What the runs of one build did: blocks run, seconds, failures, outputs to fill."""
    if any(o.get("superseded") for o in outcomes) and all(o.get("superseded") or not o["ran"] for o in outcomes):
        return "stopped: saved again before it was done"
    ran = sum(o["ran"] for o in outcomes)
    seconds = max((o["seconds"] for o in outcomes), default=0.0) if len(outcomes) == 1 else sum(o["seconds"] for o in outcomes)
    failed = sum(len(o["failures"]) for o in outcomes)
    fill = sum(len(o.get("to_fill", [])) for o in outcomes)
    if not ran and not failed:
        return "no code blocks"
    parts = [f"{ran:,} block{'' if ran == 1 else 's'} ran in {seconds:.1f} s"]
    parts.append(f"{failed} failed" if failed else "all passed" if not fill else "")
    if fill:
        parts.append(f"{fill} output{'' if fill == 1 else 's'} to fill (make update-outputs)")
    return ", ".join(p for p in parts if p)
