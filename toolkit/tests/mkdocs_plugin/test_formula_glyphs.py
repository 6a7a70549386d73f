"""The build's check that the served math font draws every formula as the whole font does
(journal_tools/mkdocs_plugin/formula_glyphs.py). Needs the installed font, like test_fonts.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from journal_tools.mkdocs_plugin import fonts, formula_glyphs
from journal_tools.mkdocs_plugin.formula_glyphs import Need
from journal_tools.testing.prerequisites import FONT_MISSING, require

ORIGINALS = fonts.font_files(Path(__file__).resolve().parents[3])

PAGE = ("<p><math><mi>A</mi><mo>=</mo><mi>softmax</mi><mo>(</mo><mfrac><mi>x</mi>"
        "<msqrt><msub><mi>d</mi><mi>h</mi></msub></msqrt></mfrac><mo>)</mo>"
        "<mi mathvariant=\"normal\">e</mi></math></p>")


@pytest.fixture(autouse=True)
def installed_font():
    require(bool(ORIGINALS), FONT_MISSING)


@pytest.fixture(scope="module")
def whole():
    return next(p for p in ORIGINALS if p.suffix == ".woff")


def test_what_a_formula_needs_is_read_from_its_mathml():
    found = formula_glyphs.needs(PAGE)
    assert Need(0x221A, "<msqrt>") in found
    assert Need(0x1D465, "math italic of 'x'") in found
    assert Need(0x210E, "math italic of 'h'") in found  # Unicode's italic h is the Planck constant
    assert Need(ord("("), "in the text") in found
    assert not any("math italic of 'e'" in n.why for n in found)  # mathvariant="normal" stays upright
    assert not any(n.why.startswith("math italic") and n.cp == ord("s") for n in found)
    assert formula_glyphs.needs("<p>no math: √ x</p>") == set()


def _subset(whole, tmp_path, codepoints, name="served.woff", drop_math=False):
    path = tmp_path / name
    path.write_bytes(fonts.subset_font(whole, "woff", codepoints))
    if drop_math:  # the radical kept, its size variants and assembly parts lost
        font = TTFont(str(path))
        del font["MATH"]
        font.save(str(path))
    return path


def test_the_subset_a_site_gets_passes(whole, tmp_path):
    served = _subset(whole, tmp_path, fonts.math_codepoints(PAGE))
    assert formula_glyphs.check({"docs/x.md": formula_glyphs.needs(PAGE)}, whole, [served]) == []


def test_a_subset_without_the_radical_fails_naming_the_page(whole, tmp_path):
    served = _subset(whole, tmp_path, fonts.math_codepoints(PAGE) - {0x221A})
    problems = formula_glyphs.check({"docs/x.md": formula_glyphs.needs(PAGE), "docs/y.md": set()}, whole, [served])
    assert len(problems) == 1
    assert problems[0].startswith("docs/x.md: the math font served with the site cannot draw its formulas")
    assert "U+221A √ (<msqrt>): no glyph in served.woff" in problems[0]


def test_a_subset_without_the_radicals_size_variants_fails(whole, tmp_path):
    served = _subset(whole, tmp_path, fonts.math_codepoints(PAGE), name="nomath.woff", drop_math=True)
    problems = formula_glyphs.check({"docs/x.md": formula_glyphs.needs(PAGE)}, whole, [served])
    assert len(problems) == 1
    assert "U+221A √ (<msqrt>): not the whole font's vertical size variants and assembly parts" in problems[0]
