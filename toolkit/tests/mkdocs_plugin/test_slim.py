"""Lighter pages (journal_tools/mkdocs_plugin/slim.py) and the per-site math font subset's code points."""

from __future__ import annotations

import re
from pathlib import Path

import material

from journal_tools.mkdocs_plugin import fonts, site_assets, slim

ROOT = Path(__file__).resolve().parents[3]
MATERIAL_CSS = sorted((Path(material.__file__).parent / "templates" / "assets" / "stylesheets").glob("*.css"))

CODE = ('<div class="language-python highlight"><pre><span></span><code>'
        '<span class="n">x</span><span class="w"> </span><span class="o">=</span><span class="w"> </span>'
        '<span class="n">torch</span><span class="o">.</span><span class="n">ones</span><span class="p">(</span>'
        '<span class="mi">2</span><span class="p">)</span>\n</code></pre></div>')


def test_plain_code_spans_go_and_their_text_stays():
    out = slim.unwrap_plain_code_spans(CODE)
    assert 'class="n"' not in out and 'class="w"' not in out
    assert re.sub(r"<[^>]+>", "", out) == re.sub(r"<[^>]+>", "", CODE)  # the same code, character for character
    assert out.count('class="o"') == 2 and '<span class="mi">2</span>' in out  # coloured tokens keep their spans


def test_material_draws_names_and_whitespace_as_plain_code_text():
    """What unwrapping rests on: in both palettes a name is the code's own colour, and
    nothing styles whitespace tokens; our stylesheets change neither."""
    assert MATERIAL_CSS, "Material's stylesheets not found"
    css = "\n".join(p.read_text(encoding="utf-8") for p in MATERIAL_CSS)
    names = re.findall(r"--md-code-hl-name-color:([^;}]+)", css)
    assert names and set(names) == {"var(--md-code-fg-color)"}, names
    for selectors, body in re.findall(r"([^{}]*)\{([^{}]*)\}", css):
        if any(s.strip() in (".highlight .n", ".highlight .w") for s in selectors.split(",")):
            assert body == "color:var(--md-code-hl-name-color)" and ".highlight .w" not in selectors, (selectors, body)
    ours = "\n".join((site_assets.ASSET_DIR / name).read_text(encoding="utf-8") for name in site_assets.STYLESHEETS)
    assert "--md-code-hl-name-color" not in ours and not re.search(r"\.(?:n|w)\b[^-]", ours)


def test_math_codepoints_are_the_formulas_and_their_letter_forms():
    html = '<p>plain text: é</p><math><mi>x</mi><mo>&#x2212;</mo><mi>α</mi><mi>h</mi><mi>∂</mi></math>'
    cps = fonts.math_codepoints(html)
    assert {ord("x"), 0x2212, 0x03B1, ord("h"), 0x2202} <= cps
    assert {0x1D465, 0x1D6FC, 0x210E, 0x1D715} <= cps  # italic x, alpha, h (the Planck constant) and ∂, as Chromium draws them
    assert 0x1D431 not in cps  # bold x: no formula asks for it
    assert ord("é") not in cps and ord(":") not in cps
    assert all(any(lo <= cp <= hi for lo, hi in fonts.SUBSET_RANGES) for cp in cps)
