"""The math font subset of journal_tools/mkdocs_plugin/fonts.py (needs the installed font:
``python -m journal_tools.mkdocs_plugin.fonts install``; without it these skip, and fail under
CI=true: journal_tools/testing/prerequisites.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from journal_tools.mkdocs_plugin import fonts
from journal_tools.testing.prerequisites import FONT_MISSING, require

ROOT = Path(__file__).resolve().parents[3]
ORIGINALS = fonts.font_files(ROOT)


@pytest.fixture(autouse=True)
def installed_font():
    require(bool(ORIGINALS), FONT_MISSING)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A root holding a copy of the installed font package only."""
    root = tmp_path_factory.mktemp("fontroot")
    dest = fonts.package_dir(root)
    dest.mkdir(parents=True)
    for p in ORIGINALS:
        shutil.copyfile(p, dest / p.name)
    return root


def test_site_gets_a_smaller_subset_that_keeps_the_math_table(root, tmp_path):
    copies = fonts.copy_to_site(tmp_path / "site", root=root)
    assert copies, "nothing copied"
    originals = {p.name: p.stat().st_size for p in ORIGINALS}
    for copy in copies:
        assert copy.parent == tmp_path / "site" / fonts.SITE_FONT_DIR
        assert copy.name in originals  # same names: the stylesheet's URLs stay valid
        # Smaller, though it is every block a formula may use (a site's own subset is
        # much smaller: test_the_site_subset_keeps_the_radical_that_roots_draw).
        assert copy.stat().st_size < 0.9 * originals[copy.name], (copy.name, copy.stat().st_size)
        font = TTFont(str(copy))
        assert "MATH" in font
        variants = font["MATH"].table.MathVariants
        assert variants.VertGlyphCount > 0 and variants.MinConnectorOverlap >= 0
        cmap = font.getBestCmap()
        # Letters, Greek, operators, math italic, big-bracket pieces stay; CJK-free.
        for cp in (ord("x"), 0x03B1, 0x2211, 0x221A, 0x1D465, 0x239B, 0x23A1, ord("[")):
            assert cp in cmap, hex(cp)
        assert 0x4E00 not in cmap
        # The stretchy "[" still has size variants / an assembly.
        vert = dict(zip(variants.VertGlyphCoverage.glyphs, variants.VertGlyphConstruction))
        bracket = vert[cmap[ord("[")]]
        assert bracket.VariantCount > 1 or bracket.GlyphAssembly is not None
        # The reachable variant glyphs survived (they have no code point).
        glyphs = set(font.getGlyphOrder())
        for rec in bracket.MathGlyphVariantRecord:
            assert rec.VariantGlyph in glyphs


def _vertical_construction(font, cp):
    variants = font["MATH"].table.MathVariants
    return dict(zip(variants.VertGlyphCoverage.glyphs, variants.VertGlyphConstruction)).get(font.getBestCmap()[cp])


# A formula with a square root and a cube root: no radical sign in its text.
ROOTS = ("<p><math><msqrt><mi>d</mi></msqrt><mo>+</mo>"
         "<mroot><mi>x</mi><mn>3</mn></mroot></math></p>")


def test_the_site_subset_keeps_the_radical_that_roots_draw(root, tmp_path):
    """<msqrt>/<mroot> draw U+221A and its size variants and assembly parts from the font,
    though the MathML text holds no radical sign: the subset a site gets keeps them all."""
    codepoints = fonts.math_codepoints(ROOTS)
    assert 0x221A in codepoints
    whole = TTFont(str(next(p for p in ORIGINALS if p.suffix == ".woff")))
    expected = _vertical_construction(whole, 0x221A)
    assert expected is not None and expected.VariantCount > 1 and expected.GlyphAssembly is not None
    originals = {p.name: p.stat().st_size for p in ORIGINALS}
    for copy in fonts.copy_to_site(tmp_path / "site", root=root, codepoints=codepoints):
        assert copy.stat().st_size < 0.1 * originals[copy.name], (copy.name, copy.stat().st_size)
        font = TTFont(str(copy))
        assert 0x221A in font.getBestCmap(), f"{copy.name}: no radical sign"
        got = _vertical_construction(font, 0x221A)
        assert got is not None, f"{copy.name}: the radical has no size variants"
        glyphs = set(font.getGlyphOrder())
        assert got.VariantCount == expected.VariantCount
        assert all(r.VariantGlyph in glyphs for r in got.MathGlyphVariantRecord)
        assert len(got.GlyphAssembly.PartRecords) == len(expected.GlyphAssembly.PartRecords)
        assert all(p.glyph in glyphs for p in got.GlyphAssembly.PartRecords)


