"""Compare what a step printed with its expected-output fence or checked matrix, and rewrite them on request.

A mismatch carries the page lines to rewrite. New outputs are filled whole (an empty fence, an all-zero
matrix); otherwise only the differing numbers change, in place, layout and labels kept; a matrix of another
shape is never rewritten.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

from journal_tools.core.code.numbers import as_tex, is_zero, printed_numbers, same_number
from journal_tools.core.code.parse import Page, Step
from journal_tools.core.code.printed_tensors import Printed, Selector, printed_tensors
from journal_tools.core.code.tex_matrix import Matrix, MatrixError, checked_matrix, matrix_numbers
from journal_tools.core.mistake import Mistake, Origin

__all__ = ["OutputMismatch", "PageRewrite", "apply_updates", "check_math", "check_output", "matrix_numbers",
           "printed_numbers", "update_hint"]


def _count(n: int) -> str:
    return "no numbers" if n == 0 else ("1 number" if n == 1 else f"{n} numbers")


class OutputMismatch(Mistake):
    """What a page shows differs from what its code printed; carries the rewrite: ``page``, ``first_line`` (1-based), ``old_lines``,
    ``new_lines``, ``kind`` ("output" fence, checked "matrix", numbers in the text: "prose") and ``numbers`` written."""

    def __init__(self, origin: Origin, problem: str, page: str, first_line: int, old_lines: list[str],
                 new_lines: list[str], kind: str = "output", numbers: int = 0):
        self.page, self.first_line, self.old_lines, self.new_lines = page, first_line, old_lines, new_lines
        self.kind, self.numbers = kind, numbers
        super().__init__(origin.path, origin.line, problem, origin.included_at)

    @property
    def can_rewrite(self) -> bool:
        """Can ``--update-outputs`` write the printed values back (on the page, in this layout)?"""
        return bool(self.first_line) and self.new_lines != self.old_lines


def _page_lines(page: Page, indices: range, what: str, origin: Origin) -> tuple[int, list[str]]:
    """The page lines behind expanded lines; they must be written on the page itself."""
    origins = [page.expanded.origins[i] for i in indices]
    if any(o.path != page.path or o.included_at for o in origins):
        raise OutputMismatch(origin, f"the {what} comes from an included file; write it on the page", page.path, 0, [], [])
    return (origins[0].line if origins else 0), [page.expanded.lines[i] for i in indices]


def _fence_line(page: Page, step: Step) -> int:
    """The page line of the step's opening fence (its code may come from a snippet)."""
    return page.where(step.parts[0].fence.start).line


def update_hint(path: str) -> str:
    """What to run when the code is right and the page is not (``git diff`` shows the rewrite; ``git status`` on an untracked page)."""
    return f"if the code is right, run `make update-outputs PAGE={path}` and review the change"


def check_output(page: Page, step: Step, printed: str) -> None:
    """Raise OutputMismatch if the step's expected-output fence differs from ``printed``."""
    if step.expected_output is None:
        return
    expected = step.expected_output
    if step.expected_ignore_whitespace:
        same = re.sub(r"\s+", "", expected) == re.sub(r"\s+", "", printed)
    else:
        same = expected.rstrip("\n") == printed.rstrip("\n")
    if same:
        return
    fence = step.expected_fence
    origin = page.where(fence.start)
    differing = page.where(min(fence.start + 1 + _first_differing_line(step, expected, printed), fence.end))
    diff = "\n".join(
        difflib.unified_diff(expected.rstrip("\n").split("\n"), printed.rstrip("\n").split("\n"),
                             "shown on the page", "printed by the code", lineterm="")
    )
    body = fence.body
    if len(body):
        first, old = _page_lines(page, body, "expected output", origin)
    else:  # an empty fence: insert after its opening line
        first, old = origin.line + 1, []
    indent = " " * fence.indent
    new = [indent + line if line else line for line in printed.rstrip("\n").split("\n")]
    detail = _first_number_difference(printed_numbers(expected), printed_numbers(printed))
    raise OutputMismatch(
        differing,
        f"the expected output differs from what the block at line {_fence_line(page, step)} "
        f"printed; {update_hint(page.path)}\n{detail}{diff}",
        page.path, first, old, new,
    )


def _first_differing_line(step: Step, expected: str, printed: str) -> int:
    """0-based line where the expected output first differs from ``printed`` (its length for a prefix), compared as the check does."""
    shown, got = expected.rstrip("\n").split("\n"), printed.rstrip("\n").split("\n")
    if step.expected_ignore_whitespace:
        shown, got = [re.sub(r"\s+", "", ln) for ln in shown], [re.sub(r"\s+", "", ln) for ln in got]
    return next((k for k, (a, b) in enumerate(zip(shown, got)) if a != b), min(len(shown), len(got)))


def _first_number_difference(shown: list[str], got: list[str]) -> str:
    """``number 3 is 0.4484 on the page, printed 0.4483`` (a line), or "" when the numbers agree."""
    for k, (a, b) in enumerate(zip(shown, got)):
        if not same_number(a, b):
            return f"number {k + 1} is {a} on the page, printed {b}\n"
    if len(shown) != len(got):
        return f"the page shows {_count(len(shown))}, the block printed {_count(len(got))}\n"
    return ""


