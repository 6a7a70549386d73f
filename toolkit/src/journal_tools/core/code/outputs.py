"""Compare what a step printed with what its page shows, and rewrite the page on request.

Two things a page can show: an expected-output fence (pytest-codeblocks'
``expected-output`` marker) and a LaTeX matrix after the journal's
``<!-- journal:expected-math -->`` marker, whose numbers must equal, in order,
the numbers the step printed. A mismatch carries the page lines to rewrite, so
``--update-outputs`` can write the printed values back after an intended change.

Numbers are read in every form PyTorch prints them: integers (``3``, ``-4``),
decimals (``0.5000``, ``0.``, ``-0.``), scientific notation (``1.5000e-05``),
``nan``, ``inf``, ``-inf`` and the booleans ``True``/``False``. A matrix may
write the same values the TeX way: ``\\text{nan}`` (or ``\\mathrm{nan}``),
``\\infty``, ``-\\infty``, ``\\mathrm{True}``/``\\mathrm{False}`` (or
``\\text{...}``); a bare ``nan`` or ``True`` is read too. Two numbers are equal
when their values are: ``0.10`` equals ``0.1000`` and ``0.`` equals ``-0.``
(IEEE zero), ``nan`` equals ``nan``; a boolean equals only the same boolean
(``True`` is not ``1``). A rewritten matrix uses the TeX forms above.

What is new is filled whole: an empty expected-output fence gets everything the
step printed, and a placeholder matrix (every number zero, as an author writes
one for the tool to fill) gets every printed number, its zeros included.
Otherwise only the numbers that differ change.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from journal_tools.core.code.parse import Page, Step
from journal_tools.core.mistake import Mistake, Origin

_DECIMAL = r"-?(?:\d+\.\d*|\d+)(?:[eE][+-]?\d+)?"
# A number standing alone: not the 0 of "SoftmaxBackward0", not part of "x.y.z"
# or of a word ("info", "nanny", "Trueness").
NUMBER = re.compile(rf"(?<![\w.])(?:{_DECIMAL}|-?inf|-?nan|True|False)(?![\w.])")
# The same values as a matrix may write them in TeX (group "word": the value inside \text{} / \mathrm{}).
TEX_NUMBER = re.compile(
    r"(?P<infty>-?)[ \t]*\\infty(?![a-zA-Z])"
    r"|\\(?:text|mathrm)\{\s*(?P<word>-?(?:nan|inf)|True|False)\s*\}"
    rf"|(?P<plain>{NUMBER.pattern})"
)
MATRIX_ENV = re.compile(r"\\begin\{([pbBvV]?matrix|array)\}(.*?)\\end\{\1\}", re.S)


def tex_value(m: re.Match) -> str:
    """The value of a TEX_NUMBER match, written as PyTorch prints it (``\\infty`` -> ``inf``)."""
    if m["plain"] is not None:
        return m["plain"]
    if m["word"] is not None:
        return m["word"]
    return f"{m['infty']}inf"


def as_tex(value: str) -> str:
    """A printed value as a matrix writes it: ``nan`` -> ``\\text{nan}``, ``-inf`` -> ``-\\infty``."""
    if value.lstrip("-") == "inf":
        return value.replace("inf", "\\infty")
    if value.lstrip("-") == "nan" or value in ("True", "False"):
        return f"\\mathrm{{{value}}}"
    return value


def same_number(a: str, b: str) -> bool:
    """Do two printed values mean the same number (see the module docstring)?"""
    bools = ("True", "False")
    if a in bools or b in bools:
        return a == b
    x, y = Decimal(a), Decimal(b)
    if x.is_nan() or y.is_nan():
        return x.is_nan() and y.is_nan()
    return x == y


def printed_numbers(text: str) -> list[str]:
    """Every number in ``text`` (printed output or an expected-output fence), in order."""
    return NUMBER.findall(text)


def _count(n: int) -> str:
    return "no numbers" if n == 0 else ("1 number" if n == 1 else f"{n} numbers")


class OutputMismatch(Mistake):
    """What a page shows differs from what its code printed, at the line it differs on; carries
    the lines to rewrite: ``page`` (the page file to rewrite on update), ``first_line`` (1-based
    page line of the first line to replace), ``old_lines``, ``new_lines``, ``kind`` ("output", an
    expected-output fence, or "matrix", a checked formula) and ``numbers`` (matrix numbers written)."""

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
    """What to run when the code is right and the page is not (``git diff`` shows the rewrite;
    on a new, untracked page ``git status`` and the page itself do)."""
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
    """0-based line of the expected output where it first differs from ``printed`` (its length when
    it is a prefix: the next line is missing), compared as the check compares."""
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


def matrix_numbers(tex: str) -> list[str]:
    """The values inside the matrix environments of ``tex``, in order, as PyTorch prints them."""
    return [value for value, _ in _matrix_numbers_at(tex)]


def _matrix_numbers_at(tex: str) -> list[tuple[str, int]]:
    """(value, line of ``tex`` it is on, 0-based) for each matrix number, in order."""
    return [(tex_value(m), tex.count("\n", 0, env.start(2) + m.start()))
            for env in MATRIX_ENV.finditer(tex) for m in TEX_NUMBER.finditer(env.group(2))]


def check_math(page: Page, step: Step, printed: str) -> None:
    """Raise OutputMismatch if the checked matrix's numbers differ from the printed ones."""
    check = step.math
    if check is None:
        return
    shown = matrix_numbers(check.tex)
    got = printed_numbers(printed)
    origin = check.origin
    if not shown:
        problem = "the formula after <!-- journal:expected-math --> has no numbers in a matrix environment"
        raise OutputMismatch(origin, problem, page.path, 0, [], [])
    fence_line = _fence_line(page, step)
    problem = None
    if len(shown) != len(got):
        problem = f"the matrix shows {_count(len(shown))} but the block at line {fence_line} printed {_count(len(got))}"
    else:
        for k, (a, b) in enumerate(zip(shown, got)):
            if not same_number(a, b):
                problem = f"number {k + 1} of the matrix is {a} but the block at line {fence_line} printed {b}"
                # named at the line the number is written on
                origin = page.where(check.lines[0] + _matrix_numbers_at(check.tex)[k][1])
                break
    if problem is None:
        return
    first, old = _page_lines(page, check.lines, "formula", origin)
    if len(shown) == len(got):
        new = _replace_numbers(old, got, every=is_placeholder(shown))
    else:
        new = rebuild_matrices(old, printed)
    hint = f"; {update_hint(page.path)}" if new is not None else (
        "; `make update-outputs` cannot lay these numbers out in this formula's matrices: edit it by hand")
    message = (f"{problem}{hint}\n  shown:   {' '.join(shown) or '(none)'}\n"
               f"  printed: {' '.join(got) or '(none)'}")
    written = 0 if new is None else _numbers_written(old, new)
    raise OutputMismatch(origin, message, page.path, first, old, old if new is None else new, "matrix", written)


