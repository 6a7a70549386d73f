"""Render a page as the build does: every formula converts and every citation key exists, and a reader sees as
many Python and shell blocks as the tests run (a ``pycon`` session fails here instead of passing silently), and every
reference and label resolves (``crossrefs``).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from journal_tools.core.code import prose_numbers
from journal_tools.core.code.parse import PYTHON_LANGS, SHELL_LANGS, Page
from journal_tools.core.markup import crossrefs
from journal_tools.core.markup.citations import BibError, CitationError
from journal_tools.core.markup.mathml import MathError
from journal_tools.core.mistake import Mistake, Origin
from journal_tools.core.page.fences import inside_fence
from journal_tools.core.page.frontmatter import body as without_front_matter
from journal_tools.core.page.source import read_source
from journal_tools.core.settings import Settings

# What a reader would take for Python, or for a shell session, though no fence of ours runs it.
PYTHON_LOOKING = PYTHON_LANGS | {"pycon", "python2", "ipython", "ipython3", "py2"}
SHELL_LOOKING = SHELL_LANGS | {"console", "shell", "shell-session", "zsh"}


class RenderProblem(Mistake):
    """What a reader sees differs from what the tests run (or a formula fails), at the page line."""


class _CodeBlocks(HTMLParser):
    """Languages of the code blocks: pymdownx.highlight writes ``<div class="language-X highlight">``."""

    def __init__(self):
        super().__init__()
        self.langs: list[str] = []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "div" and "highlight" in classes:
            self.langs += [c[len("language-"):] for c in classes if c.startswith("language-")]


def render_html(source: str, path: str, settings: Settings) -> str:
    """Page ``path``'s HTML as the build renders its Markdown (``source`` with its front matter): numbers in the text as shown,
    references resolved; a label that no display formula took is a RenderProblem."""
    body = without_front_matter(source)
    first_line = source.count("\n", 0, len(source) - len(body)) + 1  # body is the end of source
    html = settings.markdown().convert(crossrefs.resolve(prose_numbers.shown(body), path, settings.root, first_line))
    for label in crossrefs.labels(body, path, first_line).values():  # a label the math did not take would be numbered wrong
        if label.name.startswith("eq-") and f'id="{label.name}"' not in html:
            raise RenderProblem(path, label.line, f"label {label.name!r} follows no display formula: write it after the closing "
                                                  "$$ of a formula that is a paragraph of its own (blank lines around)")
    return html


def check_render(page: Page, settings: Settings) -> None:
    """RenderProblem naming the page (and line) if the rendered page and the tests disagree; BibError for an unreadable BibTeX file."""
    source = read_source(settings.root / page.path, page.path)
    try:
        html = render_html(source, page.path, settings)
    except BibError:
        raise
    except (MathError, CitationError) as exc:
        raise RenderProblem.like(exc.located(page.path, source)) from None
    except crossrefs.ReferenceProblem as exc:
        raise RenderProblem.like(exc) from None
    parser = _CodeBlocks()
    parser.feed(html)
    for kind, looking, langs in (("Python", PYTHON_LOOKING, PYTHON_LANGS), ("shell", SHELL_LOOKING, SHELL_LANGS)):
        shown = [lang for lang in parser.langs if lang.lower() in looking]
        run = page.count(langs)
        if len(shown) != run:
            lines = ", ".join(str(page.where(p.fence.start).line) for s in page.steps for p in s.parts
                              if p.fence.lang in langs) or "none"
            raise RenderProblem.at(
                _first_difference(page, shown, looking, langs), f"a reader sees {len(shown)} {kind} code blocks "
                f"({', '.join(shown) or 'none'}) but the tests run {run} (fences at lines {lines}). Write code as "
                f"a ``` or ~~~ fence with python, py, sh or bash (pycon and console sessions are not run)."
            )


_FENCE_LIKE = re.compile(r"(`{3,}|~{3,})")


def _first_difference(page: Page, shown: list[str], looking: frozenset[str], langs: frozenset[str]) -> Origin:
    """Line of the first block a reader and the tests see differently (a not-run code-like fence, a misshown or stray fence), else 1."""
    not_run = [f for f in page.fences if f.lang in looking and f.lang not in langs]
    if not_run:
        return page.where(not_run[0].start)
    run = [p.fence for s in page.steps for p in s.parts if p.fence.lang in langs]
    for i, fence in enumerate(run):
        if i >= len(shown) or shown[i].lower() != fence.lang:
            if len(shown) < len(run):
                return page.where(fence.start)
            break
    fenced = inside_fence(page.fences)
    for i, line in enumerate(page.expanded.lines):
        if i not in fenced and _FENCE_LIKE.search(line):
            return page.where(i)
    return page.where(run[0].start) if run else Origin(page.path, 1)
