"""The author's entry as written: every sentence, formula and code line of the author's
own text (tests/author/2025-07-27.txt, kept as the author wrote it) is on the entry's page,
outside the editors' marks, changed by nothing but the typo fixes listed with their
reasons in tests/author/typo-fixes.yml; and every word of the editors' on that page
stands inside one of their marks.

The editors' marks (the site styles each of them as theirs):
- an admonition whose title starts with "Editor" (``!!! note "Editor's note: ..."``);
- a section whose heading says it is the editors' (``## ... (editors' addition)``),
  down to the next heading of the same or a higher level;
- any element with the class ``editor`` (``{ .editor }``, ``<div class="editor" markdown>``).
Series boxes and the citations' reference list are site furniture.

Sentences are compared modulo case, quotes and punctuation: as runs of words (letters
and digits). The page is read with the journal's own readers: rendered with the site's
Markdown (the build's extensions, math and citations included), its snippet includes
expanded with a map back to page lines (journal_tools.core.page.includes), its code
blocks as the page tests run them (journal_tools.core.code.parse). A failure names the
page's ``file:line`` and the author's sentence.
"""

from __future__ import annotations

import datetime
import difflib
import functools
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from journal_tools.compat import blog, mkdocs_config
from journal_tools.core.code.parse import parse_page
from journal_tools.core.code.render_check import render_html
from journal_tools.core.mistake import Mistake
from journal_tools.core.page import frontmatter
from journal_tools.core.page.includes import expand_file
from journal_tools.core.page.source import read_source
from journal_tools.core.record.validate import check_post

ROOT = Path(__file__).resolve().parents[1]
AUTHOR = ROOT / "tests" / "author"
FIXES = AUTHOR / "typo-fixes.yml"
SEED = AUTHOR / "2025-07-27.txt"
ENTRY = ROOT / "docs" / "blog" / "posts" / "2025-07-27-weights-and-causal-attention.md"
# The author's text: line 1 its title, line 2 its date, then the entry; lines 6-21 are
# the class the author pasted, the only code of the entry (its indentation was lost).
CODE_LINES = range(6, 22)

_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_EDITORS_HEADING = re.compile(r"\beditor(?:s['’]|['’]s)", re.I)
_SERIES_BOX = re.compile(r"\bpart \d+ of \d+\b", re.I)
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
_BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "li", "td", "th", "dt", "dd"}


def words(text: str) -> list[str]:
    """The words of ``text``, lower case: what two texts are compared by (case, quotes, punctuation aside)."""
    return _WORD.findall(text.casefold())


def rel(path: Path) -> str:
    """``path`` as a failure names it."""
    return path.relative_to(ROOT).as_posix()


# -- the author's text ------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """One sentence of the author's text, typo fixes applied; ``line`` is its line in the author's file."""

    text: str
    line: int

    @property
    def words(self) -> list[str]:
        """Its words."""
        return words(self.text)


@dataclass
class AuthorText:
    """The author's entry read from the file kept as written, the listed fixes applied."""

    title: str
    date: str
    sentences: list[Sentence]
    formulas: list[str]  # the TeX of each $$ formula
    code: list[str]  # the code lines, stripped (the author's indentation was lost)
    unused_fixes: list[str] = field(default_factory=list)


def load_fixes() -> list[dict]:
    """The typo fixes listed for the author's text."""
    return yaml.safe_load(FIXES.read_text(encoding="utf-8"))[SEED.name]


@functools.cache
def author_text() -> AuthorText:
    """Read the author's file, apply the listed fixes, split the prose into sentences."""
    text = SEED.read_text(encoding="utf-8")
    unused = []
    for fix in load_fixes():
        if fix["written"] not in text:
            unused.append(fix["written"])
        text = text.replace(fix["written"], fix["reads"])
    lines = text.split("\n")
    sentences, formulas = [], []
    for number, line in enumerate(lines[2:], start=3):
        if number in CODE_LINES or not line.strip():
            continue
        formulas += [tex.strip() for tex in _DISPLAY_MATH.findall(line)]
        prose = _DISPLAY_MATH.sub(" ", line).strip()
        sentences += [Sentence(s, number) for s in _SENTENCE_END.split(prose) if s.strip()]
    code = [lines[n - 1].strip() for n in CODE_LINES]
    return AuthorText(lines[0], lines[1], sentences, formulas, code, unused)


# -- the page as a reader sees it ---------------------------------------------------------


