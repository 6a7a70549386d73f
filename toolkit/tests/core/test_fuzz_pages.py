"""Malformed pages, fuzzed (page_strategies.py): every reader of a page ends in a pass or a ``file:line`` error.

Each drawn page goes through the build's readers (check_page, figures, the Markdown render, the
blog's front-matter read), the page tests' (check_post, parse_page, check_render, read_by_tests)
and frontmatter.read and includes.expand on the raw text. Any other exception is a crash, a step
past STEP_BOUND_S a hang; the front matter validated must be the one the build reads, and an
expansion keeps every non-include line. `make test` runs a derandomized sample (FIXED_EXAMPLES),
`make fuzz` a long random run; each failure found stays in REGRESSIONS.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from material.plugins.blog.structure.config import PostConfig
from mkdocs.utils.meta import YAML_RE, get_data
from page_strategies import page

from journal_tools.compat import blog, mkdocs_config
from journal_tools.core.code import prose_numbers
from journal_tools.core.code.figures import find_figures
from journal_tools.core.code.parse import PYTHON_LANGS, SHELL_LANGS, parse_page
from journal_tools.core.code.render_check import PYTHON_LOOKING, SHELL_LOOKING, RenderProblem, check_render
from journal_tools.core.markup.mathml import MathError
from journal_tools.core.mistake import Mistake
from journal_tools.core.page import frontmatter
from journal_tools.core.page.frontmatter import FrontMatterError
from journal_tools.core.page.includes import IncludeError, _chunks, expand
from journal_tools.core.page.source import read_source
from journal_tools.core.record import validate
from journal_tools.core.record.verified import read_by_tests
from journal_tools.core.settings import Settings

from fixture_journal import FIXTURE

ROOT = Path(__file__).resolve().parents[3]
FIXED_EXAMPLES = 500
LONG_EXAMPLES = int(os.environ.get("JOURNAL_FUZZ_EXAMPLES", "0"))  # set by `make fuzz`
# A page is read in milliseconds; a step still running after this long is a hang.
STEP_BOUND_S = 20

SNIPPETS = {
    "demo.py": "# --8<-- [start:two]\nx = 2\n# --8<-- [end:two]\nprint(x)\n",
    "nested.md": "before\n--8<-- \"demo.py:two\"\nafter\n",
    "lines.txt": "one\ntwo\nthree\n",
    "déjà.py": "y = 'déjà'\n",
    "sub/inner.py": "z = 3\n",
    "latin1.py": "s = 'd\xe9j\xe0'\n".encode("latin-1"),
    "block.md": "```python\nx = 1\n```\n",
    "open-fence.md": "text\n```python\nprint(1)\n",
    "marker.md": "<!--pytest-codeblocks:cont-->\n",
}

# path:N: ..., or snippets/x.py:N (included at docs/p.md:M): ...


@pytest.fixture(scope="module")
def fuzz_journal(tmp_path_factory) -> Settings:
    """A journal with the fixture journal's mkdocs.yml (the site's Markdown extensions), a few snippets, empty docs/."""
    root = tmp_path_factory.mktemp("fuzz")
    shutil.copy(FIXTURE / "mkdocs.yml", root / "mkdocs.yml")
    (root / "docs" / "blog" / "posts").mkdir(parents=True)
    for name, text in SNIPPETS.items():
        (root / "snippets" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "snippets" / name).write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return mkdocs_config.load(root / "mkdocs.yml")


class Hang(Exception):
    """A step ran past STEP_BOUND_S."""


@contextlib.contextmanager
def time_bound(seconds: float, flag: list):
    """SIGALRM after ``seconds`` (the readers are pure Python); ``flag`` records it even if swallowed."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals only reach the main thread; pytest-xdist runs tests there too
        return

    def alarm(signum, frame):
        flag.append(True)
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)  # a timer already set (a whole-test limit) is put back
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 0.001))


@dataclass
class Outcome:
    step: str
    error: str | None  # the message, or None for a pass


def _lines_of(path: str, settings: Settings) -> int:
    """Lines of a file as an editor numbers them (a last line without newline counts)."""
    data = (settings.root / path).read_bytes()
    text = data.decode("utf-8", errors="replace")
    return max(1, len(text.splitlines()) + (1 if text.endswith(("\n", "\r")) else 0))


