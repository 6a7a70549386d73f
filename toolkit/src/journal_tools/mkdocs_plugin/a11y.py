"""Accessibility fixes to built HTML that no stylesheet or template can make.

Notebook pages (mkdocs-jupyter, nbconvert's lab template): a printed output
(``<div class="jp-RenderedText jp-OutputArea-output" tabindex="0">`` around a
``<pre>``) is the box that scrolls sideways when a line is longer than the
screen (journal_tools/mkdocs_plugin/assets/notebook.css). nbconvert already makes it a keyboard
stop (tabindex); :func:`label_notebook_outputs` gives it the role and the name
a focusable box needs, numbered so the page's regions have distinct names
(axe rules scrollable-region-focusable, landmark-unique). Display math gets
the same from journal_tools/core/mathml.py.
"""

from __future__ import annotations

import itertools
import re

__all__ = ["label_notebook_outputs"]

# Text outputs only (stdout, stderr, plain results); HTML outputs (figures)
# do not scroll.
_TEXT_OUTPUT = re.compile(r'<div class="jp-RenderedText jp-OutputArea-output"(?P<attrs>[^>]*)>')


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