def is_placeholder(shown: list[str]) -> bool:
    """Is a matrix with these numbers a placeholder for the tool to fill (every number zero)?"""
    return all(v not in ("True", "False") and Decimal(v) == 0 for v in shown)


def _numbers_written(old: list[str], new: list[str]) -> int:
    """How many matrix numbers of the rewritten formula are not what the old one wrote there."""
    before = [m.group(0) for m in _matrix_matches("\n".join(old))]
    after = [m.group(0) for m in _matrix_matches("\n".join(new))]
    if len(before) != len(after):
        return len(after)
    return sum(a != b for a, b in zip(before, after))


def _matrix_matches(tex: str) -> list[re.Match]:
    return [m for env in MATRIX_ENV.finditer(tex) for m in TEX_NUMBER.finditer(env.group(2))]


def _replace_numbers(lines: list[str], values: list[str], every: bool = False) -> list[str]:
    """The formula lines with each matrix number that differs from ``values`` (in order) replaced
    (``every``: each number written as printed, equal or not: a placeholder's zeros too)."""
    text = "\n".join(lines)
    it = iter(values)

    def number(m: re.Match) -> str:
        value = next(it)
        return m.group(0) if not every and same_number(tex_value(m), value) else as_tex(value)

    def env(m: re.Match) -> str:
        return m.group(0)[: m.start(2) - m.start(0)] + TEX_NUMBER.sub(number, m.group(2)) + m.group(0)[m.end(2) - m.start(0):]

    return MATRIX_ENV.sub(env, text).split("\n")


