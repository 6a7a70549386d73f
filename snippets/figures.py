"""Attention-weight heatmaps as SVG text, drawn with matplotlib at build time.

The SVG is meant to be inlined into a page (journal_tools/core/code/figures.py),
so it is drawn to read on the light and the dark theme alike:

- transparent background;
- every text and axis line in ``currentColor``: it takes the colour of the
  surrounding page text, whichever theme is on;
- cells in viridis (dark purple to yellow), each labelled with its value in
  black or white, whichever contrasts with the cell;
- text kept as ``<text>`` (``svg.fonttype: none``), so it uses the page font,
  stays selectable and costs a few bytes instead of glyph outlines.

No pyplot: a ``Figure`` object per call, so nothing global is left behind.
"""

import html
import io
import re

import matplotlib
from matplotlib.figure import Figure

# A colour no figure uses on purpose; replaced by currentColor in the SVG.
_INK = "#0a0b0c"

_RC = {
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 9,
    "text.color": _INK,
    "axes.labelcolor": _INK,
    "axes.edgecolor": _INK,
    "xtick.color": _INK,
    "ytick.color": _INK,
    "axes.titlesize": 10,
}
# Cell values: 8 pt; a panel is drawn 3.9 in wide (374 px), so they stay at
# 9.5 px or more where a page column fits two panels (1280 px window) and at
# 9 px or more on a 390 px phone, one panel a row.
CELL_PT = 8
# One colour scale for every attention heatmap of the series, so a colour
# means the same weight in every figure. A causal first row is always 1.00:
# scaled to it, every other cell came out the same dark purple. Above the
# top, a cell takes the top colour, and the colour bar's arrow says so.
SCALE = (0.0, 0.6)
# Several panels are an SVG each, side by side while the column is wide
# enough (two at 1280 px) and one a row below that: one SVG of a 2x2 grid
# drew its numbers at 5 px on a 390 px phone. The styles are inline: the
# figure needs no stylesheet of the site's.
PANELS_STYLE = "display:flex;flex-wrap:wrap;justify-content:center;gap:0 1rem"
PANEL_STYLE = "flex:1 1 16rem;max-width:22rem;height:auto"


def _cell_text_colour(rgba):
    """Black on light cells, white on dark ones (relative luminance)."""
    r, g, b = rgba[:3]
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 else "white"


# --8<-- [start:heatmap_svg]
def heatmap_svg(matrices, tokens, *, titles=None, description,
                hide_future=False, scale=SCALE):
    """A heatmap per matrix on one colour scale, with one colour bar.

    matrices: sequence of (n, n) attention-weight tensors or arrays, row i =
    query token i, column j = key token j. tokens: the n axis labels.
    hide_future: leave cells above the diagonal blank (causal attention).
    scale: (low, high) of the colour scale, shared by every panel.
    description: the accessible name (aria-label and <title>) of the figure.
    One matrix: one SVG, its colour bar beside it. Several: a <div> of one
    SVG per panel and one for the colour bar, which wrap to one a row on a
    narrow screen.
    """
    import numpy as np

    mats = [np.asarray(m, dtype=float) for m in matrices]
    n = len(tokens)
    if any(m.shape != (n, n) for m in mats):
        raise ValueError(f"every matrix must be {n}x{n} for {n} tokens")
    titles = list(titles) if titles is not None else [None] * len(mats)
    if len(titles) != len(mats):
        raise ValueError("one title per matrix")
    norm = matplotlib.colors.Normalize(*scale, clip=True)
    over = any(float(m.max()) > scale[1] for m in mats)
    with matplotlib.rc_context(_RC):
        if len(mats) == 1:
            return _svg(_panel(mats[0], tokens, titles[0], norm, hide_future,
                               bar=True, over=over), description)
        parts = [_svg(_panel(m, tokens, t, norm, hide_future),
                      f"{description} {k}", named=False)
                 for k, (m, t) in enumerate(zip(mats, titles))]
        parts.append(_svg(_colour_bar(norm, over), f"{description} bar",
                          named=False))
    label = html.escape(description, quote=True)
    return (f'<div class="heatmap-panels" role="img" aria-label="{label}" '
            f'style="{PANELS_STYLE}">\n' + "\n".join(parts) + "\n</div>")