def test_subset_is_reused_until_the_font_changes(root):
    first = fonts.subset_files(root)
    mtimes = [p.stat().st_mtime_ns for p in first]
    assert fonts.subset_files(root) == first
    assert [p.stat().st_mtime_ns for p in first] == mtimes  # not rewritten
    (root / fonts.SUBSET_DIR / fonts.STAMP_NAME).write_text("stale\n", encoding="utf-8")
    again = fonts.subset_files(root)
    assert again == first and (root / fonts.SUBSET_DIR / fonts.STAMP_NAME).read_text().strip() != "stale"


def test_a_subset_has_the_same_bytes_whenever_it_is_made(tmp_path):
    """Builds are reproducible: a subset made again (a fresh clone, a new symbol) carries the
    whole font's date, not the time it was made (fontTools writes that into the head table)."""
    source = next(p for p in ORIGINALS if p.suffix == ".woff")
    subset = tmp_path / "subset.woff"
    subset.write_bytes(fonts.subset_font(source, "woff", {ord("x"), 0x221A}))
    assert TTFont(str(subset))["head"].modified == TTFont(str(source))["head"].modified


def _outlines(font, cps):
    """Each code point's glyph as the glyf table draws it (outline and advance)."""
    cmap, glyf, hmtx = font.getBestCmap(), font["glyf"], font["hmtx"]
    out = {}
    for cp in cps:
        if cp in cmap:
            glyph = glyf[cmap[cp]]
            coords, ends, _ = glyph.getCoordinates(glyf)
            out[cp] = (list(coords), ends, hmtx[cmap[cp]][0])
    return out


def test_a_site_subset_keeps_the_letters_the_hinter_measures_its_zones_on(tmp_path):
    """Chromium on Linux hints the font with FreeType's auto-hinter, which measures its
    alignment zones on a few letters of the font it gets: a subset of only the letters of
    journal-new-site's example (d, k, x, but no j) drew the math italic d of sqrt(d_k)
    otherwise than the whole font, and the formula check failed. Whatever the pages use,
    the subset keeps those letters with the whole font's glyphs."""
    source = next(p for p in ORIGINALS if p.suffix == ".woff")
    whole = TTFont(str(source))
    italic_d_k = {0x1D451, 0x1D458}  # what a page with only d_k asks for
    subset = tmp_path / "subset.woff"
    subset.write_bytes(fonts.subset_font(source, "woff", fonts.math_codepoints(
        "<math><msqrt><msub><mi>d</mi><mi>k</mi></msub></msqrt></math>")))
    font = TTFont(str(subset))
    zones = {ord(c) for c in "fijkdbh" "xzroesc" "pqgjy" "THEZOCQS" "HEZLOCUS" "βθδζλξ" "αειοπστω"}
    expected = _outlines(whole, zones)
    assert len(expected) == len(zones), "the whole font lacks a letter the hinter measures"
    got = _outlines(font, zones)
    missing = sorted(chr(cp) for cp in expected if cp not in got)
    assert not missing, f"the subset lacks {''.join(missing)}: the hinter measures other zones"
    assert got == expected
    assert italic_d_k <= set(font.getBestCmap())