def _step(name: str, settings: Settings, allowed: tuple, call) -> Outcome:
    """Run one reader: a pass, or an allowed error naming a real line of a real file."""
    flag: list = []
    try:
        with time_bound(STEP_BOUND_S, flag):
            call()
    except allowed as exc:
        assert not flag, f"{name}: hung (ran past {STEP_BOUND_S} s) and reported it as {type(exc).__name__}: {exc}"
        message = str(exc)
        first = message.split("\n", 1)[0]
        assert isinstance(exc, Mistake), f"{name}: {type(exc).__name__} is no located Mistake: {first[:300]!r}"
        assert exc.path is not None and exc.line is not None, f"{name}: the mistake names no path and line: {first[:300]!r}"
        assert (settings.root / exc.path).is_file(), f"{name}: the error names {exc.path}, which is not a file: {first[:300]!r}"
        assert 1 <= exc.line <= _lines_of(exc.path, settings), f"{name}: line {exc.line} is not a line of {exc.path}: {first[:300]!r}"
        if exc.included_at:
            page, page_line = exc.included_at
            assert 1 <= page_line <= _lines_of(page, settings), f"{name}: included at {page}:{page_line}, no line of it"
        return Outcome(name, message)
    except Hang:
        raise AssertionError(f"{name}: hung (still running after {STEP_BOUND_S} s)") from None
    except AssertionError:  # one of this module's own checks inside the step (_expand_keeps_lines)
        raise
    except Exception as exc:  # the property under test: nothing else may escape a reader
        tb = "".join(traceback.format_exception(exc)[-6:])
        raise AssertionError(f"{name}: crashed with {type(exc).__name__}: {exc!s:.300}\n{tb}") from None
    assert not flag, f"{name}: hung (ran past {STEP_BOUND_S} s) and went on"
    return Outcome(name, None)


def _located_math(settings: Settings, rel: str, source: str, html: list):
    """The build's render of a page: MkDocs' body, the site's Markdown, a bad formula located
    as the plugin's on_pre_page locates it (against the file as written); the HTML into ``html``."""
    def render():
        body, _ = get_data(source)
        try:
            html.append(settings.markdown().convert(body))
        except MathError as exc:
            raise exc.located(rel, source) from None
    return render


def _figures_on_real_lines(path: Path, rel: str, settings: Settings) -> None:
    """The plugin's on_files reads figure lines (after check_page passed) as it reads them."""
    for ref in find_figures(path.read_text(encoding="utf-8"), rel):
        assert 1 <= ref.line <= _lines_of(rel, settings), f"figure line {ref.line} is not a line of {rel}"


def _blog_meta(source: str):
    """The front matter mkdocs-material's blog plugin reads for a post (structure/__init__.py)."""
    m = YAML_RE.match(source)
    return None if m is None else yaml.load(m.group(1), yaml.SafeLoader)


def check_everything(settings: Settings, data: bytes, post: bool) -> list[Outcome]:
    folder = settings.docs_dir / ("blog/posts" if post else "")
    path = folder / "fuzz.md"
    path.write_bytes(data)
    rel = settings.rel(path)
    outcomes = [_step("check_page", settings, (validate.InputError,), lambda: validate.check_page(path, settings, blog.post_errors))]
    try:  # as MkDocs and the blog plugin read a page: open(path, encoding="utf-8-sig").read()
        source = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig").read()
    except UnicodeDecodeError:
        source = None
    assert source is not None or outcomes[0].error, "check_page passed a page MkDocs cannot decode"
    html = []
    if outcomes[0].error is None:
        outcomes.append(_step("build render", settings, (MathError,), _located_math(settings, rel, source, html)))
        outcomes.append(_step("find_figures", settings, (), lambda: _figures_on_real_lines(path, rel, settings)))
        if post:
            _same_front_matter(source, rel)
    outcomes += _page_test_steps(settings, path, rel, post, html[0] if html else None)
    if source is not None:
        raw = data.decode("utf-8")  # line endings as written
        outcomes.append(_step("frontmatter.read", settings, (FrontMatterError,), lambda: frontmatter.read(raw, rel)))
        outcomes.append(_step("includes.expand", settings, (IncludeError,), lambda: _expand_keeps_lines(raw, rel, settings)))
        outcomes.append(_step("prose_numbers.shown", settings, (), lambda: _shown_keeps_lines(source)))
    return outcomes


def _page_test_steps(settings: Settings, path: Path, rel: str, post: bool, build_html: str | None) -> list[Outcome]:
    """What PageFile collects: a post's front matter, the parsed page, its render check, its digest."""
    parsed = []

    def read():
        if post:
            validate.check_post(read_source(path, rel), rel, settings, blog.post_errors)
        parsed.append(parse_page(path, settings))

    outcomes = [_step("parse_page", settings, (Mistake,), read)]
    if parsed:
        outcomes.append(_step("check_render", settings, (RenderProblem,), lambda: check_render(parsed[0], settings)))
        if outcomes[-1].error is None and build_html is not None:
            _runs_what_the_build_shows(parsed[0], build_html)

    def digest():
        try:
            read_by_tests(path, settings)
        except (OSError, UnicodeError):  # what the collector expects (the page is then never "verified")
            pass
    outcomes.append(_step("read_by_tests", settings, (), digest))
    return outcomes


