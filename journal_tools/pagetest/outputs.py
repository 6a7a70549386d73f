"""Compare what a step printed with what its page shows, and rewrite the page on request.

Two things a page can show: an expected-output fence (pytest-codeblocks'
``expected-output`` marker) and a LaTeX matrix after the journal's
``<!-- journal:expected-math -->`` marker, whose numbers must equal, in order,
the numbers the step printed. A mismatch carries the page lines to rewrite, so
``--update-outputs`` can write the printed values back after an intended change.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from journal_tools.includes import Origin
from journal_tools.pagetest.parse import Page, Step

# A number standing alone: not the 0 of "SoftmaxBackward0" nor part of "x.y.z".
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])")
MATRIX_ENV = re.compile(r"\\begin\{([pbBvV]?matrix|array)\}(.*?)\\end\{\1\}", re.S)


@dataclass
class OutputMismatch(Exception):
    """What a page shows differs from what its code printed; carries the lines to rewrite."""

    origin: Origin
    message: str
    path: str  # the page file to rewrite on update
    first_line: int  # 1-based page line of the first line to replace
    old_lines: list[str]
    new_lines: list[str]

    def __str__(self) -> str:
        return self.message


def _page_lines(page: Page, indices: range, what: str, origin: Origin) -> tuple[int, list[str]]:
    """The page lines behind expanded lines; they must be written on the page itself."""
    origins = [page.expanded.origins[i] for i in indices]
    if any(o.path != page.path or o.included_at for o in origins):
        problem = f"{origin.describe()}: the {what} comes from an included file; write it on the page"
        raise OutputMismatch(origin, problem, page.path, 0, [], [])
    return (origins[0].line if origins else 0), [page.expanded.lines[i] for i in indices]


def _fence_line(page: Page, step: Step) -> int:
    """The page line of the step's opening fence (its code may come from a snippet)."""
    return page.where(step.parts[0].fence.start).line


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
    raise OutputMismatch(
        origin,
        f"{origin.describe()}: the expected output differs from what the block at line {_fence_line(page, step)} printed\n{diff}",
        page.path, first, old, new,
    )


def matrix_numbers(tex: str) -> list[str]:
    """The numbers inside the matrix environments of ``tex``, in order."""
    return [n for env in MATRIX_ENV.finditer(tex) for n in NUMBER.findall(env.group(2))]


def check_math(page: Page, step: Step, printed: str) -> None:
    """Raise OutputMismatch if the checked matrix's numbers differ from the printed ones."""
    check = step.math
    if check is None:
        return
    shown = matrix_numbers(check.tex)
    got = NUMBER.findall(printed)
    origin = check.origin
    if not shown:
        problem = f"{origin.describe()}: the formula after <!-- journal:expected-math --> has no numbers in a matrix environment"
        raise OutputMismatch(origin, problem, page.path, 0, [], [])
    problem = None
    if len(shown) != len(got):
        problem = f"the matrix shows {len(shown)} numbers but the block at line {_fence_line(page, step)} printed {len(got)}"
    else:
        for k, (a, b) in enumerate(zip(shown, got)):
            if Decimal(a) != Decimal(b):
                problem = f"number {k + 1} of the matrix is {a} but the block at line {_fence_line(page, step)} printed {b}"
                break
    if problem is None:
        return
    first, old = _page_lines(page, check.lines, "formula", origin)
    new = _replace_numbers(old, got) if len(shown) == len(got) else old
    message = f"{origin.describe()}: {problem}\n  shown:   {' '.join(shown)}\n  printed: {' '.join(got)}"
    raise OutputMismatch(origin, message, page.path, first, old, new)


def _replace_numbers(lines: list[str], values: list[str]) -> list[str]:
    """The formula lines with the matrix numbers replaced, in order, by ``values``."""
    text = "\n".join(lines)
    it = iter(values)

    def env(m: re.Match) -> str:
        inner = NUMBER.sub(lambda _: next(it), m.group(2))
        return m.group(0).replace(m.group(2), inner, 1)

    return MATRIX_ENV.sub(env, text).split("\n")


def apply_updates(root: Path, updates: list[OutputMismatch]) -> list[str]:
    """Rewrite page lines, bottom-up per file so earlier line numbers stay valid."""
    done = []
    by_path: dict[str, list[OutputMismatch]] = {}
    for u in updates:
        if u.new_lines != u.old_lines and u.first_line:
            by_path.setdefault(u.path, []).append(u)
    for path, items in by_path.items():
        file = root / path
        lines = file.read_text(encoding="utf-8").split("\n")
        for u in sorted(items, key=lambda u: u.first_line, reverse=True):
            start = u.first_line - 1
            if lines[start : start + len(u.old_lines)] != u.old_lines:
                raise RuntimeError(f"{path}:{u.first_line}: the page changed during the run; not rewritten")
            lines[start : start + len(u.old_lines)] = u.new_lines
            done.append(f"{path}:{u.first_line}")
        file.write_text("\n".join(lines), encoding="utf-8")
    return done
