"""The judge of a page: what its tests are (:func:`page_tests`: their ids, chains and record subjects, the one place they are
spelled), and the one runner of its code (:func:`judge_chain`: a chain of steps, a block with its ``cont`` blocks or a
``doctest: page`` page, run in the sandbox's worker with every mistake collected with its step, or taken from the record).
The page tests (``make check``, ``make test``, ``make update-outputs``), ``make serve``, the build (what an entry's code reads)
and the downloads test all ask it, with the one record, so a chain that passed anywhere runs nowhere again while it holds.

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

__all__ = ["BIBLIOGRAPHY", "CHAIN", "FIGURES", "NOTEBOOK", "PAGE", "RENDER", "REUSED", "ChainVerdict", "PageTest", "chain_key",
           "chain_tests", "code_read", "judge_chain", "judged", "node_id", "page_tests"]

CHAIN = "chain"  # the record's kind: a chain that passed, under its code (the key) and what its code read (the inputs)

# The names of a page's tests (pytest's ``page.md::<name>``, the build's list of mistakes, serve's panel): spelled here only.
RENDER = "render"  # the page as rendered: math, citations, the fences a reader sees are the ones run
PAGE = "page"  # a page that cannot be read as tests, or a ``doctest: page`` page's one chain
FIGURES = "figures"  # the page's ``journal:figure`` lines
NOTEBOOK = "notebook"  # a notebook page's code cells
BIBLIOGRAPHY = "bibliography"  # the BibTeX file's own test
REUSED = "reused"  # a page whose every test passed with what they read as it is now: one item, nothing run


def node_id(rel: str, name: str) -> str:
    """A page test's id, as pytest names it: ``docs/blog/posts/x.md::line 12``."""
    return f"{rel}::{name}"


@dataclass(frozen=True)
class PageTest:
    """One test of a page: its name (:func:`node_id`), and for a chain its steps and its record subject."""

    name: str
    steps: tuple[Step, ...] = ()
    subject: str | None = None  # the chain's record subject: ``page.md#<index of its first step>``


def chain_tests(page: Page) -> list[PageTest]:
    """The page's chains, decided here once: the whole page as one chain (``doctest: page``), else one per block with its ``cont``
    blocks, each named by its first fence's line."""
    if page.mode == "page":
        return [PageTest(PAGE, tuple(page.steps), f"{page.path}#0")] if page.steps else []
    return [PageTest(f"line {page.where(step.parts[0].fence.start).line}", (step,), f"{page.path}#{index}")
            for index, step in enumerate(page.steps)]


def page_tests(page: Page, figure_lines: bool) -> list[PageTest]:
    """A Markdown page's tests in the order they run: its render, its figures (when it has figure lines), its chains."""
    return [PageTest(RENDER), *([PageTest(FIGURES)] if figure_lines else []), *chain_tests(page)]


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


def judge_chain(sandbox, record: Record, page: Page, test: PageTest, settings: Settings, *, cancelled=None) -> ChainVerdict:
    """Run ``test``'s chain in one namespace in ``sandbox``'s worker; every mistake, each with its step (``cancelled``: Sandbox.call's).

    A passed run of the same code (:func:`chain_key`) whose reads hold is reused, nothing run (unless ``record.reuse`` is off: FRESH=1,
    a named page, ``make update-outputs``); a run that passes is written down under the chain's subject, whoever asked. So a prose edit
    runs no code, and the seed check runs once per code change."""
    steps = list(test.steps)
    key = chain_key(page, steps)
    held = record.held(CHAIN, test.subject, key) if record.reuse else None
    if held is not None:
        return _reused(held)
    verdict = ChainVerdict(ChainResult())
    try:
        sandbox.run_chain(page, steps, verdict.result, verdict.rewrites, snippet_dirs=settings.snippet_dirs,
                          cancelled=cancelled, root=settings.root)
    except BlockError as exc:
        verdict.failures.append((exc, verdict.result.failed))
    verdict.failures += [(mismatch, _step_of(page, steps, mismatch)) for mismatch in verdict.rewrites]
    verdict.failures.sort(key=lambda failure: _page_line(failure[0]))
    result = verdict.result
    if not verdict.failures and all(r.status == "passed" for r in result.results):
        read = Inputs(result.observed.get("files", {}), result.observed.get("folders", {}))
        record.passed(CHAIN, test.subject, key, read, {"fences": result.executed_fences, "numbers": result.numbers_checked,
                                                       "shown": result.shown})
    return verdict


def judged(sandbox, record: Record, page: Page, test: PageTest, settings: Settings) -> ChainVerdict:
    """The build's question, what a chain read and gives: its passed run while its inputs hold, whatever ``record.reuse`` says (a fact,
    not a check to repeat: under ``FRESH=1`` the page tests check again), else :func:`judge_chain` now."""
    held = record.held(CHAIN, test.subject, chain_key(page, list(test.steps)))
    return _reused(held) if held is not None else judge_chain(sandbox, record, page, test, settings)


def _reused(held: tuple[Inputs, dict]) -> ChainVerdict:
    return ChainVerdict(ChainResult(), reused=held[1] | {"read": {"files": dict(held[0].files), "folders": dict(held[0].folders)}})


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


def code_read(sandbox, record: Record, path, settings: Settings) -> Inputs | None:
    """What page ``path``'s code reads, from each chain's record that holds (whatever ``record.reuse`` says: what it read while its
    inputs hold is a fact). A chain with none is judged in ``sandbox`` (run once and recorded; a failing run's reads up to its failure
    count), or without a sandbox (make serve, whose worker judges it after the build; tests of a build) taken from its newest record,
    of an earlier version of its code if need be. None: the page cannot be read as tests."""
    from journal_tools.core.code.parse import parse_page

    try:
        page = parse_page(path, settings)
    except Mistake:  # the page tests name it
        return None
    read = Inputs()
    for test in chain_tests(page):
        if sandbox is None:  # make serve: its worker judges the page after the build
            held = record.held(CHAIN, test.subject, chain_key(page, list(test.steps))) or record.latest(CHAIN, test.subject, None)
            read |= held[0] if held is not None else Inputs()
            continue
        verdict = judged(sandbox, record, page, test, settings)
        seen = verdict.reused["read"] if verdict.reused is not None else verdict.result.observed
        read |= Inputs(seen.get("files", {}), seen.get("folders", {}))
    return read
