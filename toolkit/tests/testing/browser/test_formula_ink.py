"""Does each script of a formula clear its base? Measured on the ink Chromium draws, with the installed
math font: the italic correction of journal_tools/core/markup/italic_scripts.py checked on inline formulas
and on the fixture journal's built pages (the journal's own browser checks no longer measure it).

Boxes cannot tell: Chromium sets a superscript right after its base's advance width, and an italic
letter's ink runs past that width (the right arm of an italic W), so the boxes of ``W`` and ``K`` in
``W^K`` do not overlap while their ink touches. Each pair (a base and one of its scripts; accents left
out, they are meant to sit on their base) is drawn twice in a clone of its formula with the same
computed font, once with only the base painted, once with only the script (everything else
``color: transparent``, so the layout is the same), in one column zoomed ``ZOOM`` times and one
screenshot. A pixel at least half covered is ink; the gap is the shortest distance between the two
inks' pixel centres, less one pixel, in CSS px. Below ``MIN_GAP`` (0.5 CSS px) the two glyphs share a
pixel on a screen of 1 device pixel per CSS px: a reader sees them joined (DECISIONS.md has the figures).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from journal_tools.compat import mkdocs_config
from journal_tools.core.markup.mathml import _CONVERTER, tex_to_mathml
from journal_tools.mkdocs_plugin import fonts
from journal_tools.testing.fixtures import Server
from journal_tools.testing.prerequisites import FONT_MISSING, require

ZOOM = 3         # device pixels per CSS px in the measuring column: a gap to 1/3 px
MIN_GAP = 0.5    # CSS px between a script's ink and its base's ink; below it, they look joined
MARGIN = 6       # CSS px around a pair's boxes: how far its ink may run past them
INK = 128        # grey level (0-255, black on white) below which a pixel is ink: half covered

# Builds the column (in CSS px before the zoom) and returns what each crop holds.
_BUILD = r"""
({zoom, margin, width}) => {
  const SCRIPTED = 'msub, msup, msubsup, munder, mover, munderover';
  const FONT = ['font-family', 'font-size', 'font-style', 'font-weight', 'font-stretch', 'letter-spacing',
                'word-spacing', 'math-style', 'math-depth', 'math-shift', 'font-feature-settings',
                'font-variant-ligatures', 'text-rendering', '-webkit-font-smoothing'];
  const isAccent = (el, k) => {
    const name = el.localName;
    const over = (name === 'mover' && k === 1) || (name === 'munderover' && k === 2);
    const under = (name === 'munder' || name === 'munderover') && k === 1;
    return (over && el.getAttribute('accent') === 'true') || (under && el.getAttribute('accentunder') === 'true');
  };
  const root = document.createElement('div');
  root.style.cssText = `position:absolute;left:0;top:0;z-index:2147483647;background:#fff;margin:0;padding:0;`
    + `border:0;width:${width}px;overflow:hidden`;
  document.body.appendChild(root);
  const maths = [...document.querySelectorAll('math')].filter((m) => !root.contains(m));
  const wrap = (m) => {
    const w = document.createElement('div');
    w.style.cssText = 'position:absolute;white-space:nowrap;margin:0;padding:0;border:0;line-height:normal;'
      + 'width:max-content;color:#000;background:#fff';
    const c = m.cloneNode(true);
    const from = getComputedStyle(m);
    FONT.forEach((p) => c.style.setProperty(p, from.getPropertyValue(p)));
    w.appendChild(c);
    return [w, c];
  };
  const pairs = [];
  let x = 0, y = 0, row = 0, right = width;
  maths.forEach((m) => {
    const all = [...m.querySelectorAll('*')];
    const found = [];
    all.forEach((el, ei) => {
      if (!el.matches(SCRIPTED)) return;
      [...el.children].forEach((child, k) => {
        if (k === 0 || isAccent(el, k)) return;
        found.push({kind: el.localName, base: all.indexOf(el.children[0]), script: all.indexOf(child),
                    baseText: el.children[0].textContent, scriptText: child.textContent});
      });
    });
    if (!found.length) return;
    const [stage, sc] = wrap(m);
    stage.style.left = '0px'; stage.style.top = '0px';
    root.appendChild(stage);
    const origin = stage.getBoundingClientRect();
    const sall = [...sc.querySelectorAll('*')];
    const text = m.textContent.replace(/\s+/g, ' ').trim().slice(0, 70);
    const spans = found.map((p) => {
      const a = sall[p.base].getBoundingClientRect(), b = sall[p.script].getBoundingClientRect();
      const ox = Math.floor(Math.min(a.left, b.left) - origin.left - margin);
      const oy = Math.floor(Math.min(a.top, b.top) - origin.top - margin);
      return {ox, oy, w: Math.ceil(Math.max(a.right, b.right) - origin.left + margin) - ox,
              h: Math.ceil(Math.max(a.bottom, b.bottom) - origin.top + margin) - oy};
    });
    stage.remove();
    found.forEach((p, i) => {
      const s = spans[i];
      if (x > 0 && x + 2 * s.w + 2 > width) { x = 0; y += row + 1; row = 0; }
      const crops = [p.base, p.script].map((target, j) => {
        const box = document.createElement('div');
        const left = x + j * (s.w + 1);
        box.style.cssText = `position:absolute;overflow:hidden;left:${left}px;top:${y}px;width:${s.w}px;`
          + `height:${s.h}px;background:#fff`;
        const [w, c] = wrap(m);
        w.style.left = `${-s.ox}px`; w.style.top = `${-s.oy}px`;
        const els = [c, ...c.querySelectorAll('*')];
        els.forEach((el) => el.style.setProperty('color', 'transparent', 'important'));
        const t = els[target + 1];
        [t, ...t.querySelectorAll('*')].forEach((el) => el.style.setProperty('color', '#000', 'important'));
        box.appendChild(w);
        root.appendChild(box);
        return [left, y, s.w, s.h];
      });
      pairs.push({text, kind: p.kind, base: p.baseText, script: p.scriptText, crops});
      x += 2 * s.w + 2;
      right = Math.max(right, x);
      row = Math.max(row, s.h);
    });
  });
  root.style.height = `${y + row + 1}px`;
  root.style.width = `${right}px`;
  root.style.zoom = String(zoom);
  return {pairs, width: right, height: y + row + 1};
}
"""

# The site's math font loaded before anything is shot (with font-display: swap a fallback may be drawn first).
_LOAD_MATH_FONT = """
() => Promise.all([...document.fonts].filter((f) => f.family.replace(/"/g, '') === 'Journal Math')
                   .map((f) => f.load())).then(() => document.fonts.ready).then(() => true)
"""

@dataclass(frozen=True)
class Gap:
    """A base, one of its scripts and their ink gap (CSS px; 0 when touching), in the formula that reads ``text``."""

    text: str
    kind: str
    base: str
    script: str
    gap: float

    def __str__(self) -> str:
        return f"{self.base}|{self.script} ({self.kind}) {self.gap:.2f} px"


def script_gaps(page, *, zoom: int = ZOOM, width: int = 400) -> list[Gap]:
    """Every base-script pair of every <math> on ``page`` with its ink gap (the page is left with the measuring column on top)."""
    built = page.evaluate(_BUILD, {"zoom": zoom, "margin": MARGIN, "width": width})
    if not built["pairs"]:
        return []
    page.evaluate("document.fonts.ready.then(() => true)")
    png = page.screenshot(full_page=True, animations="disabled",
                          clip={"x": 0, "y": 0, "width": built["width"] * zoom, "height": built["height"] * zoom})
    shot = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    gaps = []
    for p in built["pairs"]:
        inks = [_ink(shot, crop, zoom) for crop in p["crops"]]
        gap = ink_gap(*inks, zoom)
        if gap is None:  # a base or script without ink (an empty group, a space): nothing to touch
            continue
        gaps.append(Gap(p["text"], p["kind"], p["base"], p["script"], gap))
    return gaps


def _ink(shot: np.ndarray, crop: list[float], zoom: int) -> np.ndarray:
    x, y, w, h = (round(v * zoom) for v in crop)
    return shot[y : y + h, x : x + w] < INK


def ink_gap(a: np.ndarray, b: np.ndarray, zoom: int) -> float | None:
    """CSS px between the inks of masks ``a`` and ``b``: nearest pixel centres less one pixel (adjacent: 0) over ``zoom``; None: no ink."""
    if not a.any() or not b.any():
        return None
    if (a & b).any():
        return 0.0
    pa, pb = _edge(a), _edge(b)
    d2 = ((pa[:, None, :] - pb[None, :, :]) ** 2).sum(axis=2).min()
    return max(math.sqrt(float(d2)) - 1.0, 0.0) / zoom


def _edge(mask: np.ndarray) -> np.ndarray:
    """Coordinates of the ink pixels with a blank 4-neighbour (the nearest pixels are among them)."""
    padded = np.pad(mask, 1)
    inner = padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
    return np.argwhere(mask & ~inner).astype(np.int32)


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
        return {f"{g.base}|{g.script}": g.gap for g in script_gaps(page)}
    finally:
        context.close()


def test_ink_gap_is_the_blank_pixels_between_two_inks():
    a, b = np.zeros((5, 9), bool), np.zeros((5, 9), bool)
    a[:, 2] = True
    b[:, 3] = True
    assert ink_gap(a, b, 1) == 0.0   # side by side: touching
    b[:, 3], b[:, 5] = False, True
    assert ink_gap(a, b, 2) == 1.0   # 2 device pixels between them at zoom 2: 1 CSS px
    assert ink_gap(a, np.zeros_like(a), 1) is None


@pytest.mark.parametrize("width", [1280, 390])
def test_the_k_of_w_k_touches_without_the_correction_and_clears_with_it(browser, tmp_path, width):
    tex = r"(XW^Q)(XW^K)^\top"
    raw = _gaps(browser, tmp_path, _CONVERTER.convert_with_local_state(tex, displaystyle=False), width)
    fixed = _gaps(browser, tmp_path, tex_to_mathml(tex, display=False), width)
    assert raw["W|K"] < MIN_GAP and raw["W|Q"] < MIN_GAP, raw
    assert min(fixed.values()) >= MIN_GAP, fixed
    assert set(fixed) == {"W|Q", "W|K", ")|⊤"}


def test_a_script_pushed_into_its_base_is_caught(browser, tmp_path):
    clear = tex_to_mathml("d_k", display=False)
    # (Chromium ignores a negative mpadded lspace; a negative margin moves the script.)
    planted = clear.replace("<mi>k</mi>", '<mi style="margin-left: -0.4em">k</mi>')
    assert planted != clear
    assert _gaps(browser, tmp_path, clear)["d|k"] >= MIN_GAP
    assert _gaps(browser, tmp_path, planted)["d|k"] < MIN_GAP


def test_accents_are_left_out(browser, tmp_path):
    pairs = set(_gaps(browser, tmp_path, tex_to_mathml(r"\tilde{A}_{ij} + \sum_{j \le i} x", display=True)))
    assert pairs == {"A˜|ij", "∑|j≤i"}, pairs  # the tilde over the A is an accent: not a script to measure


def test_every_script_on_the_fixture_pages_clears_its_base(fixture_build, browser):
    """The built fixture journal as a reader gets it (its stylesheet, the served subset of the font), at 1280 and 390 px: the
    entry's ``(XW^Q)(XW^K)^\\top`` is where the italic correction matters."""
    assert fixture_build.returncode == 0, f"the fixture journal did not build:\n{fixture_build.output[-3000:]}"
    site_url = mkdocs_config.load(fixture_build.project / "mkdocs.yml").site_url
    server = Server(fixture_build.site, "/" + site_url.split("://", 1)[-1].split("/", 1)[-1])
    pages = [p.relative_to(fixture_build.site).as_posix() for p in fixture_build.html_pages()
             if "<math" in p.read_text(encoding="utf-8")]
    problems, measured = [], set()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            for rel in pages:
                page.goto(server.url(rel), wait_until="load")
                page.evaluate(_LOAD_MATH_FONT)
                for g in script_gaps(page):
                    measured.add(f"{g.base}|{g.script}")
                    if g.gap < MIN_GAP:
                        problems.append(f"{rel} at {width} px: {g} in {g.text!r}")
    finally:
        context.close()
        server.close()
    assert {"W|Q", "W|K"} <= measured, f"the entry's W^Q and W^K were not measured on {pages}: {sorted(measured)}"
    assert not problems, "scripts that touch their base:\n" + "\n".join(problems)
