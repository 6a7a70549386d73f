"""Does each script of a formula clear its base? Measured on the ink Chromium draws.

Boxes cannot tell: Chromium sets a superscript right after its base's advance width,
and an italic letter's ink runs past that width (the right arm of an italic W), so
the boxes of ``W`` and ``K`` in ``W^K`` do not overlap while their ink touches.

How, on a page already loaded (no extra page load; checks/browser/ calls it on the loads
its checks share). Each pair (a base and one of its scripts: every ``msub``, ``msup``,
``msubsup``, ``munder``, ``mover``, ``munderover``; accents left out, they are meant to
sit on their base) is drawn twice, each time in a clone of its whole formula with the
same computed font: once with only the base painted (black), once with only the script,
everything else ``color: transparent`` (so the layout is the same in both). Every clone
sits in a box of whole pixels with the same offset, in one column zoomed ``ZOOM`` times
(Chromium lays out and rasterises zoomed content at the zoomed size, as on a screen of
that density), cut to the pair's region, and the whole column is one screenshot. A pixel
at least half covered is ink (the half-coverage contour is the pixel estimate of the
glyph outline); the gap is the shortest distance between the two inks' pixel centres,
less one pixel, in CSS px. Hiding instead of colour, or one screenshot per pair, cost a
page load's worth each; the colour switch keeps it to one screenshot per page.

A gap below ``MIN_GAP`` (0.5 CSS px) fails: on a screen of 1 device pixel per CSS px the
two glyphs then share a pixel both partly cover, which anti-aliasing fills: a reader sees
them joined. (The scripts that look right in this journal are 1.5-4 px clear.)
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import numpy as np
from PIL import Image

__all__ = ["MIN_GAP", "ZOOM", "Gap", "script_gaps"]

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
  const before = (m) => {
    const block = m.closest('p, li, td, h1, h2, h3, h4, figure, div') || m.parentElement;
    const range = document.createRange();
    range.setStart(block, 0);
    range.setEndBefore(m);
    return range.toString().replace(/\s+/g, ' ').trim().split(' ').slice(-3).join(' ');
  };
  const root = document.createElement('div');
  root.setAttribute('data-journal-ink', '');
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
  maths.forEach((m, mi) => {
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
    const display = m.closest('.math-display');
    const where = {formula: mi, label: display ? display.getAttribute('aria-label') || '' : '', before: before(m),
                   text: m.textContent.replace(/\s+/g, ' ').trim().slice(0, 70)};
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
      pairs.push({...where, kind: p.kind, base: p.baseText, script: p.scriptText, crops});
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

_REMOVE = "() => document.querySelectorAll('[data-journal-ink]').forEach((el) => el.remove())"


@dataclass(frozen=True)
class Gap:
    """A base, one of its scripts and their ink gap (CSS px; 0 when touching). ``formula``: index on the page; ``label``: display math's
    ``aria-label``; ``before``: words before it."""

    formula: int
    label: str
    before: str
    text: str
    kind: str
    base: str
    script: str
    gap: float

    def __str__(self) -> str:
        return f"{self.base}|{self.script} ({self.kind}) {self.gap:.2f} px"


def script_gaps(page, *, zoom: int = ZOOM, width: int = 400) -> list[Gap]:
    """Every base-script pair of every <math> on ``page`` with its ink gap; the page is left as it was (the column is removed)."""
    built = page.evaluate(_BUILD, {"zoom": zoom, "margin": MARGIN, "width": width})
    try:
        if not built["pairs"]:
            return []
        page.evaluate("document.fonts.ready.then(() => true)")
        png = page.screenshot(full_page=True, animations="disabled",
                              clip={"x": 0, "y": 0, "width": built["width"] * zoom, "height": built["height"] * zoom})
    finally:
        page.evaluate(_REMOVE)
    shot = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    gaps = []
    for p in built["pairs"]:
        inks = [_ink(shot, crop, zoom) for crop in p["crops"]]
        gap = ink_gap(*inks, zoom)
        if gap is None:  # a base or script without ink (an empty group, a space): nothing to touch
            continue
        gaps.append(Gap(p["formula"], p["label"], p["before"], p["text"], p["kind"], p["base"], p["script"], gap))
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