@dataclass
class Node:
    """An element of the rendered page."""

    tag: str
    attrs: dict
    parent: Node | None
    children: list = field(default_factory=list)  # Node or str

    @property
    def classes(self) -> list[str]:
        """Its class names."""
        return (self.attrs.get("class") or "").split()

    def text(self) -> str:
        """Its text as a reader reads it; a formula as its TeX (MathML's alttext)."""
        if self.tag == "math":
            return f" {self.attrs.get('alttext', '')} "
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def elements(self) -> list[Node]:
        """Its child elements."""
        return [c for c in self.children if isinstance(c, Node)]


class _Tree(HTMLParser):
    """The rendered page as a tree of :class:`Node`. The standard library's HTMLParser, as
    journal_tools.core.code.render_check reads rendered pages (no HTML library is pinned);
    Python-Markdown's output is well nested, so a start and an end tag are all it needs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.node = Node("root", {}, None)

    def handle_starttag(self, tag, attrs):
        child = Node(tag, dict(attrs), self.node)
        self.node.children.append(child)
        if tag not in _VOID:
            self.node = child

    def handle_startendtag(self, tag, attrs):
        self.node.children.append(Node(tag, dict(attrs), self.node))

    def handle_endtag(self, tag):
        node = self.node
        while node.parent is not None and node.tag != tag:
            node = node.parent
        if node.parent is not None:
            self.node = node.parent

    def handle_data(self, data):
        self.node.children.append(data)


@dataclass
class Block:
    """A block a reader reads: a paragraph, heading, list item, code block or display formula."""

    node: Node
    editors: bool  # inside one of the editors' marks
    furniture: bool  # a series box or the reference list
    at: int = 0  # where its words start among the source's words (``_align``)

    @property
    def kind(self) -> str:
        """``formula``, ``code``, ``heading`` or ``prose``."""
        if "math-display" in self.node.classes:
            return "formula"
        if self.node.tag == "pre":
            return "code"
        return "heading" if re.fullmatch(r"h[1-6]", self.node.tag) else "prose"

    @property
    def words(self) -> list[str]:
        """Its words."""
        return words(self.node.text())

    def tex(self) -> str:
        """A display formula's TeX, without spaces."""
        math = next((n for n in _walk(self.node) if n.tag == "math"), None)
        return re.sub(r"\s+", "", math.attrs.get("alttext", "")) if math else ""


def _walk(node: Node):
    for child in node.elements():
        yield child
        yield from _walk(child)


def _admonition_title(node: Node) -> str:
    title = next((c for c in node.elements() if "admonition-title" in c.classes), None)
    return title.text().strip() if title else ""


def _is_admonition(node: Node) -> bool:
    return node.tag in ("div", "details") and ("admonition" in node.classes or node.tag == "details")


def _editors_own(node: Node) -> bool:
    """Is ``node`` itself one of the editors' marks (a class, an admonition titled "Editor...")?"""
    return "editor" in node.classes or (_is_admonition(node) and _admonition_title(node).startswith("Editor"))


def _furniture(node: Node) -> bool:
    return "journal-references" in node.classes or (_is_admonition(node) and bool(_SERIES_BOX.search(_admonition_title(node))))


def _blocks(root: Node) -> list[Block]:
    """Every block of the page in order, each knowing whether it stands inside an editors' mark."""
    found: list[Block] = []
    top = root.elements()
    section_level = None  # the level of the editors' heading whose section we are in
    for i, node in enumerate(top):
        level = int(node.tag[1]) if re.fullmatch(r"h[1-6]", node.tag) else None
        if level is not None:
            if section_level is not None and level <= section_level:
                section_level = None
            if section_level is None and _EDITORS_HEADING.search(node.text()):
                section_level = level
        reference_heading = level is not None and i + 1 < len(top) and "journal-references" in top[i + 1].classes
        _collect(node, section_level is not None, reference_heading, found)
    return found


def _collect(node: Node, editors: bool, furniture: bool, found: list[Block]) -> None:
    editors = editors or _editors_own(node)
    furniture = furniture or _furniture(node)
    if "math-display" in node.classes or node.tag == "pre" or (
            node.tag in _BLOCKS and not any(c.tag in _BLOCKS | {"div"} for c in _walk(node))):
        found.append(Block(node, editors, furniture))
        return
    for child in node.elements():
        _collect(child, editors, furniture, found)