# -- rebuilding a matrix from a printed tensor ------------------------------------------


def printed_rows(printed: str) -> list[list[list[str]]]:
    """The printed values as matrices of rows: ``[[row, row], [row]]``.

    Each innermost ``[...]`` of a printed tensor or list is a row (torch wraps a
    long row over several lines inside one pair of brackets); rows under the same
    outermost bracket make one matrix. When the brackets do not hold every printed
    number (a scalar ``tensor(0.5)``, plain text), each printed line holding numbers
    is a row of one matrix.
    """
    groups: list[list[list[str]]] = []
    depth, start, inner = 0, 0, True
    for i, ch in enumerate(printed):
        if ch == "[":
            if depth == 0:
                groups.append([])
            depth, start, inner = depth + 1, i + 1, True
        elif ch == "]" and depth:
            if inner:
                groups[-1].append(printed_numbers(printed[start:i]))
            depth, inner = depth - 1, False
    groups = [[row for row in g if row] for g in groups]
    groups = [g for g in groups if g]
    if sum(len(row) for g in groups for row in g) != len(printed_numbers(printed)):
        rows = [printed_numbers(line) for line in printed.split("\n")]
        groups = [[row for row in rows if row]]
    return groups


def rebuild_matrices(lines: list[str], printed: str) -> list[str] | None:
    """The formula lines with its numeric matrices' rows rebuilt from the printed rows.

    The matrices that hold numbers get one printed matrix each, in order; a
    formula with a single numeric matrix takes every printed row. None when the
    printed matrices cannot be laid out that way (say, two printed and three shown).
    """
    text = "\n".join(lines)
    numeric = [m for m in MATRIX_ENV.finditer(text) if TEX_NUMBER.search(m.group(2))]
    groups = printed_rows(printed)
    if not numeric or not groups:
        return None
    if len(numeric) == 1:
        groups = [[row for g in groups for row in g]]
    elif len(numeric) != len(groups):
        return None
    out, pos = [], 0
    for m, rows in zip(numeric, groups):
        out += [text[pos : m.start(2)], _matrix_body(m.group(2), rows)]
        pos = m.end(2)
    return ("".join(out) + text[pos:]).split("\n")


def _matrix_body(old: str, rows: list[list[str]]) -> str:
    """Rows as ``a & b \\\\ c & d``, laid out as ``old`` was: one row a line, or all on one line."""
    cells = [" & ".join(as_tex(v) for v in row) for row in rows]
    if "\n" not in old:
        return " " + r" \\ ".join(cells) + " "
    body_lines = [ln for ln in old.split("\n") if ln.strip()]
    indent = re.match(r"[ \t]*", body_lines[0]).group(0) if body_lines else ""
    tail = old[old.rfind("\n") + 1 :] if old.rstrip(" \t").endswith("\n") else ""
    return "\n" + " \\\\\n".join(indent + c for c in cells) + "\n" + tail


@dataclass
class PageRewrite:
    """What ``--update-outputs`` wrote on one page."""

    path: str
    outputs: list[int]  # lines (of the page as rewritten) where the rewritten outputs start
    matrices: list[int]  # lines where the rewritten formulas start
    numbers: int  # matrix numbers written

    def summary(self) -> str:
        """``docs/x.md: 2 outputs (lines 40, 61), 36 matrix numbers (line 152)``."""
        def lines(found: list[int]) -> str:
            return f"line{'s' if len(found) > 1 else ''} {', '.join(map(str, found))}"

        parts = []
        if self.outputs:
            parts.append(f"{len(self.outputs)} output{'s' if len(self.outputs) > 1 else ''} ({lines(self.outputs)})")
        if self.matrices:
            parts.append(f"{self.numbers} matrix number{'' if self.numbers == 1 else 's'} ({lines(self.matrices)})")
        return f"{self.path}: {', '.join(parts)}"


def apply_updates(root: Path, updates: list[OutputMismatch]) -> list[PageRewrite]:
    """Rewrite page lines, bottom-up per file so earlier line numbers stay valid; what was
    written, page by page in the order the pages ran, each page's lines in order."""
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
        (rewrite.outputs if u.kind == "output" else rewrite.matrices).append(u.first_line + shift)
        rewrite.numbers += u.numbers
        shift += len(u.new_lines) - len(u.old_lines)
    return rewrite