# How pymdownx.highlight (pygments_lang_class) marks a code block; read here on its own,
# not with the render check's parser, so the two cannot share a mistake.
_DIV_CLASSES = re.compile(r'<div class="([^"]*)"')
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)  # hidden from readers, to the end if unclosed


def _runs_what_the_build_shows(page, build_html: str) -> None:
    """The render check passed: the tests run every Python and shell block the built page shows."""
    divs = [classes.split() for classes in _DIV_CLASSES.findall(_HTML_COMMENT.sub("", build_html))]
    langs_shown = [c.removeprefix("language-") for d in divs if "highlight" in d for c in d if c.startswith("language-")]
    for looking, langs in ((PYTHON_LOOKING, PYTHON_LANGS), (SHELL_LOOKING, SHELL_LANGS)):
        shown = [lang for lang in langs_shown if lang.lower() in looking]
        assert len(shown) == page.count(langs), f"the built page shows {shown} but the tests run {page.count(langs)} of them"


def _same_front_matter(source: str, rel: str) -> None:
    """A post check_page passed: the blog plugin reads the same front matter as ours, and accepts it."""
    meta = _blog_meta(source)
    assert isinstance(meta, dict), f"check_page passed a post whose front matter the blog plugin reads as {meta!r}"
    ours = frontmatter.read(source, rel).data
    assert ours == {str(k): v for k, v in meta.items()}, f"front matter read as {ours!r}, the blog plugin reads {meta!r}"
    config = PostConfig(rel)  # as the blog plugin's Post() validates a post's metadata
    config.load_dict({k: v for k, v in meta.items() if k in config})
    errors, _ = config.validate()
    assert not errors, f"check_page passed a post the blog plugin rejects: {errors}"


def _shown_keeps_lines(source: str) -> None:
    """Numbers in the text as the build shows them: every line stays where it was, and no tied number is left outside code."""
    shown = prose_numbers.shown(source)
    assert shown.count("\n") == source.count("\n"), "showing the numbers in the text moved lines"
    assert prose_numbers.shown(shown) == shown, "a tied number is left after showing them"


def _expand_keeps_lines(text: str, rel: str, settings: Settings) -> None:
    """Expand, then check that every page line that is no include is still there, at its origin."""
    expanded = expand(text, rel, settings)
    source = text.split("\n")
    if source and source[-1] == "":
        source.pop()
    kept = {o.line: ln for ln, o in zip(expanded.lines, expanded.origins) if o.path == rel and o.included_at is None}
    for start, chunk in _chunks(source):  # the expander's own split into lines and include groups
        if "8<-" in "".join(chunk):
            continue
        for n, ln in enumerate(chunk, start=start + 1):
            assert kept.get(n) == ln, f"expand lost page line {n} ({ln[:80]!r})"


# -- the property, on a fixed sample (make test) and a long random run (make fuzz) ----------

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FIXED = settings(max_examples=FIXED_EXAMPLES, derandomize=True, database=None, print_blob=True, **_COMMON)
LONG = settings(max_examples=max(LONG_EXAMPLES, 1), derandomize=False, print_blob=True,
                database=DirectoryBasedExampleDatabase(ROOT / ".cache" / "hypothesis" / "examples"), **_COMMON)


def run_fuzz(settings_: Settings, profile: settings) -> tuple[int, Counter]:
    """How many examples ran, and per step how many passed and how many ended in a located error."""
    count, tally = [0], Counter()

    @profile
    @given(page())
    def prop(p):
        count[0] += 1
        for outcome in check_everything(settings_, p["data"], p["post"]):
            tally[outcome.step, "error" if outcome.error else "pass"] += 1

    prop()
    return count[0], tally


def test_fuzzed_pages_end_in_a_pass_or_a_located_error(fuzz_journal, record_property):
    ran, tally = run_fuzz(fuzz_journal, LONG if LONG_EXAMPLES else FIXED)
    assert ran > 0
    # Shown in the run's summary (tests/conftest.py): the examples that ran, not the setting.
    record_property("fuzz_examples", ran)
    record_property("fuzz_mode", f"random, database {LONG.database.path}" if LONG_EXAMPLES else "fixed sample, derandomized")
    steps = dict.fromkeys(step for step, _ in tally)
    record_property("fuzz_steps", ", ".join(f"{s} {tally[s, 'pass']}/{tally[s, 'error']}" for s in steps))


