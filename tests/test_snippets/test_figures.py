"""Tests for snippets/figures.py: the SVG heatmaps inlined into pages."""

import re
import xml.etree.ElementTree as ET

import figures
import pytest
import torch
from inputs import inputs, sentence

TOKENS = sentence.split()
WEIGHTS = torch.softmax(inputs @ inputs.T, dim=-1)
CAUSAL = torch.softmax((inputs @ inputs.T).masked_fill(torch.triu(torch.ones(6, 6, dtype=torch.bool), 1), float("-inf")), dim=-1)


def cell_labels(svg):
    return re.findall(r">(\d\.\d\d)</text>", svg)


def test_svg_parses_and_is_theme_neutral():
    svg = figures.attention_heatmap(WEIGHTS, TOKENS, title="t", description="a heatmap")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert root.get("role") == "img" and root.get("aria-label") == "a heatmap"
    assert root[0].tag.endswith("title") and root[0].text == "a heatmap"
    # No page-sized background: the figure takes the page's background colour.
    # and the cells are the only filled shapes: one <rect> per cell, no <path>.
    assert svg.count("<rect ") == 36 and "<path" not in svg
    assert "fill: white" not in svg and "#ffffff\"/>" not in svg
    assert "currentColor" in svg and figures._INK not in svg
    # Nothing that would break inlining into Markdown or the page.
    assert "<?xml" not in svg and "<!DOCTYPE" not in svg and "\n\n" not in svg
    assert "font-family" not in svg


def test_one_label_per_cell_in_row_order():
    svg = figures.attention_heatmap(WEIGHTS, TOKENS, description="d")
    expected = [f"{v:.2f}" for v in WEIGHTS.flatten().tolist()]
    assert cell_labels(svg) == expected


def test_hide_future_leaves_the_upper_triangle_blank():
    svg = figures.attention_heatmap(CAUSAL, TOKENS, description="d", hide_future=True)
    assert len(cell_labels(svg)) == 21  # 6 + 5 + ... + 1 cells on and below the diagonal


def test_two_figures_share_no_ids():
    a = figures.attention_heatmap(WEIGHTS, TOKENS, description="first")
    b = figures.attention_heatmap(CAUSAL, TOKENS, description="second", hide_future=True)
    def ids(s):
        return set(re.findall(r'\sid="([^"]+)"', s))
    assert not ids(a) & ids(b)
    assert 'id="figure_1"' not in a  # matplotlib's unreferenced ids are dropped


def test_drawing_is_deterministic():
    one = figures.attention_heatmap(WEIGHTS, TOKENS, description="d")
    assert one == figures.attention_heatmap(WEIGHTS, TOKENS, description="d")


def test_several_panels_and_shape_checks():
    svg = figures.heatmap_svg([WEIGHTS, CAUSAL], TOKENS, titles=["head 1", "head 2"], description="d")
    assert ">head 1</text>" in svg and ">head 2</text>" in svg
    with pytest.raises(ValueError):
        figures.heatmap_svg([WEIGHTS[:5]], TOKENS, description="d")
    with pytest.raises(ValueError):
        figures.heatmap_svg([WEIGHTS], TOKENS, titles=["a", "b"], description="d")


def test_causal_heatmap_shows_the_seed_789_weights_and_keeps_the_rng():
    state = torch.random.get_rng_state()
    svg = figures.causal_heatmap()
    assert torch.equal(torch.random.get_rng_state(), state)
    labels = cell_labels(svg)
    assert len(labels) == 21
    # FIELD-NOTES: rows [1] / [0.5517, 0.4483] / ... / last row starts 0.1935.
    assert labels[:3] == ["1.00", "0.55", "0.45"] and labels[15] == "0.19"


def test_four_heads_are_an_svg_each_that_wrap_to_one_a_row_on_a_phone():
    """One SVG of a 2x2 grid drew its numbers at 5 px on a 390 px phone: each panel is an SVG of its own, as
    wide as a heatmap alone (so 8 pt numbers stay at 9 px or more, two a row at 1280 px, one a row at 390 px)."""
    out = figures.heatmap_svg([WEIGHTS] * 4, TOKENS, titles=[f"head {h}" for h in range(1, 5)], description="four")
    assert out.startswith('<div class="heatmap-panels" role="img" aria-label="four" style="display:flex;flex-wrap:wrap')
    svgs = re.findall(r"<svg\b[^>]*>", out)
    assert len(svgs) == 5 and all(figures.PANEL_STYLE in tag for tag in svgs)  # four panels and the colour bar
    assert out.count('role="img"') == 1 and out.count("<title>") == 0  # one name, the figure's
    widths = [float(re.search(r'width="([\d.]+)pt"', tag)[1]) for tag in svgs]
    assert max(widths) <= 3.9 * 72 + 1  # pt: no panel wider than one alone
    assert [out.count(f">head {h}</text>") for h in range(1, 5)] == [1, 1, 1, 1]
    assert out.count(">query token</text>") == 4  # each panel keeps its axes' names when it stands alone
    ids = re.findall(r'\sid="([^"]+)"', out)
    assert len(ids) == len(set(ids))  # panels on one page share no id


def cell_fills(svg):
    return re.findall(r'<rect [^>]*fill="(#[0-9a-f]{6})"/>', svg)


def test_panels_and_figures_share_one_scale_with_a_colour_bar():
    low, high = figures.SCALE
    half = torch.full((6, 6), (low + high) / 2)
    alone = figures.attention_heatmap(half, TOKENS, description="d")
    beside_a_larger_one = figures.heatmap_svg([half, CAUSAL], TOKENS, description="d")
    # The same weight has the same colour in every figure, whatever is beside it.
    assert set(cell_fills(alone)) == {cell_fills(beside_a_larger_one)[0]}
    assert ">attention weight</text>" in alone and f">{high:.1f}</text>" in alone


def test_a_weight_above_the_scale_takes_the_top_colour_and_the_bar_says_so():
    ones = figures.attention_heatmap(torch.ones(6, 6), TOKENS, description="d")
    top = figures.attention_heatmap(torch.full((6, 6), figures.SCALE[1], dtype=torch.float64), TOKENS, description="d")
    assert set(cell_fills(ones)) == set(cell_fills(top))
    assert "<path" in ones and "<path" not in top  # the colour bar's arrow
