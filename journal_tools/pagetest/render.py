"""Render a page as the build does and check what a reader would see.

Two checks need the rendered page rather than its source: every formula must
convert to MathML and every citation must name an entry of the BibTeX file
(the site's own Markdown extensions do both while rendering), and the number of Python and shell code blocks in the HTML must equal the
number of fences the tests run. The second catches any fence the reader sees
but the tests never run (a ``pycon`` session, an unusual indent): it fails
here instead of passing silently.
"""

from __future__ import annotations

from html.parser import HTMLParser

from mkdocs.utils.meta import get_data

from journal_tools.citations import BibError, CitationError
from journal_tools.mathml import MathError
from journal_tools.pagetest.parse import PYTHON_LANGS, SHELL_LANGS, Page
from journal_tools.settings import Settings

# What a reader would take for Python, or for a shell session, though no fence of ours runs it.
PYTHON_LOOKING = PYTHON_LANGS | {"pycon", "python2", "ipython", "ipython3", "py2"}
SHELL_LOOKING = SHELL_LANGS | {"console", "shell", "shell-session", "zsh"}


class RenderProblem(Exception):
    """What a reader sees differs from what the tests run (or a formula fails)."""


class _CodeBlocks(HTMLParser):
    """Languages of the code blocks: pymdownx.highlight writes ``<div class="language-X highlight">``."""

    def __init__(self):
        super().__init__()
        self.langs: list[str] = []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "div" and "highlight" in classes:
            self.langs += [c[len("language-"):] for c in classes if c.startswith("language-")]


def render_page(page: Page, settings: Settings) -> str:
    """The page's HTML as the build's Markdown makes it (MathError on bad TeX)."""
    source = (settings.root / page.path).read_text(encoding="utf-8")
    body, _ = get_data(source)
    return settings.markdown().convert(body)


def check_render(page: Page, settings: Settings) -> None:
    """Raise RenderProblem naming the page (and line) if the rendered page and the tests disagree
    (BibError, naming the BibTeX file, when that file cannot be read)."""
    try:
        html = render_page(page, settings)
    except BibError:
        raise
    except (MathError, CitationError) as exc:
        source = (settings.root / page.path).read_text(encoding="utf-8")
        raise RenderProblem(str(exc.located(page.path, source))) from None
    parser = _CodeBlocks()
    parser.feed(html)
    for kind, looking, langs in (("Python", PYTHON_LOOKING, PYTHON_LANGS), ("shell", SHELL_LOOKING, SHELL_LANGS)):
        shown = [lang for lang in parser.langs if lang.lower() in looking]
        run = page.count(langs)
        if len(shown) != run:
            lines = ", ".join(str(page.where(p.fence.start).line) for s in page.steps for p in s.parts
                              if p.fence.lang in langs) or "none"
            raise RenderProblem(
                f"{page.path}: a reader sees {len(shown)} {kind} code blocks ({', '.join(shown) or 'none'}) "
                f"but the tests run {run} (fences at lines {lines}). Write code as a ``` or ~~~ fence "
                f"with python, py, sh or bash (pycon and console sessions are not run)."
            )
