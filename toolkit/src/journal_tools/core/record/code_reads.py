"""The journal files an entry's code reads, for its downloads to carry: from the record of its passed tests;
else ``make build`` runs its code once, watched, and records that (kind ``code reads``); ``make serve``
takes the newest observation. Not carried: what the download holds already, what the tests read
themselves, files missing.
"""

from __future__ import annotations

from pathlib import Path

from journal_tools.core.record.inputs import MISSING, Inputs, Record, environment
from journal_tools.core.record.verified import PAGE, read_by_tests
from journal_tools.core.settings import Settings

__all__ = ["KIND", "files_read"]

KIND = "code reads"


def files_read(record: Record, path: Path, settings: Settings, *, run=None) -> list[Path]:
    """Data files page ``path``'s code reads; ``run(path)`` observes a run when no record holds; None (make serve): newest observation."""
    rel, key = settings.rel(path), environment()
    held = record.held(PAGE, rel, key) or record.held(KIND, rel, key) or _chains_held(record, path, settings)
    if held is None and run is not None:
        read = Inputs.observe(read_by_tests(path, settings), root=settings.root)
        seen = run(path)
        held = (read | Inputs(seen.get("files", {}), seen.get("folders", {}))), {}
        record.passed(KIND, rel, key, held[0])
    held = held or record.latest(PAGE, rel, key) or record.latest(KIND, rel, key)
    if held is None:
        return []
    own = set(read_by_tests(path, settings))
    modules = {settings.rel(p) for d in settings.snippet_dirs for p in d.rglob("*.py")}
    return [Path(label) for label, digest in sorted(held[0].files.items())
            if digest != MISSING and label not in own and label not in modules]


def observed_run(sandbox, settings: Settings):
    """``run`` for :func:`files_read`: every chain of the page in ``sandbox``'s worker, watched whatever its outcome."""
    from journal_tools.core.code.parse import parse_page
    from journal_tools.core.code.run import BlockError, ChainResult
    from journal_tools.core.mistake import Mistake

    def run(path: Path) -> dict:
        seen: dict = {"files": {}, "folders": {}}
        try:
            page = parse_page(path, settings)
        except Mistake:  # the page tests name it; nothing ran, nothing read
            return seen
        for steps in [page.steps] if page.mode == "page" else [[s] for s in page.steps]:
            result = ChainResult()
            try:
                # only to see what it reads: no seed check (the page tests run it)
                sandbox.run_chain(page, steps, result, snippet_dirs=settings.snippet_dirs, root=settings.root, seed_check=False)
            except BlockError:
                pass  # what it read up to there counts; the page tests report the failure
            for kind in seen:
                seen[kind].update(result.observed.get(kind, {}))
        return seen

    return run


def _chains_held(record: Record, path: Path, settings: Settings) -> tuple[Inputs, dict] | None:
    """What the page's code read, from its chains' records (``core.judge``: kept under their code, so a prose edit keeps them) when
    every chain has one that holds; else None."""
    from journal_tools.core.code.parse import parse_page
    from journal_tools.core.judge import CHAIN, chain_key
    from journal_tools.core.mistake import Mistake

    try:
        page = parse_page(path, settings)
    except Mistake:  # the page tests name it
        return None
    chains = [page.steps] if page.mode == "page" else [[s] for s in page.steps]
    read = Inputs()
    for steps in chains:
        held = record.held(CHAIN, f"{settings.rel(path)}#{page.steps.index(steps[0])}", chain_key(page, steps)) if steps else None
        if held is None:
            return None
        read |= held[0]
    return read, {}
