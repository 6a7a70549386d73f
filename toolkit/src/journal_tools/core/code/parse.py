"""A Markdown page as the steps the tests run: includes expanded as the build does (``includes``), fences from
the one scanner (``fences``), pytest-codeblocks' markers (``cont``, ``expected-output``, ``importorskip``,
``pytest.mark.X``) and ``<!-- journal:expected-math -->``, each mark evaluated once, here. pytest-codeblocks'
own parser is not used (DECISIONS.md: our own page parser).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from journal_tools.core.code import prose_numbers
from journal_tools.core.code.printed_tensors import Selector, parse_selector
from journal_tools.core.mistake import Mistake, Origin
from journal_tools.core.page import frontmatter, limits
from journal_tools.core.page.fences import Fence, FenceError, inside_fence, scan
from journal_tools.core.page.includes import ExpandedPage, expand
from journal_tools.core.page.marks import NAMESPACE, Mark
from journal_tools.core.page.source import SourceError, read_source
from journal_tools.core.settings import Settings

PYTHON_LANGS = frozenset({"python", "py", "python3", "py3"})
SHELL_LANGS = frozenset({"sh", "bash"})
RUN_LANGS = PYTHON_LANGS | SHELL_LANGS
DOCTEST_MODES = ("block", "page")
# ``<!-- journal:expected-math -->``, or with a selector: ``<!-- journal:expected-math tensor=2[0] -->``.
MATH_MARKER = re.compile(r"^\s*<!--\s*journal:expected-math(?:\s+(?P<options>.*?))?\s*-->\s*$")
_CODEBLOCKS_MARKER = re.compile(r"^\s*<!--[-\s]*pytest-codeblocks:(?P<keyword>.*?)[-\s]*-->\s*$")
_MARK_MARKER = re.compile(r"^\s*<!--[-\s]*(?P<mark>pytest\.mark\..*?)[-\s]*-->\s*$")
_IMPORTORSKIP = re.compile(r"importorskip\((?P<module>.*)\)")
_EXPECTED = ("expected-output", "expected-output-ignore-whitespace")
NEEDS_REASON = ("skip", "skipif", "xfail")
APPLIED_MARKS = NEEDS_REASON  # what run.py honours


class PageError(Mistake):
    """A page cannot be tested as written, at the page (or snippet) line at fault."""


@dataclass
class Part:
    """One fence's code, run as its own compile unit so line numbers map back."""

    fence: Fence
    code: str
    origins: list[Origin]  # one per code line
    prose: list[prose_numbers.ProseNumber] = field(default_factory=list)  # numbers in the text checked after this part ran


@dataclass
class MathCheck:
    """A display formula whose matrix must be a tensor a step printed."""

    tex: str
    origin: Origin  # where the formula starts
    lines: range  # expanded lines holding the formula
    selector: Selector | None = None  # the printed tensor the marker names (None: the one of the matrix's shape)


@dataclass
class Step:
    """One code block: a fence plus the ``cont`` fences that continue it."""

    parts: list[Part]
    lang: str
    origin: Origin  # the opening fence line
    marks: list[Mark] = field(default_factory=list)
    importorskip: str | None = None
    expected_fence: Fence | None = None
    expected_output: str | None = None
    expected_ignore_whitespace: bool = False
    math: MathCheck | None = None

    @property
    def runs(self) -> bool:
        """Does the test run this block (Python or shell)?"""
        return self.lang in RUN_LANGS

    @property
    def code(self) -> str:
        """The whole block, cont parts included (a shell step runs as one script)."""
        return "".join(p.code for p in self.parts)

    def mark(self, name: str) -> Mark | None:
        """The first mark called ``name`` (skip, skipif, xfail), if any."""
        return next((m for m in self.marks if m.name == name), None)


@dataclass
class Page:
    """A page ready to run: its expanded lines and its runnable steps, in page order."""

    path: str  # relative to the project root
    expanded: ExpandedPage
    mode: str
    steps: list[Step]
    fences: list[Fence]
    limit: limits.Limit  # each step's time limit (front matter ``timeout``, else the plugin's)

    def where(self, expanded_index: int) -> Origin:
        """The page (or snippet) line behind an expanded line."""
        return self.expanded.origins[expanded_index]

    def count(self, langs: frozenset[str]) -> int:
        """Fences in ``langs`` a reader sees (cont parts included, expected outputs not)."""
        return sum(1 for s in self.steps for p in s.parts if p.fence.lang in langs)


@dataclass
class _Pending:
    """Markers read since the last fence."""

    marks: list[Mark] = field(default_factory=list)
    mark_lines: list[int] = field(default_factory=list)
    importorskip: str | None = None
    cont: int | None = None  # line of a cont marker
    expected: tuple[str, int] | None = None  # keyword, line


