"""The judge of a page's code: one chain of steps (a block with its ``cont`` blocks, or a ``doctest: page`` page) run in the
sandbox's worker, every mistake it makes collected with the step it belongs to. The page tests (``make check``, ``make test``,
``make update-outputs``) and ``make serve`` both call it, so they run the same code the same way and name the same mistakes.

A differing output does not stop the chain (``make update-outputs``' way of running): the blocks after it run, so one run names
every output that differs, and an empty output fence (the README's way to start one) is an output to fill, not the end of the chain.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from journal_tools.core.code.outputs import OutputMismatch
from journal_tools.core.code.parse import Page, Step
from journal_tools.core.code.run import BlockError, ChainResult
from journal_tools.core.mistake import Mistake
from journal_tools.core.record.inputs import Inputs, Record, environment
from journal_tools.core.settings import Settings

__all__ = ["CHAIN", "ChainVerdict", "PageMistakes", "chain_key", "judge_chain"]

CHAIN = "chain"  # the record's kind: a chain that passed, under its code (the key) and what its code read (the inputs)


@dataclass
class ChainVerdict:
    """What one chain did: its result (steps run, numbers, what its code read), each mistake with its step, the rewrites it asks for."""

    result: ChainResult
    failures: list[tuple[Mistake, Step | None]] = field(default_factory=list)  # in page order
    rewrites: list[OutputMismatch] = field(default_factory=list)  # every differing output or matrix that can be written back
    reused: dict | None = None  # a passed run of the same code whose reads hold: {"fences", "numbers", "read"}; nothing ran

    def to_fill(self) -> list[tuple[Mistake, Step]]:
        """The failures that are an empty output fence: outputs to fill, which ``make serve`` shows as such."""
        return [(m, s) for m, s in self.failures if s is not None and _empty_output(m, s)]

    def mistakes(self) -> list[tuple[Mistake, Step | None]]:
        """The failures that are not an output to fill."""
        fill = {id(m) for m, _ in self.to_fill()}
        return [(m, s) for m, s in self.failures if id(m) not in fill]


def _empty_output(mistake: Mistake, step: Step) -> bool:
    return isinstance(mistake, OutputMismatch) and mistake.kind == "output" and not (step.expected_output or "").strip()


def judge_chain(sandbox, page: Page, steps: list[Step], settings: Settings, *, cancelled=None, record: Record | None = None,
                subject: str | None = None) -> ChainVerdict:
    """Run ``steps`` in one namespace in ``sandbox``'s worker; every mistake, each with its step (``cancelled``: Sandbox.call's).

    With ``record``: a passed run of the same code (:func:`chain_key`) whose reads hold is reused, nothing run; a run that passes is
    written down under ``subject``. So a prose edit runs no code, and the seed check runs once per code change."""
    key = chain_key(page, steps)
    held = record.held(CHAIN, subject, key) if record is not None and record.reuse else None
    if held is not None:
        return ChainVerdict(ChainResult(), reused=held[1] | {"read": {"files": dict(held[0].files), "folders": dict(held[0].folders)}})
    verdict = ChainVerdict(ChainResult())
    try:
        sandbox.run_chain(page, steps, verdict.result, verdict.rewrites, snippet_dirs=settings.snippet_dirs,
                          cancelled=cancelled, root=settings.root)
    except BlockError as exc:
        verdict.failures.append((exc, verdict.result.failed))
    verdict.failures += [(mismatch, _step_of(page, steps, mismatch)) for mismatch in verdict.rewrites]
    verdict.failures.sort(key=lambda failure: _page_line(failure[0]))
    result = verdict.result
    if record is not None and not verdict.failures and all(r.status == "passed" for r in result.results):
        read = Inputs(result.observed.get("files", {}), result.observed.get("folders", {}))
        record.passed(CHAIN, subject, key, read, {"fences": result.executed_fences, "numbers": result.numbers_checked,
                                                  "shown": result.shown})
    return verdict


def chain_key(page: Page, steps: list[Step]) -> str:
    """What a chain's run depends on besides the files its code reads: its code (includes expanded), the outputs and matrices it is
    checked against (numbers in the text too), its markers, the page's mode and time limit, and the environment (packages, Python,
    the toolkit). Not the prose around it, nor the lines it stands at."""
    h = hashlib.sha256(f"{environment()}\0{page.mode}\0{page.limit.seconds}".encode())
    for step in steps:
        math = (step.math.tex, repr(step.math.selector)) if step.math is not None else None
        parts = [(p.code, [(n.written, n.field) for n in p.prose]) for p in step.parts]
        h.update(repr((step.lang, parts, step.expected_output, step.expected_ignore_whitespace, math,
                       [repr(m) for m in step.marks], step.importorskip)).encode())
    return h.hexdigest()


def _page_line(mistake: Mistake) -> int:
    """The page line a mistake is at (the including line for a snippet line): the order a reader meets them."""
    return mistake.included_at[1] if mistake.included_at else (mistake.line or 0)


def _step_of(page: Page, steps: list[Step], mismatch: OutputMismatch) -> Step | None:
    """The step whose expected output or checked matrix ``mismatch`` is about (None: not found)."""
    for step in steps:
        fence, math = step.expected_fence, step.math
        if mismatch.kind == "output" and fence is not None and page.where(fence.start).line + 1 <= mismatch.line \
                <= page.where(fence.end).line:
            return step
        if mismatch.kind == "matrix" and math is not None and mismatch.line in {page.where(i).line for i in math.lines}:
            return step
        if mismatch.kind == "prose" and any(n.origin == mismatch.origin for p in step.parts for n in p.prose):
            return step
    return None


class PageMistakes(Mistake):
    """Every mistake of one chain as one failure, located at the first; the others follow it whole."""

    def __init__(self, found: list[Mistake]):
        self.found = found
        first = found[0]
        super().__init__(first.path, first.line, first.problem, first.included_at)

    def __str__(self) -> str:
        if len(self.found) == 1:
            return Mistake.__str__(self.found[0])
        more = "\n\n".join(Mistake.__str__(m) for m in self.found[1:])
        return f"{Mistake.__str__(self.found[0])}\n\n{len(self.found) - 1} more in the same run:\n{more}"
