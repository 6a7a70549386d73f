"""Turn a Markdown page into the code the tests run.

Steps:
1. expand snippet includes exactly as the build does (``snippet_map``);
2. make every fence a reader sees as Python visible to pytest-codeblocks'
   parser: its parser only takes an info string of exactly ``python``, so
   ``py``, ``python title="x.py"`` and friends are rewritten to ``python`` on a
   copy of the page (line count unchanged, so its line numbers still hold);
3. let pytest-codeblocks' parser read that copy, so its marker vocabulary
   (``cont``, ``expected-output``, ``importorskip``, ``pytest.mark.*``) means
   what its documentation says;
4. recover what the parser does not keep: where each fence is (its ``cont``
   merges code and loses line numbers), which fence is an expected output,
   and the journal's own ``<!-- journal:expected-math -->`` marker.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pytest_codeblocks import extract_from_buffer

from journal_tools.snippet_map import ExpandedPage, Origin, expand_page

PYTHON_LANGS = {"python", "py", "python3", "py3"}
MATH_MARKER = re.compile(r"^\s*<!--\s*journal:expected-math\s*-->\s*$")
_CODEBLOCKS_MARKER = re.compile(r"^\s*<!--[-\s]*pytest-codeblocks:(.*)-->\s*$")
_MARK_MARKER = re.compile(r"^\s*<!--[-\s]*pytest\.mark\..*-->\s*$")
DOCTEST_MODES = ("block", "page")


class PageError(Exception):
    """A page cannot be tested as written; the message names the page and line."""


@dataclass
class Fence:
    """A backtick fence in the expanded page (indices are 0-based expanded lines)."""

    start: int
    end: int
    info: str
    indent: int

    @property
    def lang(self) -> str:
        return fence_lang(self.info)

    @property
    def body(self) -> range:
        return range(self.start + 1, self.end)


@dataclass
class Part:
    """One fence's code, run as its own compile unit so line numbers map back."""

    fence: Fence
    code: str
    origins: list[Origin]  # one per code line


@dataclass
class MathCheck:
    """A display formula whose matrix numbers must equal what a step printed."""

    tex: str
    origin: Origin  # where the formula starts
    lines: range  # expanded lines holding the formula


@dataclass
class Step:
    """One code block as pytest-codeblocks sees it: a fence plus its ``cont`` fences."""

    parts: list[Part]
    syntax: str
    marks: list[str] = field(default_factory=list)
    importorskip: str | None = None
    expected_output: str | None = None
    expected_ignore_whitespace: bool = False
    expected_fence: Fence | None = None
    math: MathCheck | None = None

    @property
    def origin(self) -> Origin:
        return self.parts[0].origins[0] if self.parts[0].origins else Origin("?", 0)

    @property
    def line(self) -> int:
        """The page line of the opening fence (pytest-codeblocks' test id number)."""
        return self.parts[0].fence.start + 1


@dataclass
class Page:
    path: str  # relative to the project root
    expanded: ExpandedPage
    mode: str
    steps: list[Step]  # Python steps only, in page order
    python_fences: int  # every Python fence, including cont and output fences
    other_steps: list[Step]  # shell and other collected-language blocks (not run)

    def where(self, expanded_index: int) -> Origin:
        return self.expanded.origins[expanded_index]


def fence_lang(info: str) -> str:
    """The language of a fence info string: 'py', '{.python .x}', 'python title="a.py"'."""
    info = info.strip()
    if info.startswith("{"):
        info = info.strip("{} ")
    first = info.split()[0] if info.split() else ""
    return first.lstrip(".").lower()


def scan_fences(lines: list[str], expanded: ExpandedPage) -> list[Fence]:
    """Backtick fences, found with the same rules as pytest-codeblocks' parser.

    Its parser opens a fence at any line whose stripped text starts with ```
    and closes it at the first line starting with as many backticks; using the
    same rules here keeps this list and the parser's blocks in step.
    """
    fences = []
    i = 0
    while i < len(lines):
        stripped = lines[i].lstrip()
        if stripped.startswith("```"):
            ticks = len(stripped) - len(stripped.lstrip("`"))
            info = stripped[ticks:].strip()
            j = i + 1
            while j < len(lines) and lines[j].lstrip()[:ticks] != "`" * ticks:
                j += 1
            if j == len(lines):
                raise PageError(f"{expanded.origins[i].describe()}: a ``` fence opened here is never closed")
            fences.append(Fence(i, j, info, len(lines[i]) - len(stripped)))
            i = j + 1
        else:
            i += 1
    return fences


def front_matter(text: str, rel: str) -> dict:
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end == -1:
        return {}
    try:
        meta = yaml.safe_load(text[3:end]) or {}
    except yaml.YAMLError as exc:
        raise PageError(f"{rel}:1: front matter is not valid YAML: {exc}") from None
    return meta if isinstance(meta, dict) else {}


class _LineCounter(io.StringIO):
    """Counts lines read, so a parser error can name the line it stopped at."""

    lines_read = 0

    def readline(self, *args):
        line = super().readline(*args)
        if line:
            self.lines_read += 1
        return line