# -- a checked matrix: one printed tensor, shape and all ----------------------------------


def check_math(page: Page, step: Step, printed: str) -> None:
    """OutputMismatch if the checked matrix is not the printed tensor: another shape (never rewritten) or number (rewritten in place)."""
    check = step.math
    if check is None:
        return
    try:
        matrix = checked_matrix(check.tex)
    except MatrixError as exc:
        raise OutputMismatch(_formula_line(page, check, exc.offset), exc.message, page.path, 0, [], []) from None
    at = _formula_line(page, check, matrix.cells[0].start)  # the matrix's line: its first row
    fence_line = _fence_line(page, step)
    tensor = _shown_tensor(matrix, printed_tensors(printed), check.selector, fence_line)
    if isinstance(tensor, str):
        raise OutputMismatch(at, tensor, page.path, 0, [], [], "matrix")
    rows, cols = _as_matrix(tensor.shape, matrix)
    flat = _flatten(tensor.values)
    shown = [cell.value for cell in matrix.cells]
    got = [flat[r * cols + c] for _, r, c in matrix.positions(rows, cols)]
    wrong = next((k for k, (a, b) in enumerate(zip(shown, got)) if not same_number(a, b)), None)
    if wrong is None:
        return
    origin = _formula_line(page, check, matrix.cells[wrong].start)  # the line the number is written on
    problem = f"number {wrong + 1} of the matrix is {shown[wrong]} but the block at line {fence_line} printed {got[wrong]}"
    first, old = _page_lines(page, check.lines, "formula", origin)
    new, written = _rewritten(old, got, every=all(is_zero(v) for v in shown))
    hint = f"; {update_hint(page.path)}" if new is not None else (
        "; `make update-outputs` cannot find this matrix in the page's lines: edit it by hand")
    message = f"{problem}{hint}\n  shown:   {' '.join(shown)}\n  printed: {' '.join(got)}"
    raise OutputMismatch(origin, message, page.path, first, old, old if new is None else new, "matrix", written)


def _formula_line(page: Page, check, offset: int) -> Origin:
    """Where the character at ``offset`` of a checked formula's TeX is on the page."""
    return page.where(check.lines[0] + check.tex.count("\n", 0, offset))


def _as_matrix(shape: tuple[int, ...], matrix: Matrix) -> tuple[int, int]:
    """Rows x cols of a tensor of ``shape`` as this matrix (1-D: row or column, whichever fits; scalar 1x1); (0, 0) for 3-D or more."""
    if len(shape) == 2:
        return shape
    if len(shape) == 1:
        return (1, shape[0]) if matrix.fits(1, shape[0]) or not matrix.fits(shape[0], 1) else (shape[0], 1)
    return (1, 1) if not shape else (0, 0)


def _fits(matrix: Matrix, tensor: Printed) -> bool:
    rows, cols = _as_matrix(tensor.shape, matrix)
    return not tensor.summarised and rows > 0 and matrix.fits(rows, cols)


def _flatten(values: list | str) -> list[str]:
    return [values] if isinstance(values, str) else [v for item in values for v in _flatten(item)]


def _shape_words(tensor: Printed, number: int | None = None) -> str:
    """``6x2``, ``1-D of 6 numbers (a 1x6 or 6x1 matrix)``, ``a scalar``, ``2x6x2`` (with how to name the ``number``-th printed)."""
    if tensor.summarised:
        return ("summarised (PyTorch or NumPy printed '...' for the entries it left out, so its shape cannot "
                "be read): print it whole (torch.set_printoptions(threshold=...)) or print the part the matrix shows")
    if len(tensor.shape) == 1:
        n = tensor.shape[0]
        return f"1-D of {_count(n)} (a 1x{n} or {n}x1 matrix)"
    if not tensor.shape:
        return "a scalar (a 1x1 matrix)"
    words = "x".join(map(str, tensor.shape))
    if len(tensor.shape) > 2 and number is not None:
        words += f" (name a matrix of it in the marker: <!-- journal:expected-math tensor={number}[0] -->)"
    return words