@dataclass
class EntryPage:
    """The entry as rendered, and its source lines (includes expanded) for ``file:line``."""

    blocks: list[Block]
    date: object
    source_words: list[tuple[str, str]]  # (word, "file:line") for every word of the expanded source
    steps: list  # the code blocks the page tests run (core.code.parse)

    def where(self, wanted: list[str], block: Block | None = None) -> str:
        """``file:line`` of the source that best matches the words ``wanted`` (its longest common run),
        looked for from where ``block`` stands in the source (else anywhere)."""
        lo = block.at if block is not None else 0
        at = _longest_run(self.source_words, wanted, lo)
        if at is None and lo:
            at = _longest_run(self.source_words, wanted, 0)
        return self.source_words[at][1] if at is not None else f"{rel(ENTRY)}:1"

    def reader_blocks(self) -> list[Block]:
        """The blocks outside the site's furniture."""
        return [b for b in self.blocks if not b.furniture]


def entry_page() -> EntryPage:
    """The entry as the page tests read it; when they cannot (a bad date, a failing include), its ``::page`` test fails and names
    the line, so these skip saying so: one mistake, one failure."""
    try:
        check_post(read_source(ENTRY, rel(ENTRY)), rel(ENTRY), _settings(), blog.post_errors)  # the page test's own gate
        return _read_entry()
    except Mistake as exc:
        pytest.skip(f"{rel(ENTRY)}::page fails and names the line: {str(exc).splitlines()[0]}")


@functools.cache
def _settings():
    return mkdocs_config.load(ROOT / "mkdocs.yml")


@functools.cache
def _read_entry() -> EntryPage:
    """Render the entry with the site's Markdown and read its source and code as the page tests do."""
    settings = _settings()
    source = read_source(ENTRY, rel(ENTRY))
    tree = _Tree()
    tree.feed(render_html(source, rel(ENTRY), settings))  # as the build renders it: references resolved, numbers shown
    expanded = expand_file(ENTRY, settings)
    source_words = [(w, f"{o.path}:{o.line}") for line, o in zip(expanded.lines, expanded.origins) for w in words(line)]
    date = frontmatter.read(source, rel(ENTRY)).data.get("date")
    blocks = _blocks(tree.root)
    _align(blocks, source_words)
    return EntryPage(blocks, date, source_words, parse_page(ENTRY, settings).steps)


def _longest_run(source_words: list[tuple[str, str]], wanted: list[str], lo: int) -> int | None:
    """Index of the source word where ``wanted`` starts, by its longest run in common with the source from ``lo``."""
    run = _common_run(source_words, wanted, lo)
    return run[0] if run else None


def _common_run(source_words: list[tuple[str, str]], wanted: list[str], lo: int) -> tuple[int, int] | None:
    """(where ``wanted`` starts, where its longest run in common with the source from ``lo`` ends), in source words."""
    if not wanted:
        return None
    matcher = difflib.SequenceMatcher(None, [w for w, _ in source_words], wanted, autojunk=False)
    a, b, size = matcher.find_longest_match(lo, len(source_words), 0, len(wanted))
    return (max(lo, a - b), a + size) if size else None


def _align(blocks: list[Block], source_words: list[tuple[str, str]]) -> None:
    """Give each block its place in the source: blocks come in page order, so each is looked
    for after the one before it (a heading's words also stand in a note above it)."""
    cursor = 0
    for block in blocks:
        run = _common_run(source_words, block.words, cursor)
        block.at = run[0] if run else cursor
        if run and not block.furniture:
            cursor = run[1]  # the end of its longest run: surely inside this block's source


# -- matching -------------------------------------------------------------------------------


def find_run(haystack: list[str], needle: list[str]) -> int:
    """Where ``needle`` runs whole in ``haystack`` (-1: nowhere)."""
    n = len(needle)
    return next((i for i in range(len(haystack) - n + 1) if haystack[i:i + n] == needle), -1)


def closest(blocks: list[Block], sentence: list[str]) -> tuple[Block | None, int, int, float]:
    """The block holding the closest run to ``sentence``: (block, start, end, share of the sentence's words matched)."""
    best = (None, 0, 0, 0.0)
    for block in blocks:
        have = block.words
        matcher = difflib.SequenceMatcher(None, have, sentence, autojunk=False)
        runs = [m for m in matcher.get_matching_blocks() if m.size]
        share = sum(m.size for m in runs) / len(sentence) if sentence else 0.0
        if runs and share > best[3]:
            best = (block, runs[0].a, runs[-1].a + runs[-1].size, share)
    return best


