"""Accessibility fixes to built HTML no stylesheet or template can make: a notebook's printed output, a
scrolling keyboard stop, gets a role and a numbered name (axe: scrollable-region-focusable, landmark-unique);
formulas get their numbers.
"""

from __future__ import annotations

import itertools
import re

__all__ = ["label_notebook_outputs"]

# Text outputs only (stdout, stderr, plain results); HTML outputs (figures) do not scroll.
_TEXT_OUTPUT = re.compile(r'<div class="jp-RenderedText jp-OutputArea-output"(?P<attrs>[^>]*)>')


# The name core/markup/markdown_math.py gives each display formula's box (the attribute order varies:
# mkdocs-jupyter writes a notebook's cells out again, attributes sorted).
_FORMULA_LABEL = re.compile(r'(aria-label="Formula )\d+(")')


def number_formulas(html: str) -> str:
    """Number the page's display formulas in page order, across its Markdown conversions, so no two regions share a name (axe)."""
    numbers = itertools.count(1)
    return _FORMULA_LABEL.sub(lambda m: f"{m[1]}{next(numbers)}{m[2]}", html)


def label_notebook_outputs(html: str) -> str:
    """Add ``role="region"`` and ``aria-label="Output N"`` (and tabindex, if missing) to every text output of a notebook page."""
    numbers = itertools.count(1)

    def label(m: re.Match[str]) -> str:
        attrs = m["attrs"]
        if "role=" in attrs:
            return m.group(0)
        if "tabindex=" not in attrs:
            attrs += ' tabindex="0"'
        return f'<div class="jp-RenderedText jp-OutputArea-output"{attrs} role="region" aria-label="Output {next(numbers)}">'

    return _TEXT_OUTPUT.sub(label, html)
