"""A chain with checked outputs runs again from ``OTHER_SEED``: a checked output (or number in the text) that changes fails,
since a reader's run starts from no seed of ours. Such an output is never rewritten by ``make update-outputs``.
"""

from __future__ import annotations

from typing import Callable

from journal_tools.core.code.parse import Page, Step
from journal_tools.core.code.run import SEED, BlockError, ChainResult, run_chain

OTHER_SEED = 1


def checked(step: Step) -> bool:
    """Does the page show something this step's output (or a number in the text after it) must equal?"""
    return _checked_output(step) or any(part.prose for part in step.parts)


def _checked_output(step: Step) -> bool:
    return step.expected_output is not None or step.math is not None


def run_checked(page: Page, steps: list[Step], result: ChainResult, update: list | None = None,
                on_step: Callable[[int], None] | None = None, forget: Callable[[], None] = lambda: None) -> ChainResult:
    """``run.run_chain``, then the seed check; a seed-dependent output is a BlockError at its block (``result.failed``), before any
    mismatch of its own. ``forget()`` before the rerun drops the snippet modules the first run imported (the worker's), so what they
    draw at import is drawn again from the other seed."""
    on_step = on_step or (lambda index: None)
    before: list[int] = []  # len(update) before each step: which updates a step made

    def started(index: int) -> None:
        before.append(len(update) if update is not None else 0)
        on_step(index)

    try:
        run_chain(page, steps, result, update, started)
    except BlockError as exc:
        if exc.printed is None:  # the block raised: that is the failure
            raise
        printed = [r.stdout for r in result.results] + [exc.printed]
        try:
            _raise_if_seed_dependent(page, steps[: len(printed)], printed, on_step, forget, [r.shown for r in result.results])
        except _SeedDependent as dependent:
            result.failed = steps[dependent.index]
            raise dependent.error from None
        raise
    printed = [r.stdout for r in result.results]
    try:
        _raise_if_seed_dependent(page, steps, printed, on_step, forget, [r.shown for r in result.results])
    except _SeedDependent as dependent:
        result.failed = steps[dependent.index]
        if update is not None:  # its rewrite would record a seed-0 output as right
            end = before[dependent.index + 1] if dependent.index + 1 < len(before) else len(update)
            del update[before[dependent.index]:end]
        raise dependent.error from None
    return result


class _SeedDependent(Exception):
    def __init__(self, index: int, error: BlockError):
        super().__init__(error.report)
        self.index, self.error = index, error


def _raise_if_seed_dependent(page: Page, steps: list[Step], printed: list[str], on_step, forget, shown: list[list[str]]) -> None:
    """Rerun ``steps`` from OTHER_SEED up to the last checked one; _SeedDependent at the first checked step printing otherwise or failing"""
    last = max((i for i, s in enumerate(steps) if checked(s) and i < len(printed)), default=None)
    if last is None:
        return
    again = ChainResult()
    seconds: list[str] = []
    forget()
    try:  # mismatches with the page are not this run's business: only what was printed
        run_chain(page, steps[: last + 1], again, [], on_step, seed=OTHER_SEED)
    except BlockError as exc:
        index = len(again.results)
        # A mismatch no update can write (a matrix of another shape than its tensor) fails this run
        # too; printed as from SEED, it is the page's own failure, not the seed's.
        if exc.printed is None or index >= len(printed) or exc.printed != printed[index]:
            raise _SeedDependent(index, BlockError(steps[index].origin, _message(
                page, steps[index], f"it fails when the tests start from seed {OTHER_SEED} instead of {SEED}:\n"
                                    f"{exc.report}"))) from None
        seconds = [exc.printed]
    for i, (step, first, second) in enumerate(zip(steps, printed, [r.stdout for r in again.results] + seconds)):
        if _checked_output(step) and first != second:
            raise _SeedDependent(i, BlockError(step.origin, _message(page, step, _difference(first, second))))
    for i, (step, first, second) in enumerate(zip(steps, shown, [r.shown for r in again.results])):
        numbers = [n for part in step.parts for n in part.prose]
        for number, a, b in zip(numbers, first, second):
            if a != b:
                raise _SeedDependent(i, BlockError(number.origin, f"the number in the text at line {number.origin.line} "
                                                   f"changes with the seed the tests start from: it gives {a} from seed {SEED}, "
                                                   f"{b} from seed {OTHER_SEED}. {_ADVICE}"))


def _message(page: Page, step: Step, what: str) -> str:
    shown = page.where(step.expected_fence.start).line if step.expected_fence is not None else step.math.origin.line
    return f"the output checked at line {shown} changes with the seed the tests start from: {what}\n{_ADVICE}"


_ADVICE = ("The page never sets a seed before this block, so a reader running it would get other numbers. Seed the random "
           "draws on the page, before this block (torch.manual_seed(0), for instance), and run the tests again.")


def _difference(first: str, second: str) -> str:
    """The first line that differs, as printed from SEED and from OTHER_SEED."""
    a, b = first.split("\n"), second.split("\n")
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    line = (a[k] if k < len(a) else "(nothing)"), (b[k] if k < len(b) else "(nothing)")
    return (f"printed line {k + 1} is\n  from seed {SEED}: {line[0]}\n  from seed {OTHER_SEED}: {line[1]}")
