r"""The matrix a checked formula shows (``matrix``, ``pmatrix``, ``bmatrix``, ``Bmatrix``, ``vmatrix``, ``Vmatrix``,
``array``): its cells and shape.

An environment with no number is labels; a number label is ``\text{1}``. Each entry is one number or a
dots command, else an error at its line. One ``\cdots`` column or ``\vdots`` row elides entries: those
before it are the tensor's first, those after it its last.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from journal_tools.core.code.numbers import TEX_NUMBER, tex_value

MATRIX_ENV = re.compile(r"\\begin\{([pbBvV]?matrix|array)\}(.*?)\\end\{\1\}", re.S)
_ARRAY_COLUMNS = re.compile(r"\s*\{[^{}]*\}")
_ROW_SPACE = re.compile(r"\s*\[[^\]]*\]")  # \\[2pt]
_SPACING = re.compile(r"\\[,;:! ]|\\q?quad(?![a-zA-Z])|\\hline(?![a-zA-Z])|~")
_DOTS = {r"\cdots": "across", r"\ldots": "across", r"\dots": "across", r"\vdots": "down", r"\ddots": "down"}


class MatrixError(Exception):
    """A checked formula's matrix cannot be read as a grid of numbers, at ``offset`` in the formula."""

    def __init__(self, offset: int, message: str):
        self.offset, self.message = offset, message
        super().__init__(message)


@dataclass(frozen=True)
class Cell:
    """An entry: text, offset, and a number (``value`` as PyTorch prints it, ``span``), dots (``dots``: across/down), empty or other."""

    text: str
    start: int
    value: str | None = None
    span: tuple[int, int] | None = None
    dots: str | None = None

    @property
    def empty(self) -> bool:
        """Is nothing written in it?"""
        return not self.text


@dataclass(frozen=True)
class Matrix:
    """The checked matrix: ``rows`` of number cells (dots left out); ``rows_cut``/``cols_cut``: the count shown before elision dots."""

    rows: list[list[Cell]]
    rows_cut: int | None = None
    cols_cut: int | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """Rows by entries per row, as shown (dots left out)."""
        return len(self.rows), len(self.rows[0])

    @property
    def cells(self) -> list[Cell]:
        """The number cells, row by row."""
        return [cell for row in self.rows for cell in row]

    def describe(self) -> str:
        """``7x2``, or ``at least 4x5 (rows elided after row 2)`` for a partial matrix."""
        rows, cols = self.shape
        if self.rows_cut is None and self.cols_cut is None:
            return f"{rows}x{cols}"
        cut = [f"rows elided after row {self.rows_cut}" if self.rows_cut is not None else "",
               f"columns elided after column {self.cols_cut}" if self.cols_cut is not None else ""]
        return f"at least {rows}x{cols} ({', '.join(c for c in cut if c)})"

    def fits(self, rows: int, cols: int) -> bool:
        """Can it show a rows x cols tensor (all of it, or the part around its dots)?"""
        shown_rows, shown_cols = self.shape
        return ((rows == shown_rows if self.rows_cut is None else rows >= shown_rows)
                and (cols == shown_cols if self.cols_cut is None else cols >= shown_cols))

    def positions(self, rows: int, cols: int) -> Iterator[tuple[Cell, int, int]]:
        """(cell, row, column of the rows x cols tensor it shows), row by row."""
        shown_rows, shown_cols = self.shape
        for i, row in enumerate(self.rows):
            r = i if self.rows_cut is None or i < self.rows_cut else rows - (shown_rows - i)
            for j, cell in enumerate(row):
                c = j if self.cols_cut is None or j < self.cols_cut else cols - (shown_cols - j)
                yield cell, r, c


def checked_matrix(tex: str) -> Matrix:
    """The one matrix of numbers in a checked formula; MatrixError when there is none, several, or it is not a grid of numbers."""
    numeric = [(env, rows) for env, rows in _environments(tex) if any(c.value is not None for row in rows for c in row)]
    if not numeric:
        raise MatrixError(0, "the formula after <!-- journal:expected-math --> has no numbers in a matrix environment")
    if len(numeric) > 1:
        raise MatrixError(numeric[1][0].start(), f"the formula after <!-- journal:expected-math --> holds "
                          f"{len(numeric)} matrices of numbers; a check compares one matrix with one printed tensor: "
                          "give the others a formula of their own")
    env, rows = numeric[0]
    return _grid(rows, env.start(2))


