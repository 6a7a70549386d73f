"""Hypothesis strategies for malformed pages (test_fuzz_pages.py): pieces of each kind an author
writes, mostly well formed, sometimes broken as a hurried edit breaks them, written with odd line
endings, BOMs and raw bytes. Small vocabularies rather than free text, so most examples get past
the first line to the marker reader, the include expander and the math extension.
"""

from __future__ import annotations

from hypothesis import strategies as st

# The snippet files of the fuzz journal (see test_fuzz_pages.SNIPPETS).
INCLUDE_TARGETS = [
    "demo.py", "demo.py:two", "demo.py:nosuch", "demo.py:1:2", "demo.py:9:99", "demo.py:2", "nested.md",
    "missing.py", "../mkdocs.yml", "/etc/hostname", "sub/", "demo.py:", ":two", "demo.py:two:x", "DEMO.PY",
    "demo.py:two ", "bad\x00name.py", "lines.txt:3:1", "https://example.org/x.py", "déjà.py",
    "latin1.py", "block.md", "open-fence.md", "marker.md", "block.md:1:2",
]

_WORDS = ["text", "x", "$", "$$", "\\", "`", "``", "~", "<", ">", "<!--", "-->", "8<-", "---", "...", "+++",
          "#", "*", "_", "[x](y.md)", "{", "}", ":", "|", "é", "\u2028", "\u0085", "\x0c", "\x00", "\t", " ", "  ",
          "<div>", "</div>", "&amp;", "!!! note", "===", "- item", "1.", "\\(", "\\)", "\\[", "\\]", "\ufeff",
          # numbers in the text tied to the code (core/code/prose_numbers.py), good and broken
          "[1.41]{= x :.2f}", "{= x}", "[1]{= x +}", "[]{= 1}", "{=}", "{= }", "[a]{= {1}}", "`[9]{= y}`", "{= x!r}",
          "[2]{= 'a\"b'}", "{= x :{w}}", "[[1]]{= x}", "{= x=}", "{= lambda: 1}", "[1]{= \\x}", "{= f'{x}'}"]

prose_line = st.lists(st.sampled_from(_WORDS), max_size=8).map(" ".join)
free_line = st.text(st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=30)
line = st.one_of(prose_line, free_line)

LANGS = ["python", "py", "python3", "sh", "bash", "text", "", "pycon", "console", "{.python}", "{ .py .extra }",
         'python title="x.py"', "python linenums=\"1\"", "python `x`", "PYTHON", " python", "yaml", "py3 hl_lines='1'"]

CODE = ["x = 1", "print(x)", "print('a  b')", "1 / 0", "import os", "echo hi", "exit 3", "", "    indented = 2",
        "raise SystemExit", "while False: pass", "print('$x$')", "# comment", "def f():", "    return 1",
        "\\begin{bmatrix}", "--8<-- \"demo.py\""]

MARKERS = [
    "<!--pytest-codeblocks:cont-->", "<!--pytest-codeblocks:expected-output-->",
    "<!--pytest-codeblocks:expected-output-ignore-whitespace-->", "<!--pytest-codeblocks:skip-->",
    "<!--pytest-codeblocks:skipfile-->", "<!--pytest-codeblocks:importorskip(json)-->",
    "<!--pytest-codeblocks:importorskip(no_such_module_here)-->", "<!--pytest-codeblocks:nonsense-->",
    "<!-- pytest-codeblocks:cont -->", "<!--pytest-codeblocks:-->", "<!--pytest-codeblocks:cont",
    '<!--pytest.mark.skip(reason="r")-->', "<!--pytest.mark.skip-->", "<!--pytest.mark.skip('r')-->",
    "<!--pytest.mark.skipif(True, reason='r')-->", "<!--pytest.mark.skipif('sys.platform == \"x\"', reason='r')-->",
    "<!--pytest.mark.xfail(reason='r', raises=ZeroDivisionError)-->", "<!--pytest.mark.xfail()-->",
    "<!--pytest.mark.skip(reason=)-->", "<!--pytest.mark.parametrize('a', [1])-->", "<!--pytest.mark.-->",
    "<!--pytest.mark.skip(reason='r'-->", "<!--pytest.mark.nosuchmark-->", "<!--pytest.mark.__class__-->",
    "<!--pytest.mark.skip(reason=open('/nonexistent'))-->", "<!--pytest.mark.skip(reason='a' * 10**3)-->",
    "<!-- journal:expected-math -->", "<!-- more -->",
    "<!-- journal:figure demo.nosuch | caption -->",
]

# Containers whose indented body holds fences and markers (admonitions, tabs, lists).
CONTAINERS = ["!!! note", "??? tip \"Title\"", '=== "Tab"', "- item", "1. item", "<div markdown>", "> quote"]