# -- every failure the fuzzing found, as its minimal page and what the toolkit now says ---------
# (id, page bytes, is a post, step, the message that step gives: a regex, or None for a pass)
REGRESSIONS = [
    # UnicodeDecodeError from check_page and parse_page: now the line and column of the bad byte.
    ("not-utf8", b"\x80\xef\xbb\xbf", False, "check_page",
     r"^docs/fuzz\.md:1: not UTF-8 text: byte 0x80 at column 1 does not decode"),
    ("not-utf8-line-3", b"a\r\nb\r\xffc\n", False, "parse_page", r"^docs/fuzz\.md:3: not UTF-8 text: byte 0xff at column 1"),
    # A fence closed by a longer run: the scanner ran a block superfences never shows; the
    # render check then said "docs/fuzz.md: a reader sees 0 ..." with no line.
    ("fence-closed-by-longer-run", b"\xef\xbb\xbf\n```python\n````\n", False, "parse_page",
     r"^docs/fuzz\.md:2: a code fence opened here is never closed"),
    # TypeError from check_post (`for category in 7`): now the blog plugin's own check, at its line.
    ("categories-not-a-list", b"---\ndate: 2025-01-02\ncategories: 7\n---\n", True, "check_page",
     r"^docs/blog/posts/fuzz\.md:3: categories: Expected a list of items"),
    # Front matter the toolkit read and passed, which the blog plugin does not find (it reads
    # only ---): the build would stop with "Expected metadata ... but found nothing", no line.
    ("plus-front-matter", b"+++\ndate: 2025-01-02\ncategories:\n  - Attention\n---\n\nIntro.\n\n<!-- more -->\n", True,
     "check_page", r"^docs/blog/posts/fuzz\.md:1: post has no front matter"),
    # A quoted date passed here; the blog plugin refuses a string date (no line).
    ("quoted-date", b"---\ndate: '2025-01-02'\n---\n\nIntro.\n\n<!-- more -->\n", True, "check_page",
     r"^docs/blog/posts/fuzz\.md:2: date '2025-01-02' is quoted"),
    # A bad formula with a tab in it: Python-Markdown expands the tab before the math extension
    # sees the formula, so it was not found in the source and the error named no line.
    ("formula-with-a-tab", b"---\ndate: 2025-01-02\ncategories:\n  - Attention\n---\n$$ \\( \t text $$\n", False,
     "build render", r"^docs/fuzz\.md:6: bad TeX in formula '\\\( text'"),
    # includes.expand on text with a \r left in (as written, not as MkDocs reads it): the
    # preprocessor skipped the names, the line locator still read them, and raised
    # UnicodeDecodeError (a file that is not UTF-8) or IsADirectoryError (a folder).
    ("block-include-cr-not-utf8", b"!!! note\n\n    --8<--\n    --8<--\r\n    latin1.py\n    --8<--\n", False, "includes.expand", None),
    ("block-include-cr-folder", b"!!! note\n\n    --8<--\n    --8<--\r\n    sub/\n    --8<--\n", False, "includes.expand", None),
    # A code fence inside $$ ... $$: Python-Markdown stashes the rendered block first, and
    # its placeholder in the formula is nowhere in the source, so the error named no line.
    ("fence-inside-display-math", b"$$\n```python\n```\n$$\\badcommand$$\n", False, "build render",
     r"^docs/fuzz\.md:4: bad TeX in formula '\.\.\. \$\$\\badcommand'"),
    # Not a toolkit failure: the fuzz's own HTML oracle counted a code block the Markdown
    # put inside an HTML comment, which no reader sees (the render check did not count it).
    ("code-block-in-a-comment", b"<!--\n\n> ```python\n> ```\n> ```python\n> -->\n> ````\n", False, "check_render", None),
    # ValueError (embedded null byte) from the include hint: now an include error naming the line.
    ("include-name-with-nul", b"--8<-- 'bad\x00name.py'\n", False, "check_page",
     r"^docs/fuzz\.md:1: snippet include failed: .*cannot be a file name"),
]


@pytest.mark.parametrize("data, post, step, message", [r[1:] for r in REGRESSIONS], ids=[r[0] for r in REGRESSIONS])
def test_failures_found_by_fuzzing_stay_fixed(fuzz_journal, data, post, step, message):
    outcomes = {o.step: o.error for o in check_everything(fuzz_journal, data, post)}
    if message is None:
        assert outcomes[step] is None
    else:
        assert outcomes[step] is not None and re.search(message, outcomes[step]), outcomes[step]
