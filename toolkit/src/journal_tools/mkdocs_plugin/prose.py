"""Numbers in a page's sentences (``core/code/prose_numbers.py``) as readers see them, in the page, its excerpt, feeds and
search: a written one as written (its check is the page tests', and its page's badge says whether it held), a filled one as the
value its code gives. That value comes from the judge (``core/judge.py``): the record of the chain's passed run while it holds,
else a run of the chain now (make build and make serve alike), so only a page with a filled number whose code changed runs code.
A notebook's written numbers: :func:`notebook_mismatches`.
"""

from __future__ import annotations

from pathlib import Path

from journal_tools.core.code import prose_numbers
from journal_tools.core.code.outputs import OutputMismatch
from journal_tools.core.mistake import Mistake
from journal_tools.core.settings import Settings

__all__ = ["notebook_mismatches", "shown_markdown"]


def shown_markdown(markdown: str, src: Path, settings: Settings, record, sandbox, *,
                   check_written: bool) -> tuple[str, list[tuple[Mistake, str]]]:
    """``markdown`` (page ``src``'s, as MkDocs read it) with its tied numbers as readers see them, and each mistake with the page test
    that reports it: a filled number that has no value, and (``check_written``: make build) a written one its code contradicts, at its
    line, so a published page never shows a number its code does not give. ``sandbox()`` gives the worker to run code in."""
    if "{=" not in markdown:
        return markdown, []
    from journal_tools.core.code.parse import parse_page
    from journal_tools.core.judge import PAGE, node_id

    try:
        page = parse_page(src, settings)
    except Mistake as exc:  # the page tests report it (::page); a filled number has no value then, and says so
        filled = prose_numbers.shown(markdown, ["\0"] * markdown.count("{=")) != prose_numbers.shown(markdown)
        return prose_numbers.shown(markdown), [(exc, node_id(settings.rel(src), PAGE))] if filled else []
    own = [(n, s) for s in page.steps for p in s.parts for n in p.prose if n.origin.path == page.path and not n.origin.included_at]
    own.sort(key=lambda ns: (ns[0].line, ns[0].start))
    wanted = {id(s) for n, s in own if check_written or not n.checked}
    if not wanted:
        return prose_numbers.shown(markdown), []
    values, missing, wrong = _values(page, settings, record, sandbox, wanted)
    shown = [n.written if n.checked else values.get(n) for n, _ in own]
    return prose_numbers.shown(markdown, shown), [missing[n] for n, _ in own if not n.checked and values.get(n) is None] + wrong


def _values(page, settings: Settings, record, sandbox, wanted: set[int]) -> tuple[dict, dict, list]:
    """What each number of the chains holding a ``wanted`` step gives ({number: text}), for each without one its mistake, and each
    written number its code contradicts (the chain's own mismatch, at the number's line)."""
    from journal_tools.core.judge import chain_tests, judged, node_id

    values, missing, wrong = {}, {}, []
    for test in chain_tests(page):
        if not any(id(s) in wanted for s in test.steps):
            continue
        verdict = judged(sandbox(), record, page, test, settings)  # a chain that passed gives its values, no code run
        wrong += [(m, node_id(str(page.path), test.name)) for m, _ in verdict.mistakes()
                  if isinstance(m, OutputMismatch) and m.kind == "prose"]
        numbers = [n for s in test.steps for p in s.parts for n in p.prose]
        given = verdict.reused.get("shown", []) if verdict.reused is not None else verdict.result.shown
        values.update(zip(numbers, given))
        first = verdict.mistakes()[0][0] if verdict.mistakes() else None
        for n in numbers:
            missing[n] = (first or Mistake.at(n.origin, f"the number {{={n.field}}} has no value: the code above it did not "
                                              "run (skipped)"), node_id(str(page.path), test.name))
    return values, missing, wrong


def notebook_mismatches(src: Path, settings: Settings, record, sandbox, seen: dict) -> list[Mistake]:
    """Each written number of notebook ``src``'s sentences its code contradicts, at its line, as its page test finds them: unless the
    notebook's passed page test holds, its cells run in ``sandbox()`` (its page test's way, not the render's kernel, which hands no value
    back). ``seen``: the answers by what the notebook read, so a rebuild of make serve runs an unchanged notebook once. A notebook that
    cannot be read or a cell that fails: its render and its page test say so."""
    from journal_tools.core.code.notebook import number_mismatches, read_notebook
    from journal_tools.core.judge import CHAIN
    from journal_tools.core.record.inputs import Inputs, environment
    from journal_tools.core.record.verified import PAGE
    from journal_tools.mkdocs_plugin.notebook_cache import code_read

    rel = settings.rel(src)
    # A pass of this check is kept as a chain's row (the judge's kind): a test build's copy of the record carries those, not the
    # pages' passed tests, and without it every session build of make test ran the notebook again (2 s of a prose edit's run).
    subject = f"{rel}#numbers"
    if record.held(PAGE, rel, environment()) is not None or record.held(CHAIN, subject, environment()) is not None:
        return []
    read = code_read(src, settings, record)
    key = read.to_json()
    if key not in seen:
        try:
            nb = read_notebook(src, settings)
            has_numbers = any(nb.numbers)
            shown = sandbox().run_notebook(nb, [], snippet_dirs=settings.snippet_dirs, root=settings.root) if has_numbers else []
        except Mistake:  # a PageError, a BlockError
            seen[key] = []
        else:
            seen[key] = number_mismatches(nb, shown)
            if has_numbers and not seen[key]:
                record.passed(CHAIN, subject, environment(), Inputs.observe([rel], root=settings.root) | read)
    return seen[key]
