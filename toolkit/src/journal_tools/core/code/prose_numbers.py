"""Numbers in a page's sentences tied to its code. ``[1.41]{= d_k ** 0.5 :.2f}`` shows ``1.41`` and is checked: after the
code above it ran, ``f"{d_k ** 0.5 :.2f}"`` must give exactly the text written; ``{= d_k ** 0.5 :.2f}`` alone shows that text,
filled in by the build. The braces hold a replacement field of a Python f-string (expression, ``!r``, ``:spec``), read by
Python's own parser. Why this syntax, and what Quarto and MyST do: toolkit/DECISIONS.md (numbers in sentences).

The code "above" a number: the page's namespace after the Python block before it (``doctest: page``), else that block's chain.
Code spans and fences are never read for numbers, so the syntax can be shown in backticks.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass

from journal_tools.core.mistake import Mistake, Origin

__all__ = ["ProseNumber", "evaluate", "find", "mismatches", "shown"]

# ``[written]{= field}`` or ``{= field}``; a field is one line, with no braces (name a value in the code for a dict or a set).
PATTERN = re.compile(r"(?:\[(?P<written>[^\[\]{}\n]*)\])?\{=(?P<field>[^{}\n]*[^{}\s][^{}\n]*)\}")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")


class ProseError(Mistake):
    """A number in a sentence whose field is no f-string field (parse.py turns it into a PageError at its line)."""


@dataclass(frozen=True)
class ProseNumber:
    """One tied number: where it is (``line`` the expanded line, ``start``/``end`` its columns) and what it says."""

    origin: Origin
    line: int
    start: int
    end: int
    written: str | None  # the number as written in brackets; None: the build fills it in
    field: str  # the replacement field, as written: ``d_k ** 0.5 :.2f``

    @property
    def checked(self) -> bool:
        """Is a number written (and so compared), rather than filled in?"""
        return self.written is not None

    def expression(self) -> str:
        """The field's expression alone (``d_k ** 0.5``), for messages."""
        value = _parsed(self.field)[1]
        return ast.get_source_segment(_source(self.field), value.value) or self.field

    def spec(self) -> str:
        """The field's conversion and format (``:.2f``), or ""."""
        return self.field.strip()[len(self.expression()):].strip()


def _source(field: str) -> str:
    """An f-string holding only ``field``, quoted with a quote the field does not use."""
    quote = next((q for q in ('"', "'", '"""', "'''") if q not in field), '"')
    return f"f{quote}{{{field}}}{quote}"


@functools.lru_cache(maxsize=1024)
def _parsed(field: str):
    """(code, FormattedValue) of a field; SyntaxError or ValueError when it is not one replacement field of an f-string."""
    tree = ast.parse(_source(field), mode="eval")
    parts = tree.body.values if isinstance(tree.body, ast.JoinedStr) else []
    if len(parts) != 1 or not isinstance(parts[0], ast.FormattedValue):
        raise ValueError("it must be one expression, with an optional !conversion and :format")
    return compile(tree, "<number in the text>", "eval", dont_inherit=True), parts[0]


def _matches(line: str):
    """The tied numbers of one line, outside code spans."""
    spans = [m.span() for m in _CODE_SPAN.finditer(line)]
    for m in PATTERN.finditer(line):
        if not any(a <= m.start() < b for a, b in spans):
            yield m


def find(lines: list[str], origins: list[Origin], skip: set[int]) -> list[ProseNumber]:
    """Every tied number of the expanded lines, the lines in ``skip`` (fences) left out; ProseError at a field that does not parse."""
    found = []
    for i, line in enumerate(lines):
        if i in skip or "{=" not in line:
            continue
        for m in _matches(line):
            number = ProseNumber(origins[i], i, m.start(), m.end(), m["written"], m["field"])
            try:
                _parsed(number.field)
            except (SyntaxError, ValueError) as exc:
                raise ProseError.at(number.origin, f"the number's field {{={number.field}}} is not a Python f-string field: "
                                    f"{getattr(exc, 'msg', exc)}") from None
            found.append(number)
    return found


def evaluate(number: ProseNumber, namespace: dict) -> str:
    """The text the field gives in ``namespace`` (what it raises: the page's mistake at the number)."""
    return eval(_parsed(number.field)[0], namespace)


def shown(text: str, values: list[str | None] | None = None) -> str:
    """``text`` as a reader sees it: each tied number (outside fences and code spans) as written, a filled one as
    ``values[k]`` (k counts the page's tied numbers; no value: its field in a code span, a mistake the build reports)."""
    from journal_tools.core.page.fences import FenceError, inside_fence, scan

    lines = text.split("\n")
    try:
        skip = inside_fence(scan(lines))
    except FenceError:  # the page tests name it
        skip = set()
    k = 0
    for i, line in enumerate(lines):
        if i in skip or "{=" not in line:
            continue
        out, pos = [], 0
        for m in _matches(line):
            value = values[k] if values is not None and k < len(values) else None
            out += [line[pos:m.start()], m["written"] if m["written"] is not None else (value or f"`{m['field'].strip()}`")]
            pos, k = m.end(), k + 1
        lines[i] = "".join(out) + line[pos:]
    return "\n".join(lines)


def mismatches(page, shown_values: list[tuple[ProseNumber, str]], hint: str):
    """One OutputMismatch per page line whose written numbers differ from what their fields give, each with the line rewritten."""
    from journal_tools.core.code.outputs import OutputMismatch

    wrong = [(n, v) for n, v in shown_values if n.checked and n.written != v]
    found = []
    for line in sorted({n.line for n, _ in wrong}):
        here = sorted(((n, v) for n, v in wrong if n.line == line), key=lambda nv: nv[0].start)
        number, value = here[0]
        spec = f" (`{number.spec()}`)" if number.spec() else ""
        problem = f"the number written is {number.written} but `{number.expression()}` gives {value}{spec}"
        old, new, pos = page.expanded.lines[line], [], 0
        for n, v in here:
            new += [old[pos:n.start], f"[{v}]{{={n.field}}}"]
            pos = n.end
        # Written back on the page's own line, and only values the brackets can hold.
        writable = number.origin.path == page.path and not number.origin.included_at and \
            not any(set(v) & set("[]\n") for _, v in here)
        if not writable:
            hint = "make update-outputs cannot write it (an included file's line, or a value with brackets): edit it by hand"
        found.append(OutputMismatch(number.origin, f"{problem}; {hint}", page.path, number.origin.line if writable else 0,
                                    [old], ["".join(new) + old[pos:]], "prose", len(here)))
    return found