def parse_page(page: Path, root: Path) -> Page:
    rel = str(page.resolve().relative_to(root.resolve()))
    meta = front_matter(page.read_text(encoding="utf-8"), rel)
    mode = meta.get("doctest", "block")
    if mode not in DOCTEST_MODES:
        raise PageError(f"{rel}:1: front matter 'doctest: {mode}' must be one of {', '.join(DOCTEST_MODES)}")

    expanded = expand_page(page, root)
    lines = expanded.lines
    fences = scan_fences(lines, expanded)

    # A copy the parser can read: Python-looking fences get the exact info
    # string `python` it collects. Same number of lines, so line numbers hold.
    normalised = list(lines)
    for f in fences:
        if f.lang in PYTHON_LANGS:
            normalised[f.start] = " " * f.indent + "`" * _ticks(lines[f.start]) + "python"
    buffer = _LineCounter("\n".join(normalised) + "\n")
    try:
        blocks = extract_from_buffer(buffer, max_num_lines=10**7)
    except RuntimeError as exc:
        at = expanded.origins[min(buffer.lines_read, len(lines)) - 1]
        raise PageError(f"{at.describe()}: {exc}") from None

    by_start = {f.start: f for f in fences}
    block_starts = [b.lineno - 1 for b in blocks]
    steps, others = [], []
    for n, block in enumerate(blocks):
        head = by_start[block.lineno - 1]
        stop = block_starts[n + 1] if n + 1 < len(blocks) else len(lines)
        members = [f for f in fences if head.start <= f.start < stop]
        parts, expected_fence = [], None
        for f in members:
            if f is not head and _marker_before(lines, f.start, {"expected-output", "expected-output-ignore-whitespace"}):
                if f.lang in PYTHON_LANGS:
                    raise PageError(f"{expanded.origins[f.start].describe()}: an expected-output fence is shown as Python; write it as ```text")
                expected_fence = f
                continue
            if f is not head:
                _check_cont(rel, expanded, lines, head, f)
            parts.append(_part(lines, expanded, f))
        step = Step(
            parts=parts,
            syntax=head.lang,
            marks=list(block.marks),
            importorskip=block.importorskip,
            expected_output=block.expected_output,
            expected_ignore_whitespace=block.expected_output_ignore_whitespace,
            expected_fence=expected_fence,
        )
        last = max(members, key=lambda f: f.end)
        next_fence = next((f.start for f in fences if f.start > last.end), len(lines))
        step.math = _math_check(rel, expanded, lines, last.end + 1, next_fence)
        (steps if head.lang in PYTHON_LANGS else others).append(step)

    python_fences = sum(1 for f in fences if f.lang in PYTHON_LANGS)
    _check_orphan_math_markers(expanded, lines, steps + others)
    return Page(rel, expanded, mode, steps, python_fences, others)


def _ticks(line: str) -> int:
    stripped = line.lstrip()
    return len(stripped) - len(stripped.lstrip("`"))


def _part(lines: list[str], expanded: ExpandedPage, f: Fence) -> Part:
    body = [lines[i][min(f.indent, len(lines[i]) - len(lines[i].lstrip())) :] for i in f.body]
    return Part(f, "\n".join(body) + ("\n" if body else ""), [expanded.origins[i] for i in f.body])


def _marker_before(lines: list[str], index: int, keywords: set[str]) -> bool:
    """Is the last non-blank line before ``index`` a pytest-codeblocks marker in ``keywords``?"""
    for line in _comment_lines_before(lines, index):
        m = _CODEBLOCKS_MARKER.match(line)
        if m and m.group(1).strip("- ") in keywords:
            return True
    return False


def _comment_lines_before(lines: list[str], index: int) -> list[str]:
    """The run of marker comments (and blank lines) directly above a fence."""
    out = []
    i = index - 1
    while i >= 0 and (not lines[i].strip() or lines[i].strip().startswith("<!--")):
        if lines[i].strip():
            out.append(lines[i])
        i -= 1
    return out


def _check_cont(rel, expanded, lines, head: Fence, f: Fence) -> None:
    where = expanded.origins[f.start].describe()
    # pytest-codeblocks would put a mark written above a cont fence on the next
    # new block, and append a Python cont to a shell block: refuse both.
    if any(_MARK_MARKER.match(line) for line in _comment_lines_before(lines, f.start)):
        raise PageError(f"{where}: a pytest.mark above a 'cont' block would apply to a later block; put it above the first block of the chain")
    if f.lang != head.lang:
        raise PageError(f"{where}: a '{f.lang or 'plain'}' block continues a '{head.lang or 'plain'}' block; a cont block must be in the same language")


def _math_check(rel, expanded, lines, begin: int, end: int) -> MathCheck | None:
    """The journal's expected-math marker between a step and the next fence."""
    for i in range(begin, end):
        if MATH_MARKER.match(lines[i]):
            return _formula_after(expanded, lines, i + 1, end, expanded.origins[i])
    return None


def _formula_after(expanded, lines, begin, end, marker_origin) -> MathCheck:
    for i in range(begin, end):
        stripped = lines[i].strip()
        if not stripped:
            continue
        if not stripped.startswith("$$"):
            break
        text = stripped[2:]
        j = i
        while "$$" not in text:
            j += 1
            if j >= end:
                raise PageError(f"{expanded.origins[i].describe()}: display formula opened with $$ is never closed")
            text += "\n" + lines[j].strip()
        return MathCheck(text[: text.index("$$")], expanded.origins[i], range(i, j + 1))
    raise PageError(f"{marker_origin.describe()}: <!-- journal:expected-math --> must be followed by a $$ display formula")


def _check_orphan_math_markers(expanded, lines, steps) -> None:
    used = set()
    for s in steps:
        if s.math:
            used.add(s.math.lines.start)
    for i, line in enumerate(lines):
        if MATH_MARKER.match(line):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j not in used:
                raise PageError(f"{expanded.origins[i].describe()}: <!-- journal:expected-math --> must come after a code block (and its output) and before the next block")