COMMENTS = ["<!-- a comment -->", "<!--", "-->", "<!-- open", "still in the comment", "closed -->",
            "<!-- a --> <!-- b", "<!---->", "<!-- <!-- nested --> -->", "<!-- more -->"]

MATH = [
    "$x$", "$x^2 + y$", "$$x$$", "$$\\frac{1}{2}$$", "$$", "\\(a\\)", "\\[b\\]", "$\\frac{$", "$$\\badcommand$$",
    "$\\sqrt{x$", "$$\\begin{bmatrix}1 & 2\\\\3 & 4\\end{bmatrix}$$", "\\begin{align}a &= b\\end{align}",
    "\\begin{align}", "\\end{align}", "$$\\left( x \\right.$$", "\\$5 and \\$6", "$ x $", "$$\\text{é}$$",
    "$$\\operatorname{softmax}(x)$$", "$\\{$", "$x_{$", "$$\\\\$$", "$\\\\$", "$$}$$", "\\begin{bmatrix} 1 \\end{pmatrix}",
]


@st.composite
def fence(draw) -> list[str]:
    """A fenced block: backticks or tildes, any indent and info string, maybe nested, maybe never closed."""
    char = draw(st.sampled_from("`~"))
    mark = char * draw(st.integers(3, 5))
    indent = draw(st.sampled_from(["", " ", "    ", "\t", "  - ", "> "]))
    info = draw(st.sampled_from(LANGS))
    body = draw(st.lists(st.one_of(st.sampled_from(CODE), line), max_size=5))
    if draw(st.booleans()):  # a fence inside the fence: the other character, or a shorter run
        inner = draw(st.sampled_from(["~~~" if char == "`" else "```", char * 3, char * 6]))
        body = body + [inner + draw(st.sampled_from(LANGS))] + draw(st.lists(st.sampled_from(CODE), max_size=2)) + [inner]
    broken = draw(st.integers(0, 3)) == 3  # one fence in four is closed wrongly or not at all
    close = draw(st.sampled_from([mark + char, mark[:-1], "~~~" if char == "`" else "```", mark + " python", None]
                                 if broken else [mark, mark + "  ", mark + "\t"]))
    inner_indent = indent.replace("- ", "  ")
    lines = [f"{indent}{mark}{info}"] + [inner_indent + b for b in body]
    return lines + ([] if close is None else [inner_indent + close])


@st.composite
def include(draw) -> list[str]:
    """A snippet include, inline or block form, good or bad."""
    target = draw(st.sampled_from(INCLUDE_TARGETS))
    marker = draw(st.sampled_from(["--8<--", "-8<-", "---8<---", "--8<-"]))
    quote = draw(st.sampled_from(['"', "'", ""]))
    indent = draw(st.sampled_from(["", "    ", "\t"]))
    form = draw(st.sampled_from(["inline", "inline", "block", "open-block", "skipped"]))
    if form == "inline":
        return [f"{indent}{marker} {quote}{target}{quote}"]
    if form == "skipped":
        return [f"{indent}{marker} {quote};{target}{quote}"]
    targets = draw(st.lists(st.sampled_from(INCLUDE_TARGETS), min_size=0, max_size=3))
    block = [f"{indent}{marker}", *(indent + t for t in targets)]
    return block if form == "open-block" else block + [f"{indent}{marker}"]


# Front matter is drawn field by field, the first choice of each valid (Hypothesis
# draws it most), so most front matter has one thing wrong, not everything.
DATES = ["date: 2025-01-02", "date: '2025-01-02'", "date: 2025-13-45", "date: 2025-1-5", "date: [2025-01-02",
         "date:\n  created: 2025-01-02\n  updated: 2025-02-30", "date:\n  created: 2025-01-02\n  updated: '2025-02-01'",
         "date: 2025-01-02 10:00:00", "date: 0000-00-00", "date: 2025-01-02 # comment", "date:", "\tdate: 2025-01-02",
         "date: !!python/object:os.system x", "date: 2025-01-02\u2028categories: [x]", "date: 2025-01-02\u0085x: 1"]
CATEGORIES = ["categories:\n  - Attention", "categories: [Attention, Foundations]", "categories: Attention",
              "categories: 7", "categories: Nope", "categories:\n  - [a, b]", "categories: []", "categories:", ""]