def _shown_tensor(matrix: Matrix, tensors: list[Printed], selector: Selector | None, fence_line: int) -> Printed | str:
    """The printed tensor the matrix shows (by the marker's selector, else the one of its shape), or a message why there is none."""
    keep = ("; `make update-outputs` keeps a matrix's shape: write the matrix in the tensor's shape "
            "(zeros will do) and it fills it")
    if selector is not None:
        if selector.tensor > len(tensors):
            return (f"the marker names tensor {selector.tensor} but the block at line {fence_line} printed "
                    f"{_tensors(len(tensors))}")
        try:
            tensor = tensors[selector.tensor - 1].take(selector.index)
        except IndexError as exc:
            return f"the marker names {selector.describe()}, which the block at line {fence_line} did not print: {exc}"
        if not _fits(matrix, tensor):
            return (f"the matrix is {matrix.describe()} but {selector.describe()} the block at line {fence_line} "
                    f"printed is {_shape_words(tensor)}{keep}")
        return tensor
    if not tensors:
        return (f"the matrix is {matrix.describe()} but the block at line {fence_line} printed no tensor "
                "(a number outside tensor(...), array(...) or a [...] list is never compared with a matrix)")
    fitting = [k for k, t in enumerate(tensors) if _fits(matrix, t)]
    if len(fitting) == 1:
        return tensors[fitting[0]]
    if len(tensors) == 1:
        return (f"the matrix is {matrix.describe()} but the tensor the block at line {fence_line} printed is "
                f"{_shape_words(tensors[0], 1)}{keep}")
    if not fitting:
        shapes = ["summarised" if t.summarised else _shape_words(t) for t in tensors]
        return (f"the matrix is {matrix.describe()} but none of the {len(tensors)} tensors the block at line "
                f"{fence_line} printed is: they are {', '.join(shapes[:-1])} and {shapes[-1]}{keep}, or name the "
                "tensor in the marker, <!-- journal:expected-math tensor=N[i] --> for a row or slice of it")
    which = ", ".join(str(k + 1) for k in fitting[:-1]) + f" and {fitting[-1] + 1}"
    return (f"the block at line {fence_line} printed {len(fitting)} tensors a {matrix.describe()} matrix can show "
            f"(tensors {which}); name the one it shows in the marker: <!-- journal:expected-math tensor={fitting[-1] + 1} -->")


def _tensors(n: int) -> str:
    return "no tensor" if n == 0 else ("1 tensor" if n == 1 else f"{n} tensors")


def _rewritten(lines: list[str], values: list[str], every: bool) -> tuple[list[str] | None, int]:
    """The formula lines with each differing matrix number written as in ``values`` (``every``: all, placeholder zeros too), and the count;
    None when the lines no longer hold the checked matrix."""
    text = "\n".join(lines)
    try:
        cells = checked_matrix(text).cells
    except MatrixError:
        return None, 0
    if len(cells) != len(values):
        return None, 0
    out, pos, written = [], 0, 0
    for cell, value in zip(cells, values):
        if every or not same_number(cell.value, value):
            start, end = cell.span
            out += [text[pos:start], as_tex(value)]
            pos, written = end, written + 1
    return ("".join(out) + text[pos:]).split("\n"), written


@dataclass
class PageRewrite:
    """What ``--update-outputs`` wrote on one page."""

    path: str
    outputs: list[int]  # lines (of the page as rewritten) where the rewritten outputs start
    matrices: list[int]  # lines where the rewritten formulas start
    numbers: int  # matrix numbers written
    prose: list[int] = field(default_factory=list)  # lines whose numbers in the text were rewritten (core.code.prose_numbers)
    prose_numbers: int = 0

    def summary(self) -> str:
        """``docs/x.md: 2 outputs (lines 40, 61), 36 matrix numbers (line 152)``."""
        def lines(found: list[int]) -> str:
            return f"line{'s' if len(found) > 1 else ''} {', '.join(map(str, found))}"

        parts = []
        if self.outputs:
            parts.append(f"{len(self.outputs)} output{'s' if len(self.outputs) > 1 else ''} ({lines(self.outputs)})")
        if self.matrices:
            parts.append(f"{self.numbers} matrix number{'' if self.numbers == 1 else 's'} ({lines(self.matrices)})")
        if self.prose:
            parts.append(f"{self.prose_numbers} number{'' if self.prose_numbers == 1 else 's'} in the text ({lines(self.prose)})")
        return f"{self.path}: {', '.join(parts)}"


def apply_updates(root: Path, updates: list[OutputMismatch]) -> list[PageRewrite]:
    """Rewrite page lines, bottom-up per file so earlier line numbers stay valid; returns what was written, in page run order."""
    by_path: dict[str, list[OutputMismatch]] = {}
    for u in updates:
        if u.can_rewrite:
            by_path.setdefault(u.page, []).append(u)
    done = []
    for path, items in by_path.items():
        file = root / path
        lines = file.read_text(encoding="utf-8").split("\n")
        for u in sorted(items, key=lambda u: u.first_line, reverse=True):
            start = u.first_line - 1
            if lines[start : start + len(u.old_lines)] != u.old_lines:
                raise RuntimeError(f"{path}:{u.first_line}: the page changed during the run; not rewritten")
            lines[start : start + len(u.old_lines)] = u.new_lines
        file.write_text("\n".join(lines), encoding="utf-8")
        done.append(_rewrite_of(path, items))
    return done


def _rewrite_of(path: str, items: list[OutputMismatch]) -> PageRewrite:
    """What was written on one page, at the lines it now has (the page as rewritten)."""
    rewrite, shift = PageRewrite(path, [], [], 0), 0
    for u in sorted(items, key=lambda u: u.first_line):
        {"output": rewrite.outputs, "matrix": rewrite.matrices, "prose": rewrite.prose}[u.kind].append(u.first_line + shift)
        if u.kind == "prose":
            rewrite.prose_numbers += u.numbers
        else:
            rewrite.numbers += u.numbers
        shift += len(u.new_lines) - len(u.old_lines)
    return rewrite