def matrix_numbers(tex: str) -> list[str]:
    """The numbers of a checked formula's matrix in order; none when unreadable (the check says why; the build does not stop for it)."""
    try:
        return [c.value for c in checked_matrix(tex).cells]
    except MatrixError:
        return []


def _environments(tex: str) -> list[tuple[re.Match, list[list[Cell]]]]:
    """Every matrix environment with its rows of cells."""
    out = []
    for env in MATRIX_ENV.finditer(tex):
        start = env.start(2)
        if env.group(1) == "array" and (spec := _ARRAY_COLUMNS.match(tex, start)) is not None:
            start = spec.end()
        out.append((env, _rows(tex, start, env.end(2))))
    return out


def _rows(tex: str, start: int, end: int) -> list[list[Cell]]:
    """The cells between ``start`` and ``end``, split at ``\\\\`` and ``&`` outside braces."""
    rows: list[list[Cell]] = [[]]
    depth, cell_start, i = 0, start, start
    while i < end:
        ch = tex[i]
        if ch == "\\" and tex.startswith("\\\\", i) and depth == 0:
            rows[-1].append(_cell(tex, cell_start, i))
            rows.append([])
            i += 2
            if (space := _ROW_SPACE.match(tex, i, end)) is not None:
                i = space.end()
            cell_start = i
            continue
        if ch == "\\":
            i += 2  # a command or an escaped character (\&, \{): never a delimiter
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "&" and depth == 0:
            rows[-1].append(_cell(tex, cell_start, i))
            cell_start = i + 1
        i += 1
    rows[-1].append(_cell(tex, cell_start, end))
    if len(rows) > 1 and all(c.empty for c in rows[-1]):  # a trailing \\
        rows.pop()
    return rows


def _cell(tex: str, start: int, end: int) -> Cell:
    raw = tex[start:end]
    text = _SPACING.sub(" ", raw).strip()
    while text.startswith("{") and text.endswith("}") and _balanced(text[1:-1]):
        text = text[1:-1].strip()
    lead = len(raw) - len(raw.lstrip())
    if text in _DOTS:
        return Cell(text, start + lead, dots=_DOTS[text])
    if TEX_NUMBER.fullmatch(text):
        m = TEX_NUMBER.search(raw)
        return Cell(text, start + lead, tex_value(m), (start + m.start(), start + m.end()))
    return Cell(text, start + lead)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _grid(rows: list[list[Cell]], body: int) -> Matrix:
    """The number rows and where dots elide rows and columns; MatrixError at the cell at fault."""
    down = [k for k, row in enumerate(rows)
            if any(c.dots == "down" for c in row) and all(c.dots == "down" or c.empty for c in row)]
    if len(down) > 1:
        raise MatrixError(rows[down[1]][0].start, "a matrix elides rows at one place only (one row of \\vdots)")
    shown = [row for k, row in enumerate(rows) if k not in down]
    if not shown:
        raise MatrixError(body, "the matrix has dots but no row of numbers")
    width = len(shown[0])
    across: set[int] = set()
    for k, row in enumerate(shown):
        if len(row) != width:
            raise MatrixError(row[0].start, f"row {k + 1} of the matrix has {_entries(len(row))} but row 1 has "
                              f"{_entries(width)}; every row of a checked matrix has as many")
        for j, cell in enumerate(row):
            if cell.value is not None:
                continue
            if cell.dots == "across":
                across.add(j)
                continue
            what = "empty" if cell.empty else f"'{cell.text}'"
            raise MatrixError(cell.start if not cell.empty else row[0].start,
                              f"row {k + 1}, column {j + 1} of the matrix is {what}, not a number, \\cdots, "
                              "\\vdots or \\ddots: a checked matrix holds only these (labels go in a matrix "
                              "of their own beside it)")
    if len(across) > 1:
        raise MatrixError(shown[0][0].start, "a matrix elides columns at one place only (one column of \\cdots)")
    cut = next(iter(across), None)
    for k, row in enumerate(shown):
        if cut is not None and row[cut].dots != "across":
            raise MatrixError(row[cut].start, f"row {k + 1} of the matrix has a number where the other rows have "
                              "\\cdots: the elided columns are the same in every row")
    grid = [[c for j, c in enumerate(row) if j != cut] for row in shown]
    if not grid[0]:
        raise MatrixError(body, "the matrix has dots but no column of numbers")
    return Matrix(grid, down[0] if down else None, cut)


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"
