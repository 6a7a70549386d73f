"""The italic correction added before the superscripts of italic letters (core/markup/italic_scripts.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from journal_tools.core.markup import italic_scripts
from journal_tools.core.markup.mathml import tex_to_mathml
from journal_tools.mkdocs_plugin import fonts
from journal_tools.testing.prerequisites import FONT_MISSING, require

ORIGINALS = fonts.font_files(Path(__file__).resolve().parents[3])


def test_the_table_is_the_installed_fonts_own():
    require(bool(ORIGINALS), FONT_MISSING)
    read = italic_scripts.from_font(ORIGINALS[0])
    assert read == italic_scripts.ITALIC_CORRECTION, (
        f"the italic corrections of {ORIGINALS[0].name} ({fonts.PACKAGE} {fonts.VERSION}) are not the table's: "
        f"regenerate it with python -m journal_tools.core.markup.italic_scripts {ORIGINALS[0]}")


def test_a_superscript_of_an_italic_letter_gets_its_correction_in_the_bases_em():
    assert tex_to_mathml("XW^K", display=False) == (
        '<math alttext="XW^K"><mi>X</mi><msup><mrow><mi>W</mi><mspace width="0.107em"/></mrow><mi>K</mi></msup></math>')
    assert '<mspace width="0.047em"/></mrow><mi>i</mi><mn>2</mn></msubsup>' in tex_to_mathml("x_i^2", display=True)


@pytest.mark.parametrize("tex", [
    "W_q",                 # a subscript: TeX keeps it at the advance width
    "Q^K",                 # the font gives Q no italic correction
    r"\mathrm{W}^K",       # upright: drawn without the lean
    r"\mathrm{softmax}^2",  # not one letter
])
def test_other_bases_are_left_as_math_core_wrote_them(tex):
    assert "<mspace width=" not in tex_to_mathml(tex, display=False)


def test_only_the_letter_inside_a_group_gets_one():
    converted = tex_to_mathml(r"(XW^Q)(XW^K)^\top", display=False)
    assert converted.count('<mspace width="0.107em"/>') == 2, converted
    assert converted.endswith('<msup><mo stretchy="false">)</mo><mi>⊤</mi></msup></math>'), converted