def describe_change(written: list[str], page: list[str]) -> str:
    """The words changed between the author's sentence and the page's, as a reader would say it."""
    changes = []
    for op, a0, a1, b0, b1 in difflib.SequenceMatcher(None, written, page, autojunk=False).get_opcodes():
        was, now = " ".join(written[a0:a1]), " ".join(page[b0:b1])
        if op == "replace":
            changes.append(f"'{now}' where the author wrote '{was}'")
        elif op == "delete":
            changes.append(f"'{was}' left out")
        elif op == "insert":
            changes.append(f"'{now}' added")
    return "; ".join(changes)


HOW_TO_FIX = (f"Restore the author's words; a typing or spelling slip may be fixed only by listing it, "
              f"with its reason, in {rel(FIXES)}.")


# -- the checks ---------------------------------------------------------------------------

SENTENCES = author_text().sentences


def test_the_authors_text_is_read_whole():
    """37 sentences, two formulas and 16 code lines: the author's text as the issue counts it, every fix used."""
    text = author_text()
    assert (len(text.sentences), len(text.formulas), len(text.code)) == (37, 2, 16), (
        f"{rel(SEED)} reads as {len(text.sentences)} sentences, {len(text.formulas)} formulas and "
        f"{len(text.code)} code lines; is it still the author's text as written?")
    assert text.code[0].startswith("class ") and text.code[-1].startswith("return "), text.code
    assert not text.unused_fixes, f"{rel(FIXES)}: fixes of text the author did not write: {text.unused_fixes}"
    for fix in load_fixes():
        assert fix.get("why", "").strip(), f"{rel(FIXES)}: the fix of '{fix['written']}' gives no reason"


@pytest.mark.parametrize("sentence", SENTENCES, ids=[f"line{s.line}:{'-'.join(s.words[:4])}" for s in SENTENCES])
def test_every_sentence_of_the_author_is_on_the_page_as_written(sentence):
    page = entry_page()
    want = sentence.words
    outside = [b for b in page.reader_blocks() if not b.editors and b.kind == "prose"]
    if any(find_run(b.words, want) >= 0 for b in outside):
        return
    marked = [b for b in page.reader_blocks() if b.editors]
    inside = [b for b in marked if find_run(b.words, want) >= 0]
    if inside:
        pytest.fail(f"{page.where(want, inside[0])}: the author's sentence ({rel(SEED)}:{sentence.line}) stands inside an "
                    f"editors' mark, where readers take it for the editors': \"{sentence.text}\". Move it out "
                    f"of the note or section.", pytrace=False)
    block, start, end, share = closest(outside, want)
    if block is None or share < 0.5:
        pytest.fail(f"{page.where(want)}: the author's sentence ({rel(SEED)}:{sentence.line}) is not on the page: "
                    f"\"{sentence.text}\". {HOW_TO_FIX}", pytrace=False)
    have = block.words[start:end]
    pytest.fail(f"{page.where(have, block)}: the author's sentence ({rel(SEED)}:{sentence.line}) is changed beyond the "
                f"listed fixes: \"{sentence.text}\": {describe_change(want, have)}. {HOW_TO_FIX}", pytrace=False)


def test_the_title_and_date_are_the_authors():
    page, text = entry_page(), author_text()
    titles = [b for b in page.reader_blocks() if b.node.tag == "h1"]
    assert titles and titles[0].words == words(text.title), (
        f"{page.where(words(text.title))}: the page's title is not the author's \"{text.title}\" "
        f"({rel(SEED)}:1). {HOW_TO_FIX}")
    written = datetime.datetime.strptime(text.date.strip(), "%B %d, %Y").date()
    assert page.date == written, f"{rel(ENTRY)}:2: date {page.date}, but the author dated the entry {text.date}"


@pytest.mark.parametrize("number", [1, 2])
def test_the_authors_formulas_are_shown(number):
    page, text = entry_page(), author_text()
    tex = text.formulas[number - 1]
    shown = [b for b in page.reader_blocks() if b.kind == "formula" and b.tex() == re.sub(r"\s+", "", tex)]
    assert any(not b.editors for b in shown), (
        f"{page.where(words(tex))}: the author's formula {number} is not shown as written, outside the "
        f"editors' marks: $${tex}$$. {HOW_TO_FIX}")


