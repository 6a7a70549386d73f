"""LaTeX to MathML Core, one formula at a time (``math-core``); :class:`MathError` names the line holding the
character math-core stopped at, and its reason; :class:`GlyphError`, a formula with a symbol the math font cannot draw.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import math_core
from markdown.util import HTML_PLACEHOLDER

from journal_tools.core.markup import formula_glyphs
from journal_tools.core.markup.italic_scripts import add_italic_correction
from journal_tools.core.mistake import Mistake

__all__ = ["DISPLAY_CLASS", "GlyphError", "MathError", "find_line", "numbered", "tex_to_mathml"]

# One converter for the whole process: it is cheap to call (microseconds a formula). Local state per formula, so a page's \def or \tag
# cannot leak into the next page.
_CONVERTER = math_core.LatexToMathML(fancy_error=False)

_OFFSET = re.compile(r"^(\d+): ")
# What Python-Markdown leaves in a formula for a block it has already rendered (a code
# fence between $$ lines, say): not in the source, so not searched for, and not shown.
_STASHED = re.compile(r"\d+".join(re.escape(part) for part in HTML_PLACEHOLDER.split("%s")))

# Class of the wrapper around display math (scrolls sideways on narrow screens; see journal_tools/mkdocs_plugin/assets/journal.css).
DISPLAY_CLASS = "math-display"


class MathError(Mistake, ValueError):
    """A formula math-core cannot convert: ``tex``, ``line`` (where it stopped, or None), ``reason``, ``offset``, ``src_path``."""

    def __init__(self, *, tex: str, reason: str, src_path: str | None = None, line: int | None = None,
                 offset: int | None = None):
        # math-core says "7: Expected closing token ...": 7 is the offset in the formula.
        m = _OFFSET.match(reason)
        if m:
            offset, reason = int(m[1]), reason[m.end():]
        self.tex, self.reason, self.src_path, self.offset = tex, reason, src_path, offset
        at = f"at character {offset}: " if offset is not None and line is None else ""
        formula = " ".join(_STASHED.sub(" ... ", tex).split())  # one line, even for display math
        super().__init__(src_path, line, self._says(formula, at, reason))

    @staticmethod
    def _says(formula: str, at: str, reason: str) -> str:
        return f"bad TeX in formula '{formula}': {at}{reason}"

    def located(self, src_path: str, source: str | None) -> MathError:
        """The same error naming ``src_path`` and the line in ``source`` where math-core stopped."""
        return type(self)(tex=self.tex, reason=self.reason, src_path=src_path, offset=self.offset,
                          line=find_line(self.tex, source, self.offset))


# Punctuation after a cases block goes inside it, at the end of its last row, as TeX books set it: math-core's table is
# centred on the axis, so a comma after it sits beside the second row.
_CASES_PUNCT = re.compile(r"\s*\\end\{cases\}\s*([,.;])")
# A prime is a superscript in TeX; the font's U+2032 is drawn raised already, so as <msup>'s script it comes out a
# detached speck: set it in line after its base, as a prime glyph is meant to be.
_PRIME = re.compile(r"<msup>(<mi>[^<]*</mi>)<mo>([′″‴]+)</mo></msup>")
# Rows of a table are as tall as their contents, so the rows of two tables side by side (a matrix and its labels)
# drift apart; one strut a row, as TeX's arrays have, makes every row the same height.
_ROW = re.compile(r"<mtr>(<mtd[^>]*>)")
_STRUT = '<mspace height="0.75em" depth="0.25em"/>'
# An arrow that starts a cell ("<- journey") gets no space after it in Chromium, whatever its rspace says (measured: 0 px
# before an <mtext>): TeX's thick space, as a space of its own.
_CELL_ARROW = re.compile(r'(<mtd[^>]*><mo stretchy="false" lspace="0">[\u2190-\u21ff]</mo>)')


class GlyphError(MathError):
    """A formula that converts but needs a symbol the math font cannot draw (``reason``: which)."""

    @staticmethod
    def _says(formula: str, at: str, reason: str) -> str:
        return f"formula '{formula}' uses {reason}, which the math font cannot draw"


def tex_to_mathml(tex: str, *, display: bool, font: str = "") -> str:
    """One formula (unescaped TeX) as ``<math>``, set as TeX sets it where Chromium does otherwise, its TeX on one line as
    ``alttext`` (MathML's text alternative: for search, a link preview, tools that read it); MathError on bad TeX, GlyphError
    when ``font`` (the math font's file; empty: none installed) cannot draw a symbol of it."""
    try:
        mathml = _CONVERTER.convert_with_local_state(_CASES_PUNCT.sub(r"\1 \\end{cases}", tex), displaystyle=display)
    except math_core.LatexError as exc:
        raise MathError(tex=tex, reason=str(exc)) from None
    missing = formula_glyphs.undrawable(mathml, Path(font)) if font else []
    if missing:
        raise GlyphError(tex=tex, reason=", ".join(map(str, missing)))
    mathml = _PRIME.sub(r'<mrow>\1<mo lspace="0" rspace="0">\2</mo></mrow>', mathml)
    mathml = _ROW.sub(r"<mtr>\1" + _STRUT, _CELL_ARROW.sub(r'\1<mspace width="0.2778em"/>', mathml))
    end = mathml.index(">")
    mathml = f'{mathml[:end]} alttext="{html.escape(" ".join(_STASHED.sub(" ", tex).split()))}"{mathml[end:]}'
    return add_italic_correction(mathml)


def numbered(mathml: str, number: int) -> str:
    """A display formula with its number "(3)" at the right, in its MathML: a one-row table of a spacer, the formula and the number
    (journal.css widens it to the line). MathML Core has no ``mlabeledtr`` (Chromium does not draw it) and math-core refuses ``\\tag``."""
    start, end = mathml.index(">") + 1, mathml.rindex("</math>")
    return (f'{mathml[:start]}<mtable class="journal-eq"><mtr><mtd class="journal-eq__side"></mtd>'
            f'<mtd displaystyle="true">{mathml[start:end]}</mtd>'
            f'<mtd class="journal-eq__side journal-eq__number"><mtext>({number})</mtext></mtd></mtr></mtable></math>')


def find_line(tex: str, source: str | None, offset: int | None = None) -> int | None:
    """1-based line of ``source`` with ``tex``'s character ``offset`` (else its first line) or None; found whole, by 1st line, unspaced."""
    if not source:
        return None
    start = _find(_STASHED.sub("\n", tex), source)
    if start is None:
        return None
    pos = start
    if offset is not None and not _STASHED.search(tex):
        pos = _source_index(tex, source, start, offset)
    return source.count("\n", 0, pos) + 1


def _find(tex: str, source: str) -> int | None:
    """Index in ``source`` of the formula's first non-space character, or None."""
    lines = [ln.strip() for ln in tex.splitlines() if ln.strip()]
    for needle in [tex.strip(), *lines[:1]]:
        pos = source.find(needle) if needle else -1
        if pos >= 0:
            return pos
    squeezed_tex = "".join(tex.split())
    if squeezed_tex:
        kept = [i for i, ch in enumerate(source) if not ch.isspace()]  # squeezed index -> source index
        pos = "".join(source[i] for i in kept).find(squeezed_tex)
        if pos >= 0:
            return kept[pos]
    return None


def _source_index(tex: str, source: str, start: int, offset: int) -> int:
    """Index in ``source`` of ``tex``'s non-space character at or after ``offset`` (the last past the end); ``start`` if they disagree."""
    solid = [ch for ch in tex if not ch.isspace()]
    if not solid:
        return start
    k = min(sum(not ch.isspace() for ch in tex[:offset]), len(solid) - 1)
    seen, i = -1, start
    while i < len(source):
        if not source[i].isspace():
            seen += 1
            if source[i] != solid[seen]:
                return start
            if seen == k:
                return i
        i += 1
    return start