def _panel(m, tokens, title, norm, hide_future, *, bar=None, over=False):
    """One heatmap as a matplotlib Figure, a vertical colour bar or none."""
    import numpy as np

    n = len(tokens)
    cmap = matplotlib.colormaps["viridis"]
    future = np.triu(np.ones((n, n)), 1) > 0
    width = 0.55 + 3.35 + (0.75 if bar else 0.0)
    fig = Figure(figsize=(width, 3.6), layout="constrained")
    ax = fig.subplots()
    shown = np.ma.masked_where(future, m) if hide_future else m
    ax.pcolormesh(shown, cmap=cmap, norm=norm)
    ax.set_xlim(0, n)
    ax.set_ylim(n, 0)  # row 0 on top, as the matrix is printed
    ax.set_aspect("equal")
    for i, j in np.ndindex(n, n):
        if hide_future and future[i, j]:
            continue
        colour = _cell_text_colour(cmap(norm(m[i, j])))
        ax.text(j + 0.5, i + 0.5, f"{m[i, j]:.2f}", ha="center",
                va="center", fontsize=CELL_PT, color=colour)
    centres = [t + 0.5 for t in range(n)]
    ax.set_xticks(centres, tokens, rotation=45, ha="right",
                  rotation_mode="anchor")
    ax.set_yticks(centres, tokens)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if title:
        ax.set_title(title)
    ax.set_ylabel("query token")
    ax.set_xlabel("key token")
    if bar:
        _bar(fig.colorbar(_mappable(norm), ax=ax, shrink=0.8,
                          extend="max" if over else "neither"))
    return fig


def _colour_bar(norm, over):
    """The colour bar of several panels, alone and lying down."""
    fig = Figure(figsize=(3.9, 0.85), layout="constrained")
    ax = fig.subplots()
    _bar(fig.colorbar(_mappable(norm), cax=ax, orientation="horizontal",
                      extend="max" if over else "neither"))
    return fig


def _mappable(norm):
    return matplotlib.cm.ScalarMappable(norm=norm,
                                        cmap=matplotlib.colormaps["viridis"])


def _bar(bar):
    bar.set_label("attention weight")
    bar.ax.tick_params(length=0)
    bar.outline.set_visible(False)
# --8<-- [end:heatmap_svg]


def _svg(fig, description, *, named=True):
    """A Figure as inline SVG text (``named``: the figure's accessible name;
    ``description`` also salts its ids: panels of a page share none)."""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": description}):
        fig.savefig(buf, format="svg", transparent=True,
                    metadata={"Date": None})
    return _clean_svg(buf.getvalue(), description, named=named)


# --8<-- [start:attention_heatmap]
def attention_heatmap(weights, tokens, *, title=None, description,
                      hide_future=False):
    """One heatmap; see heatmap_svg."""
    return heatmap_svg([weights], tokens, titles=[title],
                       description=description, hide_future=hide_future)
# --8<-- [end:attention_heatmap]


_NUM = r"(-?\d+(?:\.\d+)?)"
_QUAD = re.compile(
    rf'<path d="M {_NUM} {_NUM} L {_NUM} \2 L \3 {_NUM} L \1 \4 L \1 \2 ?z? ?"'
    r' style="fill: (#[0-9a-f]{6})"/>'
)


def _quad_to_rect(m):
    x0, y0, x1, y1 = (float(m.group(k)) for k in (1, 2, 3, 4))
    x, y, w, h = min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)
    return (f'<rect x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}"'
            f' fill="{m.group(5)}"/>')


