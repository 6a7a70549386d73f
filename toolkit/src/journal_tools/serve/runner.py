"""What ``make serve`` runs in its warm worker: :func:`run_page`, every chain of a page as ``make test`` runs them
(``core.judge``, with the one record: a chain that passed anywhere and still holds runs nowhere, a chain that passes here is
reused by ``make test``), answering one dict (ran, blocks, seconds, failures, outputs to fill, what the code read).
An empty output fence is "to fill", not a failure.
"""

from __future__ import annotations

import time
from pathlib import Path

from journal_tools.core.code.sandbox import Aborted, Sandbox
from journal_tools.core.record.inputs import Record
from journal_tools.core.settings import Settings

__all__ = ["run_page"]


def run_page(sandbox: Sandbox, record: Record, settings: Settings, page_path: Path, stale=lambda: False) -> dict:
    """Judge every chain of one page; the outcome as a JSON-ready dict. Aborted as soon as ``stale()`` says the page was saved again."""
    from journal_tools.core.code.parse import parse_page
    from journal_tools.core.judge import chain_tests, judge_chain
    from journal_tools.core.mistake import Mistake

    start = time.perf_counter()
    out = {"page": str(page_path), "ran": 0, "reused": 0, "blocks": 0, "failures": [], "to_fill": [],
           "read": {"files": {}, "folders": {}}}
    try:
        page = parse_page(Path(page_path), settings)
    except Mistake as exc:  # the page cannot be read as tests
        out["failures"].append(_failure(exc, None if exc.included_at else exc.line))
        return out | {"seconds": time.perf_counter() - start}
    out["blocks"] = sum(len(step.parts) for step in page.steps)
    for test in chain_tests(page):
        if stale():
            raise Aborted()
        verdict = judge_chain(sandbox, record, page, test, settings, cancelled=stale)
        for mistake, step in verdict.to_fill():
            out["to_fill"].append({"where": page.where(step.expected_fence.start).describe(),
                                   "line": page.where(step.parts[0].fence.start).line})
        for mistake, step in verdict.mistakes():
            out["failures"].append(_failure(mistake, page.where(step.parts[0].fence.start).line if step else None))
        out["ran"] += verdict.result.executed_fences if verdict.reused is None else verdict.reused["fences"]
        out["reused"] += 0 if verdict.reused is None else verdict.reused["fences"]  # counted in "ran": they passed, with this code
        read = verdict.result.observed if verdict.reused is None else verdict.reused["read"]
        for kind in ("files", "folders"):
            out["read"][kind].update(read.get(kind, {}))
    return out | {"seconds": time.perf_counter() - start}


def _failure(exc, line: int | None) -> dict:
    """A failure of the outcome: its ``file:line``, the block's fence line (for the panel's link), the message."""
    where = exc.origin.describe() if exc.origin else exc.path
    return {"where": where, "line": line, "message": exc.problem.split("\n", 1)[0], "report": str(exc)}
