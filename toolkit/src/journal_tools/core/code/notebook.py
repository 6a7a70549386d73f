"""Notebook pages as page tests: the code cells run in one namespace in a fresh folder (as a page's blocks),
the Markdown cells through the site's Markdown, so a failure names ``docs/notebooks/x.py:12`` as a page's would.
A Markdown cell's numbers (``[1.41]{= d_k ** 0.5 :.2f}``, ``core/code/prose_numbers.py``) are checked after the code cell above.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

from journal_tools.core.code import prose_numbers
from journal_tools.core.code.parse import PageError
from journal_tools.core.code.render_check import RenderProblem
from journal_tools.core.code.run import (
    BlockError,
    compile_mapped,
    exception_line,
    format_exception,
    fresh_folder,
    number_text,
    reset_global_state,
)
from journal_tools.core.markup.citations import BibError, CitationError
from journal_tools.core.markup.mathml import MathError
from journal_tools.core.mistake import Mistake, Origin
from journal_tools.core.page import limits
from journal_tools.core.page.fences import FenceError, inside_fence, scan
from journal_tools.core.settings import Settings

__all__ = ["Cell", "Notebook", "cell_origins", "check_notebook_math", "number_mismatches", "read_notebook", "run_notebook"]


@dataclass
class Cell:
    """One cell: its source and the file line of its first source line."""

    kind: str  # "code" or "markdown"
    source: str
    line: int


@dataclass
class Notebook:
    """A notebook page: its file (relative to the project root), text and cells."""

    path: str
    text: str
    cells: list[Cell]
    limit: limits.Limit  # each code cell's time limit
    numbers: list[list[prose_numbers.ProseNumber]] = field(default_factory=list)  # per code cell, the numbers after it

    @property
    def code_cells(self) -> list[Cell]:
        """The cells that run."""
        return [c for c in self.cells if c.kind == "code" and c.source.strip()]


def read_notebook(path: Path, settings: Settings) -> Notebook:
    """The cells of ``path`` as jupytext reads them, each at its line; a bad ``execution: timeout:`` or number in the text is a
    PageError at its line."""
    import jupytext

    text = path.read_text(encoding="utf-8")
    notebook = jupytext.read(path)
    lines = text.split("\n")
    cells, search_from = [], 0
    for n, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type not in ("code", "markdown"):
            continue
        line = n
        if path.suffix == ".py":
            first = next((ln for ln in cell.source.split("\n") if ln.strip()), "")
            if cell.cell_type == "markdown":
                first = "# " + first if first else first
            found = next((i for i in range(search_from, len(lines)) if lines[i].rstrip() == first.rstrip()), None)
            if found is not None:
                search_from = found + 1
                # the cell's first source line may be blank lines above `first`
                leading = len(cell.source.split("\n")) - len(cell.source.lstrip("\n").split("\n"))
                line = found + 1 - leading
            else:
                line = search_from + 1
        cells.append(Cell(cell.cell_type, cell.source, line))
    rel = settings.rel(path)
    try:
        limit = limits.notebook_limit(notebook.metadata, text, rel, settings.block_timeout)
        numbers = _numbers(rel, lines, cells)
    except Mistake as exc:
        raise PageError.like(exc) from None
    return Notebook(rel, text, cells, limit, numbers)


def _numbers(rel: str, lines: list[str], cells: list[Cell]) -> list[list[prose_numbers.ProseNumber]]:
    """Each code cell's tied numbers: those of the Markdown cells below it, read on the file's own lines (``# The value
    [1.41]{= ...}``), so make update-outputs rewrites them in place. A Mistake at one above every code cell, or filled in (the
    build runs a notebook in its own kernel, which hands no value back to fill in: write the number)."""
    code = [c for c in cells if c.kind == "code" and c.source.strip()]
    per_cell: list[list[prose_numbers.ProseNumber]] = [[] for _ in code]
    if not rel.endswith(".py"):  # an .ipynb's lines are JSON: its numbers are not read
        return per_cell
    skip = set(range(len(lines)))
    for cell in (c for c in cells if c.kind == "markdown"):
        source = cell.source.split("\n")
        try:
            fenced = inside_fence(scan(source))
        except FenceError:  # the render test names it
            fenced = set()
        skip -= {i for k, i in enumerate(range(cell.line - 1, cell.line - 1 + len(source)))
                 if k not in fenced and i < len(lines) and lines[i].endswith(source[k])}
    for number in prose_numbers.find(lines, [Origin(rel, i + 1) for i in range(len(lines))], skip):
        above = [k for k, c in enumerate(code) if c.line < number.origin.line]
        if not above or not number.checked:
            problem = "no code cell above it" if not above else "it is filled in; in a notebook, write it: [value]{=...}"
            raise Mistake.at(number.origin, f"the number {{={number.field}}}: {problem}")
        per_cell[above[-1]].append(number)
    return per_cell


def cell_origins(nb: Notebook, cell: Cell) -> list[Origin]:
    """Where each line of ``cell`` is in the notebook's file."""
    return [Origin(nb.path, cell.line + k) for k in range(len(cell.source.split("\n")))]


def run_notebook(nb: Notebook, ran: list[Cell], on_step: Callable[[int], None] | None = None,
                 shown: list | None = None) -> None:
    """Run the code cells in one namespace in a fresh folder, as a page's blocks (each added to ``ran``; ``on_step(i)`` before
    cell i; ``shown`` gets each number of the text with what it gives after its cell); BlockError at its line."""
    reset_global_state()
    os.environ.setdefault("MPLBACKEND", "Agg")  # no window, as in a kernel without a display
    namespace = {"__name__": "__main__"}
    with fresh_folder():
        for i, cell in enumerate(nb.code_cells):
            if on_step is not None:
                on_step(i)
            origins = cell_origins(nb, cell)
            code = compile_mapped(cell.source, origins, origins[0])
            try:
                with contextlib.redirect_stdout(limits.BoundedOutput()):
                    exec(code, namespace)
            except BaseException as exc:  # KeyboardInterrupt and SystemExit too: one failure, not the end of the run
                origin, report = format_exception(exc)
                origin = origin or origins[0]
                raise BlockError(origin, f"{exception_line(exc)}\n"
                                         f"(the cell starting at line {cell.line})\n{report}", cause=exc) from None
            ran.append(cell)
            if shown is not None and nb.numbers:
                shown += [(number, number_text(number, namespace)) for number in nb.numbers[i]]


def number_mismatches(nb: Notebook, shown: list) -> list:
    """prose_numbers' OutputMismatch for each file line whose written numbers differ, with the line rewritten."""
    from journal_tools.core.code.outputs import update_hint

    page = SimpleNamespace(path=nb.path, expanded=SimpleNamespace(lines=nb.text.split("\n")))  # the file's own lines
    return prose_numbers.mismatches(page, shown, update_hint(nb.path))


def check_notebook_math(nb: Notebook, settings: Settings) -> None:
    """Every formula and citation of the Markdown cells converts (RenderProblem at the line; BibError for an unreadable BibTeX file)."""
    md = settings.markdown()
    for cell in nb.cells:
        if cell.kind != "markdown":
            continue
        try:
            md.reset().convert(prose_numbers.shown(cell.source))  # as the build shows it
        except BibError:
            raise
        except (MathError, CitationError) as exc:
            raise RenderProblem.like(exc.located(nb.path, nb.text)) from None