def test_the_authors_code_is_shown_and_run():
    """The 16 lines the author pasted, in one block the page tests run, shown outside the editors'
    marks; a later block runs the class and checks what it prints."""
    page, code = entry_page(), author_text().code
    lines_of = [[line.strip() for line in p.code.split("\n") if line.strip()] for s in page.steps for p in s.parts]
    hits = [i for i, lines in enumerate(lines_of) if find_run(lines, code) >= 0]
    if not hits:
        best = max(range(len(lines_of)), key=lambda i: len(set(lines_of[i]) & set(code)), default=None)
        where = (f"{page.steps[0].origin.path}:1" if best is None
                 else str(_part_origin(page, best)))
        pytest.fail(f"{where}: the author's class ({rel(SEED)}:{CODE_LINES.start}-{CODE_LINES.stop - 1}) is not in "
                    f"a code block the page tests run, line for line as the author wrote it.", pytrace=False)
    shown = [b for b in page.reader_blocks() if b.kind == "code" and not b.editors
             and find_run([x.strip() for x in b.node.text().split("\n") if x.strip()], code) >= 0]
    assert shown, f"{_part_origin(page, hits[0])}: the author's class is shown inside an editors' mark"
    name = re.match(r"class (\w+)", code[0])[1]
    parts = [(s, p) for s in page.steps for p in s.parts]
    checked = [s for s, _ in parts[hits[0] + 1:] if f"{name}(" in s.code and s.expected_output]
    assert checked, (f"{_part_origin(page, hits[0])}: no later block runs {name} and checks what it prints "
                     "(<!--pytest-codeblocks:expected-output-->)")


def _like(shown: str, authors: list[str]) -> bool:
    """Is ``shown`` (a code block's text, a formula's TeX) one of ``authors``, or at least half like it? A changed
    piece of the author's is its own test's failure (one mistake, one failure)."""
    def squeeze(s):
        return re.sub(r"\s+", "", s)
    return any(difflib.SequenceMatcher(None, squeeze(shown), squeeze(a), autojunk=False).ratio() >= 0.5 for a in authors)


def _part_origin(page: EntryPage, index: int) -> str:
    part = [p for s in page.steps for p in s.parts][index]
    origin = part.origins[0] if part.origins else None
    return f"{origin.path}:{origin.line}" if origin else f"{rel(ENTRY)}:1"


def test_the_editors_words_are_marked():
    """Outside the editors' marks stand only the author's words: every paragraph there is made of
    the author's sentences, every heading of the author's words, every code block and formula is
    the author's. A changed sentence of the author's is its own test's failure, not this one's."""
    page, text = entry_page(), author_text()
    sentences = [s.words for s in text.sentences]
    everything = words(text.title) + [w for s in sentences for w in s]
    outside = [b for b in page.reader_blocks() if not b.editors]
    prose = [b for b in outside if b.kind == "prose"]
    covered = {id(b): [False] * len(b.words) for b in prose}
    for sentence in sentences:
        exact = [(b, find_run(b.words, sentence)) for b in prose]
        exact = [(b, i) for b, i in exact if i >= 0]
        if exact:
            spans = [(b, i, i + len(sentence)) for b, i in exact]
        else:  # changed: its own test fails; its words here are still the author's sentence
            block, start, end, share = closest(prose, sentence)
            spans = [(block, start, end)] if block is not None and share >= 0.5 else []
        for block, start, end in spans:
            covered[id(block)][start:end] = [True] * (end - start)
    problems = []
    for block in outside:
        if block.kind == "prose":
            extra = [w for w, seen in zip(block.words, covered[id(block)]) if not seen]
            if extra:
                problems.append(f"{page.where(extra, block)}: words that are not the author's (\"{' '.join(extra)}\") "
                                "stand outside the editors' marks, as if the author's: mark them as the editors' "
                                "(a note titled \"Editor's note: ...\", a section headed \"(editors' addition)\", "
                                "class editor), or restore the author's text")
        elif block.kind == "heading" and find_run(everything, block.words) < 0:
            problems.append(f"{page.where(block.words, block)}: the heading \"{block.node.text().strip(' ¶')}\" is not "
                            "the author's words: say it is the editors' (\"... (editors' addition)\")")
        elif block.kind == "code" and not _like(block.node.text(), ["\n".join(text.code)]):
            problems.append(f"{page.where(block.words[:40], block)}: a code block of the editors' outside their marks")
        elif block.kind == "formula" and not _like(block.tex(), text.formulas):
            problems.append(f"{page.where(words(block.tex()), block)}: a formula of the editors' outside their marks")
    assert not problems, "\n".join(problems)