EXTRAS = ["doctest: page", "doctest: bogus", "doctest: [page]", "draft: true", "draft: 3", "readtime: x", "pin: yes",
          "slug: x\u2028y", "authors:\n  - author", 'title: "unclosed', "date: 2026-01-02", "categories: [Study notes]",
          "base: &b {date: 2025-01-02}\n<<: *b", "<<: {readtime: 3}", "a: *undefined", "? complex\n: key", "[1, 2]: x",
          "null: x\n1: y", "key: value: other", "a: |\n  block\n bad indent", "x: " + "[" * 60 + "]" * 60, "{a: 1",
          # a page's time limit for its blocks (front matter ``timeout``, seconds)
          "timeout: 5", "timeout: 0", "timeout: soon", "timeout: .nan", "timeout: 1e999", "timeout: [1]", "timeout: true"]
ODD_BODIES = [["- just", "- a list"], ["just a string"], ["42"], [""], []]


@st.composite
def front_matter(draw) -> list[str]:
    """Front matter: valid, broken YAML, never closed, not a mapping, odd delimiters."""
    if draw(st.integers(0, 7)) < 7:
        fields = [draw(st.sampled_from(DATES)), draw(st.sampled_from(CATEGORIES)), *draw(st.lists(st.sampled_from(EXTRAS), max_size=2))]
        body = "\n".join(f for f in fields if f).split("\n")
    else:
        body = draw(st.one_of(st.sampled_from(ODD_BODIES), st.lists(line, max_size=3)))
    # Each delimiter is one MkDocs does not take one time in four.
    opening = draw(st.sampled_from(["+++", "----", "---x", "-- -"] if draw(st.integers(0, 3)) == 3 else ["---", "--- "]))
    closing = draw(st.sampled_from(["+++", "- --", None] if draw(st.integers(0, 3)) == 3 else ["---", "...", "--- "]))
    return [opening, *body] + ([] if closing is None else [closing])


def _repeated(pieces: list[str], shortest: int, longest: int) -> st.SearchStrategy[str]:
    """One line of ``shortest`` to ``longest`` characters, a piece repeated."""
    return st.tuples(st.sampled_from(pieces), st.integers(shortest, longest)).map(lambda p: p[0] * (p[1] // len(p[0])))


# Python-Markdown's inline parser is quadratic (or worse) in a run of unclosed
# brackets, `\(` or `<a` on one line (Python-Markdown#798, open upstream): 4,000
# `[` take 2.6 s, 8,000 take 17 s. Those runs stay under 400 characters and
# end their paragraph (the cost is per paragraph); the others go to 30,000.
long_line = st.one_of(
    _repeated(["x", "$", "`", "<!--", "8<-", "*", "ab ", "$x$ ", "| a ", "{", "~", "_"], 1_000, 30_000),
    _repeated(["[", "![", "<a", "\\("], 100, 400).map(lambda s: s + "\n"),  # a paragraph of its own
)

piece = st.one_of(
    st.lists(line, min_size=1, max_size=3),
    fence(),
    st.sampled_from(MARKERS).map(lambda m: [m]),
    include(),
    st.sampled_from(MATH).map(lambda m: [m]),
    st.lists(st.sampled_from(MATH), min_size=1, max_size=3),  # multi-line display math
    st.sampled_from(COMMENTS).map(lambda c: [c]),
    st.just([""]),
    long_line.map(lambda s: [s]),
    st.tuples(st.sampled_from(CONTAINERS), st.lists(st.one_of(fence(), include(), st.sampled_from(MARKERS).map(lambda m: [m])),
                                                      min_size=1, max_size=2)).map(
        lambda c: [c[0], ""] + ["    " + ln if ln else ln for part in c[1] for ln in part]),
)

ENDINGS = ["\n", "\n", "\r\n", "\r", "mixed"]


@st.composite
def page(draw) -> dict:
    """A page as the bytes written to disk, and whether it is a blog post."""
    post = draw(st.booleans())
    lines: list[str] = []
    if draw(st.integers(0, 7)) < (7 if post else 4):  # a post has front matter seven times in eight (0, the simplest, has it)
        lines += draw(front_matter())
    if post and draw(st.booleans()):  # the excerpt separator a post needs, so more posts get past it
        lines += ["", "Intro.", "", "<!-- more -->"]
    for p in draw(st.lists(piece, max_size=10)):
        lines += p
    ending = draw(st.sampled_from(ENDINGS))
    if ending == "mixed":
        text = "".join(ln + draw(st.sampled_from(["\n", "\r\n", "\r"])) for ln in lines)
    else:
        text = "".join(ln + ending for ln in lines)
    if lines and draw(st.booleans()):  # no newline at the end of the file
        text = text.rstrip("\r\n")
    if draw(st.integers(0, 4)) == 4:
        text = "\ufeff" + text
    data = text.encode("utf-8")
    if draw(st.integers(0, 4)) == 4:  # raw bytes spliced in: maybe not UTF-8 at all
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return {"data": data, "post": post}
