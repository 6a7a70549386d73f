"""The ink check of scripts and their bases (journal_tools/testing/formula_ink.py), in Chromium,
on formulas drawn with the installed math font."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from journal_tools.core.markup.mathml import _CONVERTER, tex_to_mathml
from journal_tools.mkdocs_plugin import fonts
from journal_tools.testing import formula_ink
from journal_tools.testing.prerequisites import FONT_MISSING, require

ORIGINALS = fonts.font_files(Path(__file__).resolve().parents[4])


def _page(browser, tmp_path, body: str, width: int = 1280):
    """A page at ``width`` px with ``body`` in a paragraph of the site's size, drawn with the installed font."""
    require(bool(ORIGINALS), FONT_MISSING)
    font = next(p for p in ORIGINALS if p.suffix == ".woff2")
    html = tmp_path / "page.html"
    html.write_text(f"""<!doctype html><html><head><meta charset="utf-8"><style>
      @font-face {{ font-family: "Journal Math"; src: url("{font.as_uri()}") format("woff2"); }}
      body {{ font-size: 16px; }} math {{ font-family: "Journal Math"; font-size: 1.05em; }}
      </style></head><body><p>{body}</p></body></html>""", encoding="utf-8")
    context = browser.new_context(viewport={"width": width, "height": 600})
    page = context.new_page()
    page.goto(html.as_uri())
    page.evaluate("document.fonts.load('16px \"Journal Math\"').then(() => document.fonts.ready).then(() => true)")
    return context, page


def _gaps(browser, tmp_path, mathml: str, width: int = 1280) -> dict[str, float]:
    context, page = _page(browser, tmp_path, mathml, width)
    try:
        return {f"{g.base}|{g.script}": g.gap for g in formula_ink.script_gaps(page)}
    finally:
        context.close()


def test_ink_gap_is_the_blank_pixels_between_two_inks():
    a, b = np.zeros((5, 9), bool), np.zeros((5, 9), bool)
    a[:, 2] = True
    b[:, 3] = True
    assert formula_ink.ink_gap(a, b, 1) == 0.0   # side by side: touching
    b[:, 3], b[:, 5] = False, True
    assert formula_ink.ink_gap(a, b, 2) == 1.0   # 2 device pixels between them at zoom 2: 1 CSS px
    assert formula_ink.ink_gap(a, np.zeros_like(a), 1) is None


@pytest.mark.parametrize("width", [1280, 390])
def test_the_k_of_w_k_touches_without_the_correction_and_clears_with_it(browser, tmp_path, width):
    tex = r"(XW^Q)(XW^K)^\top"
    raw = _gaps(browser, tmp_path, _CONVERTER.convert_with_local_state(tex, displaystyle=False), width)
    fixed = _gaps(browser, tmp_path, tex_to_mathml(tex, display=False), width)
    assert raw["W|K"] < formula_ink.MIN_GAP and raw["W|Q"] < formula_ink.MIN_GAP, raw
    assert min(fixed.values()) >= formula_ink.MIN_GAP, fixed
    assert set(fixed) == {"W|Q", "W|K", ")|⊤"}


def test_a_script_pushed_into_its_base_is_caught(browser, tmp_path):
    clear = tex_to_mathml("d_k", display=False)
    # (Chromium ignores a negative mpadded lspace; a negative margin moves the script.)
    planted = clear.replace("<mi>k</mi>", '<mi style="margin-left: -0.4em">k</mi>')
    assert planted != clear
    assert _gaps(browser, tmp_path, clear)["d|k"] >= formula_ink.MIN_GAP
    assert _gaps(browser, tmp_path, planted)["d|k"] < formula_ink.MIN_GAP


def test_accents_are_left_out_and_the_page_is_left_as_it_was(browser, tmp_path):
    context, page = _page(browser, tmp_path, tex_to_mathml(r"\tilde{A}_{ij} + \sum_{j \le i} x", display=True))
    try:
        before = page.evaluate("document.body.innerHTML")
        pairs = {f"{g.base}|{g.script}" for g in formula_ink.script_gaps(page)}
        assert page.evaluate("document.body.innerHTML") == before
    finally:
        context.close()
    assert pairs == {"A˜|ij", "∑|j≤i"}, pairs  # the tilde over the A is an accent: not a script to measure
