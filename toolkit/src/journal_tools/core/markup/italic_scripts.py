"""The italic correction Chromium leaves out before the superscript of an italic letter.

The base of an ``<msup>``/``<msubsup>`` that is one italic letter gets the font's correction as a space in
its own em: ``<msup><mrow><mi>W</mi><mspace width="0.107em"/></mrow><mi>K</mi></msup>`` (DECISIONS.md:
scripts of italic letters). ``ITALIC_CORRECTION`` is read from the served font (:func:`from_font`; regenerate
with ``python -m journal_tools.core.markup.italic_scripts FONT_FILE``); a test compares it with the font.
"""

from __future__ import annotations

import re
import sys
import unicodedata

__all__ = ["ITALIC_CORRECTION", "add_italic_correction", "from_font"]

# Italic correction (thousandths of an em) of the math italic form of each letter a lone
# <mi> draws, from Noto Sans Math 5.3.0's MATH table (letters without one are left out).
ITALIC_CORRECTION = {
    "C": 65, "E": 60, "F": 97, "H": 24, "I": 77, "J": 29, "K": 109, "M": 23, "N": 25, "S": 34,
    "T": 108, "U": 31, "V": 112, "W": 107, "X": 102, "Y": 112, "Z": 62,
    "c": 28, "d": 38, "f": 145, "i": 32, "j": 31, "k": 50, "l": 39, "r": 51, "t": 52, "v": 68,
    "w": 58, "x": 47, "y": 68,
    "δ": 31, "ε": 31, "ζ": 132, "κ": 56, "ν": 70, "ξ": 88, "π": 68, "σ": 59, "τ": 69,
}

# The letters browsers draw in math italic in a lone <mi> (MathML Core's math-auto): Latin and lowercase Greek.
LETTERS = [chr(c) for c in [*range(0x41, 0x5B), *range(0x61, 0x7B), *range(0x3B1, 0x3CA)]]

_BASE = re.compile(r"<(msup|msubsup)><mi>([^<&])</mi>")


def add_italic_correction(mathml: str) -> str:
    """``mathml`` with the italic correction after each lone italic letter carrying a superscript; everything else byte for byte."""

    def corrected(m: re.Match) -> str:
        thousandths = ITALIC_CORRECTION.get(m[2])
        if not thousandths:
            return m[0]
        return f'<{m[1]}><mrow><mi>{m[2]}</mi><mspace width="{thousandths / 1000:g}em"/></mrow>'

    return _BASE.sub(corrected, mathml)


def italic_form(letter: str) -> int:
    """The code point of ``letter``'s math italic form (the one the browser draws)."""
    if letter == "h":
        return 0x210E  # PLANCK CONSTANT: the italic h has no place of its own in the block
    name = unicodedata.name(letter)
    case = "CAPITAL" if letter.isupper() else "SMALL"
    return ord(unicodedata.lookup(f"MATHEMATICAL ITALIC {case} {name.split(' LETTER ')[1]}"))


def from_font(path) -> dict[str, int]:
    """{letter: italic correction in thousandths of an em} from the font's MATH table, letters without one left out."""
    from fontTools.ttLib import TTFont

    font = TTFont(path)
    info = font["MATH"].table.MathGlyphInfo.MathItalicsCorrectionInfo
    units = dict(zip(info.Coverage.glyphs, (record.Value for record in info.ItalicsCorrection)))
    upem, cmap = font["head"].unitsPerEm, font.getBestCmap()
    table = {letter: round(units.get(cmap.get(italic_form(letter)), 0) * 1000 / upem) for letter in LETTERS}
    return {letter: value for letter, value in table.items() if value}


if __name__ == "__main__":
    print(from_font(sys.argv[1]))
