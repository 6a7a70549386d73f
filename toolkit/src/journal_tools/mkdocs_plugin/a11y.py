"""Accessibility fixes to built HTML that no stylesheet or template can make.

Notebook pages (mkdocs-jupyter, nbconvert's lab template): a printed output
(``<div class="jp-RenderedText jp-OutputArea-output" tabindex="0">`` around a
``<pre>``) is the box that scrolls sideways when a line is longer than the
screen (journal_tools/mkdocs_plugin/assets/notebook.css). nbconvert already makes it a keyboard
stop (tabindex); :func:`label_notebook_outputs` gives it the role and the name
a focusable box needs, numbered so the page's regions have distinct names
(axe rules scrollable-region-focusable, landmark-unique). Display math gets
the same from journal_tools/core/markup/mathml.py.
"""

from __future__ import annotations

import itertools
import re

__all__ = ["label_notebook_outputs"]

# Text outputs only (stdout, stderr, plain results); HTML outputs (figures)
# do not scroll.
_TEXT_OUTPUT = re.compile(r'<div class="jp-RenderedText jp-OutputArea-output"(?P<attrs>[^>]*)>')


# The name core/markup/markdown_math.py gives each display formula's box (the attribute order varies:
# mkdocs-jupyter writes a notebook's cells out again, attributes sorted).
_FORMULA_LABEL = re.compile(r'(aria-label="Formula )\d+(")')


def number_formulas(html: str) -> str:
    """Number the display formulas of a whole page 1, 2, ... in page order: a page made of
    several Markdown conversions (a blog view and its excerpts, a notebook's cells) would
    otherwise name two regions "Formula 1" (axe: landmark-unique)."""
    numbers = itertools.count(1)
    return _FORMULA_LABEL.sub(lambda m: f"{m[1]}{next(numbers)}{m[2]}", html)


def label_notebook_outputs(html: str) -> str:
    """Add ``role="region"`` and ``aria-label="Output N"`` (and tabindex, if
    missing) to every text output of a notebook page."""
    numbers = itertools.count(1)

    def label(m: re.Match[str]) -> str:
        attrs = m["attrs"]
        if "role=" in attrs:
            return m.group(0)
        if "tabindex=" not in attrs:
            attrs += ' tabindex="0"'
        return f'<div class="jp-RenderedText jp-OutputArea-output"{attrs} role="region" aria-label="Output {next(numbers)}">'

    return _TEXT_OUTPUT.sub(label, html)