def _clean_svg(svg, description, *, named=True):
    """Inline-ready SVG: no XML prologue or comments, theme colour, a name
    (``named``; else a panel of a figure whose <div> is named)."""
    from html import escape

    svg = re.sub(r"<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>\s*", "", svg)
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.DOTALL)
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    svg = svg.replace(_INK, "currentColor")
    # Everything is drawn inside its axes: no clipping needed.
    svg = re.sub(r' clip-path="url\(#[^)]*\)"', "", svg)
    svg = re.sub(r"<defs>\s*(<clipPath\b.*?</clipPath>\s*)+</defs>", "", svg,
                 flags=re.DOTALL)
    # No-op rotations, a group per text, empty groups, indentation: bytes only.
    svg = re.sub(r' transform="rotate\(-?0 [^"]*\)"', "", svg)
    svg = re.sub(r"<g>\s*(<text\b[^>]*>[^<]*</text>)\s*</g>", r"\1", svg)
    svg = re.sub(r"<g\s*/>", "", svg)
    svg = re.sub(r"^[ \t]+", "", svg, flags=re.MULTILINE)
    # Several figures can share a page: keep only the ids something refers to
    # (clip paths, glyph uses), which matplotlib already makes unique per salt.
    used = set(re.findall(r'(?:url\(#|href="#)([^)"]+)', svg))
    svg = re.sub(r'\sid="([^"]+)"',
                 lambda m: m.group(0) if m.group(1) in used else "", svg)
    # No font list: the text inherits the page's font (layout was measured
    # with DejaVu Sans, close enough for short labels).
    svg = re.sub(r"font-family: [^;\"]*;? ?", "", svg)
    # Coordinates to 2 decimals (a hundredth of a point), path data on one line.
    svg = re.sub(r"(\d+\.\d\d)\d+", r"\1", svg)
    svg = re.sub(r"\s*\n\s*(?=[LMCQZz\"])", " ", svg)
    # Invisible patches (figure and axes backgrounds: no fill, no stroke).
    svg = re.sub(r'<path d="[^"]*" style="fill: none"/>\s*', "", svg)
    # A heatmap cell is a closed axis-aligned quad: write it as a <rect>.
    svg = _QUAD.sub(_quad_to_rect, svg)
    for _ in range(4):  # groups left empty by the removals above
        svg = re.sub(r"<g>\s*</g>\s*", "", svg)
    # Blank lines would end an HTML block inside Markdown: drop them.
    svg = "\n".join(line for line in svg.splitlines() if line.strip())
    if not named:
        return svg.replace("<svg ", f'<svg style="{PANEL_STYLE}" ', 1)
    label = escape(description, quote=True)
    svg = svg.replace(
        "<svg ",
        f'<svg role="img" aria-label="{label}" class="attention-heatmap" '
        'style="max-width:100%;height:auto" ',
        1,
    )
    # <title> right after the opening tag: the accessible name for old readers.
    head_end = svg.index(">", svg.index("<svg")) + 1
    title = f"<title>{escape(description)}</title>"
    return svg[:head_end] + title + svg[head_end:]


# --8<-- [start:causal_heatmap]
def causal_heatmap():
    """Causal weights of SelfAttention_v2 (seed 789) on the example sentence,
    as drawn in the 2025-07-27 entry. The global RNG is left untouched."""
    import torch
    from inputs import inputs, sentence
    from self_attention import SelfAttention_v2, causal_weights_neg_inf

    with torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.manual_seed(789)
        sa = SelfAttention_v2(d_in=3, d_out=2)
        q, k = sa.W_query(inputs), sa.W_key(inputs)
        weights = causal_weights_neg_inf(q, k)
    return attention_heatmap(
        weights,
        sentence.split(),
        title="Causal attention weights",
        hide_future=True,
        description=(
            "Heatmap of causal attention weights for 'Your journey starts "
            "with one step': a lower-triangular 6 by 6 matrix; cells above "
            "the diagonal (future tokens) are blank and every row sums to 1."
        ),
    )
# --8<-- [end:causal_heatmap]
