"""Render a page as the build does and check what a reader would see.

Two checks need the rendered page rather than its source: every formula must
convert to MathML (the build's own converter), and the count of Python code
blocks in the HTML must equal the count of fences the tests run. The second
catches any fence the collector did not see (a ``~~~python`` fence, a
``pycon`` session, an unusual indent): a block the reader sees as Python but
the tests never ran fails here instead of passing silently.
"""

from __future__ import annotations

import re
from pathlib import Path

import markdown
from mkdocs.utils.meta import get_data

from journal_tools.mathml import MathError, render_math
from journal_tools.pagetest.parse import PYTHON_LANGS, Page
from journal_tools.snippet_map import markdown_settings

# pymdownx.highlight writes <div class="language-py highlight"> around a fence.
_CODE_DIV = re.compile(r'<div class="language-([\w+-]+) highlight"')
# What a reader would take for Python even though no fence of ours runs it.
PYTHON_LOOKING = PYTHON_LANGS | {"pycon", "python2", "ipython", "ipython3", "py2"}


class RenderProblem(Exception):
    pass


def render_page(page: Page, root: Path) -> str:
    extensions, configs = markdown_settings(str(root / "mkdocs.yml"))
    md = markdown.Markdown(extensions=extensions, extension_configs=configs)
    source = (root / page.path).read_text(encoding="utf-8")
    body, _ = get_data(source)
    return md.convert(body)


def check_render(page: Page, root: Path) -> None:
    html = render_page(page, root)
    source = (root / page.path).read_text(encoding="utf-8")
    try:
        render_math(html, src_path=page.path, markdown_source=source)
    except MathError as exc:
        raise RenderProblem(str(exc)) from None
    shown = [lang for lang in _CODE_DIV.findall(html) if lang.lower() in PYTHON_LOOKING]
    if len(shown) != page.python_fences:
        run_at = ", ".join(str(page.where(p.fence.start).line) for s in page.steps for p in s.parts) or "none"
        raise RenderProblem(
            f"{page.path}: a reader sees {len(shown)} Python code blocks ({', '.join(shown)}) "
            f"but the tests run {page.python_fences} (fences at lines {run_at}). "
            "Write Python as a ``` fence with python or py (tilde fences and pycon sessions are not run)."
        )