def parse_page(path: Path, settings: Settings) -> Page:
    """Read ``path`` into a :class:`Page`; raise PageError (or IncludeError) naming a line."""
    rel = settings.rel(path)
    try:
        text = read_source(path, rel)
        meta = frontmatter.read(text, rel)
        limit = limits.page_limit(meta, settings.block_timeout)
    except (SourceError, frontmatter.FrontMatterError) as exc:
        raise PageError.like(exc) from None
    mode = meta.data.get("doctest", "block")
    if mode not in DOCTEST_MODES:
        raise PageError(rel, meta.line("doctest"), f"'doctest: {mode}' must be one of {', '.join(DOCTEST_MODES)}")
    expanded = expand(text, rel, settings)
    lines = expanded.lines
    try:
        fences = scan(lines)
    except FenceError as exc:
        raise PageError.at(expanded.origins[exc.index], str(exc)) from None
    steps = [s for s in _Reader(rel, expanded, fences).read() if s.runs]
    try:
        numbers = prose_numbers.find(lines, expanded.origins, inside_fence(fences))
    except prose_numbers.ProseError as exc:
        raise PageError.like(exc) from None
    _attach_prose(numbers, steps, mode)
    return Page(rel, expanded, mode, steps, fences, limit)


def _attach_prose(numbers: list[prose_numbers.ProseNumber], steps: list[Step], mode: str) -> None:
    """Each number in the text to the Python part it follows: the page's namespace then (``doctest: page``), else that block's
    chain; a number after a shell block (in a block-mode page), or before any Python, is a PageError."""
    parts = [(p, s) for s in steps for p in s.parts if mode != "page" or s.lang in PYTHON_LANGS]
    for number in numbers:
        before = [(p, s) for p, s in parts if p.fence.end < number.line]
        if not before or before[-1][1].lang not in PYTHON_LANGS:
            after = f"a '{before[-1][1].lang}' block, whose values Python cannot see" if before else "no Python block"
            raise PageError.at(number.origin, f"the number {{={number.field}}} comes after {after}; a number in the text "
                               "is checked against the Python code above it")
        before[-1][0].prose.append(number)


