"""The math font draws every formula a page writes, or the page fails at the formula's line; the served subset draws
each as the whole font does (journal_tools/core/markup/formula_glyphs.py). Needs the installed font, like test_fonts.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from journal_tools.compat import mkdocs_config
from journal_tools.core.code.notebook import check_notebook_math, read_notebook
from journal_tools.core.code.parse import parse_page
from journal_tools.core.code.render_check import RenderProblem, check_render
from journal_tools.core.markup import formula_glyphs
from journal_tools.core.markup.formula_glyphs import Need
from journal_tools.core.markup.mathml import tex_to_mathml
from journal_tools.mkdocs_plugin import fonts
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
    assert Need(ord("("), "in <mo>") in found
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


def test_every_promised_command_is_drawn_by_the_font_a_site_ships(whole, tmp_path):
    formulas = {tex: tex_to_mathml(tex, display=True) for tex in formula_glyphs.PROMISED}
    served = _subset(whole, tmp_path, fonts.math_codepoints("".join(formulas.values())))
    lacking = {tex: [str(n) for n in formula_glyphs.undrawable(mathml, served)] for tex, mathml in formulas.items()}
    assert {tex: needs for tex, needs in lacking.items() if needs} == {}
    assert formula_glyphs.check({tex: formula_glyphs.needs(m) for tex, m in formulas.items()}, whole, [served]) == []


@pytest.mark.parametrize("name, text, line", [
    ("docs/page.md", "# A page\n\nThe word $\\mathrm{café}$ here.\n", 3),
    ("docs/notebooks/nb.py", "# %% [markdown]\n# A notebook\n#\n# $$\n# \\mathrm{café}\n# $$\n\n# %%\nx = 1\n", 5),
])
def test_a_symbol_the_font_cannot_draw_fails_the_page_at_its_line(journal, whole, name, text, line):
    root = journal[0].root / "with-font"  # the journal's settings were read before the font was there (and are kept per file)
    (root / formula_glyphs.FONT_FILES).mkdir(parents=True)
    (root / formula_glyphs.FONT_FILES / whole.name).write_bytes(whole.read_bytes())
    (root / "mkdocs.yml").write_bytes((journal[0].config_file).read_bytes())
    (root / "docs").mkdir()
    settings = mkdocs_config.load(root / "mkdocs.yml")
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    expected = rf"^{name}:{line}: formula '\\mathrm\{{café\}}' uses U\+00E9 é \(in <mi>\), which the math font cannot draw$"
    with pytest.raises(RenderProblem, match=expected):
        if name.endswith(".md"):
            check_render(parse_page(path, settings), settings)
        else:
            check_notebook_math(read_notebook(path, settings), settings)
