"""Notebook pages as page tests: the code cells run in one namespace in a fresh folder (as a page's blocks),
the Markdown cells through the site's Markdown, so a failure names ``docs/notebooks/x.py:12`` as a page's would.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from journal_tools.core.code.parse import PageError
from journal_tools.core.code.render_check import RenderProblem
from journal_tools.core.code.run import (
    BlockError,
    compile_mapped,
    exception_line,
    format_exception,
    fresh_folder,
    reset_global_state,
)
from journal_tools.core.markup.citations import BibError, CitationError
from journal_tools.core.markup.mathml import MathError
from journal_tools.core.mistake import Mistake, Origin
from journal_tools.core.page import limits
from journal_tools.core.settings import Settings

__all__ = ["Cell", "Notebook", "cell_origins", "check_notebook_math", "read_notebook", "run_notebook"]


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

    @property
    def code_cells(self) -> list[Cell]:
        """The cells that run."""
        return [c for c in self.cells if c.kind == "code" and c.source.strip()]


def read_notebook(path: Path, settings: Settings) -> Notebook:
    """The cells of ``path`` as jupytext reads them, each at its line; a bad ``execution: timeout:`` is a PageError at its line."""
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
    except Mistake as exc:
        raise PageError.like(exc) from None
    return Notebook(rel, text, cells, limit)


def cell_origins(nb: Notebook, cell: Cell) -> list[Origin]:
    """Where each line of ``cell`` is in the notebook's file."""
    return [Origin(nb.path, cell.line + k) for k in range(len(cell.source.split("\n")))]


def run_notebook(nb: Notebook, ran: list[Cell], on_step: Callable[[int], None] | None = None) -> None:
    """Run the code cells in one namespace in a fresh folder, as a page's blocks (each added to ``ran``; ``on_step(i)`` before
    cell i); BlockError at its line."""
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


def check_notebook_math(nb: Notebook, settings: Settings) -> None:
    """Every formula and citation of the Markdown cells converts (RenderProblem at the line; BibError for an unreadable BibTeX file)."""
    md = settings.markdown()
    for cell in nb.cells:
        if cell.kind != "markdown":
            continue
        try:
            md.reset().convert(cell.source)
        except BibError:
            raise
        except (MathError, CitationError) as exc:
            raise RenderProblem.like(exc.located(nb.path, nb.text)) from None
