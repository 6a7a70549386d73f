"""LaTeX to MathML at build time.

`pymdownx.arithmatex` (with ``generic: true``) leaves formulas in the HTML as

    <span class="arithmatex">\\(...\\)</span>     inline
    <div class="arithmatex">\\[...\\]</div>       display

with the TeX HTML-escaped. :func:`render_math` replaces each of them with
MathML Core made by the ``math-core`` package, so the reader's browser renders
the math natively: no script, no web request.

A formula that does not convert stops the caller with :class:`MathError`,
which names the source file, the line of the formula and the reason.
"""

from __future__ import annotations

import html as html_lib
import itertools
import re

import math_core

__all__ = ["MathError", "render_math", "tex_to_mathml"]

# One converter for the whole process: it is cheap to call (microseconds a
# formula). Local state per formula, so a page's \def or \tag cannot leak into
# the next page.
_CONVERTER = math_core.LatexToMathML(fancy_error=False)

# arithmatex's generic output. The TeX inside is escaped, so it holds no "<"
# and the first closing tag of the same name ends the formula.
_ARITHMATEX = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">(?P<body>.*?)</(?P=tag)>',
    re.DOTALL,
)
_INLINE = re.compile(r"\A\\\((?P<tex>.*)\\\)\Z", re.DOTALL)
_DISPLAY = re.compile(r"\A\\\[(?P<tex>.*)\\\]\Z", re.DOTALL)

# Class of the wrapper around display math (scrolls sideways on narrow
# screens; see docs/stylesheets/journal.css).
DISPLAY_CLASS = "math-display"


def display_wrapper(number: int) -> str:
    """Opening tag of the wrapper of the page's ``number``-th display formula.

    A box that can scroll sideways must be reachable by keyboard (tabindex)
    and, being focusable, needs a role and a name; the number keeps the names
    of a page's regions unique (axe: scrollable-region-focusable,
    landmark-unique)."""
    return f'<div class="{DISPLAY_CLASS}" role="region" tabindex="0" aria-label="Formula {number}">'


class MathError(Exception):
    """A formula that math-core cannot convert.

    Attributes: ``tex`` (the formula), ``line`` (1-based line of its first
    occurrence in the Markdown source, or None), ``reason`` (math-core's
    message), ``src_path`` (the file named in the message).
    """

    def __init__(self, *, tex: str, line: int | None, reason: str, src_path: str):
        self.tex = tex
        self.line = line
        self.reason = reason
        self.src_path = src_path
        where = src_path if line is None else f"{src_path}:{line}"
        formula = " ".join(tex.split())  # one line, even for display math
        super().__init__(f"{where}: bad TeX in formula '{formula}': {reason}")


def tex_to_mathml(tex: str, *, display: bool) -> str:
    """Convert one formula (unescaped TeX) to a ``<math>`` element.

    Raises ``math_core.LatexError`` on bad TeX.
    """
    return _CONVERTER.convert_with_local_state(tex, displaystyle=display)


def find_line(tex: str, markdown_source: str | None) -> int | None:
    """1-based line where ``tex`` first occurs in ``markdown_source``.

    Tries the whole formula, then its first non-blank line (display math in an
    indented block has its lines re-indented in the source). None if absent.
    """
    if not markdown_source:
        return None
    candidates = [tex.strip()]
    lines = [ln.strip() for ln in tex.splitlines() if ln.strip()]
    if lines:
        candidates.append(lines[0])
    for needle in candidates:
        if not needle:
            continue
        pos = markdown_source.find(needle)
        if pos >= 0:
            return markdown_source.count("\n", 0, pos) + 1
    return None


def render_math(html: str, *, src_path: str, markdown_source: str | None = None) -> str:
    """Return ``html`` with every arithmatex span/div replaced by MathML.

    Inline math becomes ``<math>``; display math becomes
    ``<div class="math-display" role="region" tabindex="0" aria-label="Formula N">
    <math display="block">...</math></div>`` (see :func:`display_wrapper`).
    Raises :class:`MathError` naming ``src_path`` and the line of the formula
    in ``markdown_source`` (first occurrence; None when not found).
    """

    # Numbers continue after the display formulas already in ``html`` (the
    # blog views convert their excerpts after the page's own content).
    displays = itertools.count(html.count(f'<div class="{DISPLAY_CLASS}"') + 1)

    def replace(match: re.Match[str]) -> str:
        tag, body = match["tag"], match["body"]
        pattern = _DISPLAY if tag == "div" else _INLINE
        delimited = pattern.match(body)
        if delimited is None:
            # arithmatex always writes these delimiters; anything else means a
            # change upstream that must not slip through as raw TeX.
            tex = html_lib.unescape(body)
            raise MathError(
                tex=tex,
                line=find_line(tex, markdown_source),
                reason=f"unexpected arithmatex output {body[:40]!r}",
                src_path=src_path,
            )
        tex = html_lib.unescape(delimited["tex"])
        display = tag == "div"
        try:
            mathml = tex_to_mathml(tex, display=display)
        except math_core.LatexError as exc:
            raise MathError(
                tex=tex,
                line=find_line(tex, markdown_source),
                reason=str(exc),
                src_path=src_path,
            ) from None
        if display:
            return f"{display_wrapper(next(displays))}{mathml}</div>"
        return mathml

    if 'class="arithmatex"' not in html:
        return html
    return _ARITHMATEX.sub(replace, html)