class _Reader:
    """Walks the expanded lines once, top to bottom, as pytest-codeblocks does."""

    def __init__(self, rel: str, expanded: ExpandedPage, fences: list[Fence]):
        self.rel, self.expanded, self.lines = rel, expanded, expanded.lines
        self.fences = {f.start: f for f in fences}
        self.steps: list[Step] = []
        self.pending = _Pending()

    def origin(self, index: int) -> Origin:
        """Where expanded line ``index`` was written."""
        return self.expanded.origins[index]

    def read(self) -> list[Step]:
        i = 0
        comment_open = None
        while i < len(self.lines):
            line = self.lines[i]
            if i in self.fences:
                if comment_open is not None:
                    raise PageError.at(self.origin(i), f"a code fence inside an HTML comment (opened at line "
                                    f"{self.expanded.origins[comment_open].line}) is hidden from readers; show it or delete it")
                fence = self.fences[i]
                self._fence(fence)
                i = fence.end + 1
                continue
            if (marker := MATH_MARKER.match(line)) is not None:
                i = self._math(i, marker["options"] or "")
                continue
            if not self._marker(line, i):
                comment_open = _comment_state(line, i, comment_open)
            i += 1
        self._no_dangling_markers()
        return self.steps

    # -- markers --------------------------------------------------------------

    def _marker(self, line: str, i: int) -> bool:
        m = _CODEBLOCKS_MARKER.match(line)
        if m:
            self._codeblocks_keyword(m["keyword"].strip(), i)
            return True
        m = _MARK_MARKER.match(line)
        if m:
            self.pending.marks.append(self._eval_mark(m["mark"], i))
            self.pending.mark_lines.append(i)
            return True
        return False

    def _codeblocks_keyword(self, keyword: str, i: int) -> None:
        if keyword in _EXPECTED:
            if not self.steps:
                raise PageError.at(self.origin(i), f"<!--pytest-codeblocks:{keyword}--> but no code block before it")
            if self.steps[-1].expected_fence is not None:
                raise PageError.at(self.origin(i), f"<!--pytest-codeblocks:{keyword}--> but the block before it "
                                                   "already has an expected output")
            self.pending.expected = (keyword, i)
        elif keyword == "cont":
            if not self.steps:
                raise PageError.at(self.origin(i), "<!--pytest-codeblocks:cont--> but no code block before it")
            self.pending.cont = i
        elif (m := _IMPORTORSKIP.fullmatch(keyword)) is not None:
            self.pending.importorskip = m["module"].strip().strip("'\"")
        elif keyword in ("skip", "expect-exception", "expect-error", "skipfile") or keyword.startswith("skipif"):
            raise PageError.at(self.origin(i), f"<!--pytest-codeblocks:{keyword}--> is not supported here: "
                            "use <!--pytest.mark.skip(reason=\"...\")--> or xfail(reason=\"...\") above the block")
        else:
            raise PageError.at(self.origin(i), f"unknown marker <!--pytest-codeblocks:{keyword}-->")

    def _eval_mark(self, text: str, i: int) -> Mark:
        try:
            mark = eval(text, dict(NAMESPACE))  # the marker vocabulary is pytest's own (core/page/marks.py)
        except Exception as exc:  # a typo in a marker comment is a page error, not a crash
            raise PageError.at(self.origin(i), f"cannot read marker <!--{text}-->: {exc}") from None
        if not isinstance(mark, Mark):
            raise PageError.at(self.origin(i), f"<!--{text}--> is not a pytest mark")
        if mark.name not in APPLIED_MARKS:  # it would be ignored: the block would run as if unmarked
            raise PageError.at(self.origin(i), f"<!--{text}--> is a mark the page tests do not apply "
                            f"(they apply {', '.join(APPLIED_MARKS)})")
        if mark.name in NEEDS_REASON and not (mark.kwargs.get("reason") or (mark.name == "skip" and mark.args)):
            raise PageError.at(self.origin(i), f"<!--{text}--> needs a written reason=\"...\"")
        return mark

    # -- fences ---------------------------------------------------------------

    def _fence(self, fence: Fence) -> None:
        pending = self.pending
        if pending.cont is not None:
            self._continue(fence)
        elif pending.expected is not None:
            self._expected(fence)
        else:
            step = Step([self._part(fence)], fence.lang, self.expanded.origins[fence.start],
                        pending.marks, pending.importorskip)
            if (step.marks or step.importorskip) and not step.runs:
                at = pending.mark_lines[0] if pending.mark_lines else fence.start
                raise PageError.at(self.origin(at), f"a marker above a '{fence.lang or 'plain'}' block, which is not run; "
                                "markers apply to python, sh and bash blocks")
            self.steps.append(step)
        self.pending = _Pending()

    def _continue(self, fence: Fence) -> None:
        head = self.steps[-1]
        if self.pending.marks:
            # pytest-codeblocks would put such a mark on the next new block.
            raise PageError.at(self.origin(self.pending.mark_lines[0]), "a pytest.mark above a 'cont' block would apply "
                            "to a later block; put it above the first block of the chain")
        if fence.lang and fence.lang != head.lang and not (fence.lang in PYTHON_LANGS and head.lang in PYTHON_LANGS):
            raise PageError.at(self.origin(fence.start), f"a '{fence.lang}' block continues a '{head.lang or 'plain'}' "
                            "block; a cont block must be in the same language (or a bare ``` fence)")
        head.parts.append(self._part(fence))

    def _expected(self, fence: Fence) -> None:
        keyword, _ = self.pending.expected
        if fence.lang in PYTHON_LANGS:
            raise PageError.at(self.origin(fence.start), "an expected-output fence is shown as Python; write it as ```text")
        step = self.steps[-1]
        step.expected_fence = fence
        step.expected_output = fence.code(self.lines)
        step.expected_ignore_whitespace = keyword.endswith("ignore-whitespace")

    def _part(self, fence: Fence) -> Part:
        return Part(fence, fence.code(self.lines), [self.expanded.origins[i] for i in fence.body])

    # -- the journal's expected-math marker -----------------------------------------

    def _math(self, i: int, options: str) -> int:
        try:
            selector = parse_selector(options)
        except ValueError as exc:
            raise PageError.at(self.origin(i), f"<!-- journal:expected-math {options} -->: {exc}") from None
        runnable = [s for s in self.steps if s.runs]
        if not runnable or runnable[-1].math is not None or self.pending.cont or self.pending.expected:
            raise PageError.at(self.origin(i), "<!-- journal:expected-math --> must come after a code block "
                            "(and its output) and before the next block")
        j = i + 1
        while j < len(self.lines) and not self.lines[j].strip():
            j += 1
        if j == len(self.lines) or not self.lines[j].strip().startswith("$$"):
            raise PageError.at(self.origin(i), "<!-- journal:expected-math --> must be followed by a $$ display formula")
        text = self.lines[j].strip()[2:]
        k = j
        while "$$" not in text:
            k += 1
            if k >= len(self.lines) or k in self.fences:
                raise PageError.at(self.origin(j), "display formula opened with $$ is never closed")
            text += "\n" + self.lines[k].strip()
        runnable[-1].math = MathCheck(text[: text.index("$$")], self.expanded.origins[j], range(j, k + 1), selector)
        return k + 1

    def _no_dangling_markers(self) -> None:
        p = self.pending
        dangling = p.mark_lines[:1] + [x for x in (p.cont, p.expected and p.expected[1]) if x is not None]
        if dangling:
            raise PageError.at(self.origin(min(dangling)), "a marker with no code block after it")


def _comment_state(line: str, i: int, open_at: int | None) -> int | None:
    """Track multi-line HTML comments (a fence inside one is hidden from readers)."""
    if open_at is None:
        start = line.rfind("<!--")
        return i if start >= 0 and "-->" not in line[start:] else None
    return None if "-->" in line else open_at
