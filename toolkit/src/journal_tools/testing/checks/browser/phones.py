"""On a phone (390 px wide), light and dark palette, each page loaded once for:

- axe-core, as at 1280 px (checks/browser/axe.py), first,
  on the page as the reader gets it;
- no page scrolls sideways (document.scrollingElement.scrollWidth <=
  clientWidth): wide math, code and outputs scroll inside their own box;
- a box that does scroll sideways (display math, code block, notebook
  output) shows it: a shadow on the side where content is hidden, none on
  the side where there is nothing more. Checked on the pixels: the box's
  content is made transparent (only its background is painted), the box is
  screenshotted at the start and at the end of its scroll range, and the
  strip at each edge is compared with the middle of the box.

- every script of every formula clears its base on the ink (checks/browser/formulas.py's
  ink_problems; at 1280 px it runs there), in the light palette (the check paints its own
  black on white, so the palette changes nothing).

(axe shares the load: loading each page anew for it cost as much again.)
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from journal_tools.testing.checks.browser import axe as axe_check
from journal_tools.testing.checks.browser import formulas

WIDTH = 390
SCROLL_BOXES = ".md-typeset .math-display, .md-typeset pre > code, .jupyter-wrapper .jp-RenderedText.jp-OutputArea-output"
PER_PAGE = 3  # boxes checked on the pixels per page and palette (all are counted)
SHADOW = 20   # grey levels (0-255) between an edge with a shadow and the middle of the box
PLAIN = 6     # ... and at most this between an edge without one and the middle

MARK_OVERFLOWING = """
(selector) => {
  const boxes = [...document.querySelectorAll(selector)].filter((el) =>
    el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 && !el.closest('details:not([open])'));
  boxes.forEach((el, i) => el.setAttribute('data-journal-test-box', String(i)));
  return boxes.map((el) => ({
    kind: el.matches('.math-display') ? 'formula' : el.matches('pre > code') ? 'code' : 'output',
    label: el.getAttribute('aria-label') || '', text: el.textContent}));
}
"""

WHAT = {"formula": "display formula", "code": "code block", "output": "notebook output"}
FIX = {"formula": "split the formula (aligned lines, or a shorter form)", "code": "shorten or wrap the line",
       "output": "print less per line"}

# Only the box's background is left to paint: text, math and anything laid
# over the box (Material's copy button) become transparent or hidden.
BACKGROUND_ONLY = """
(el) => {
  el.style.color = 'transparent';
  el.querySelectorAll('*').forEach((c) => { c.style.color = 'transparent'; c.style.background = 'none';
                                           c.style.borderColor = 'transparent'; c.style.textDecoration = 'none'; });
  if (el.parentElement) {
    [...el.parentElement.children].forEach((s) => { if (s !== el) s.style.visibility = 'hidden'; });
  }
}
"""


def edge_contrast(png: bytes) -> tuple[float, float]:
    """(left, right): how far the mean grey of a 4-px strip at each edge is from the box middle, over the middle fifth of its height."""
    img = Image.open(io.BytesIO(png)).convert("L")
    w, h = img.size
    rows = range(int(h * 0.4), max(int(h * 0.6), int(h * 0.4) + 1))

    def mean(x0: int, x1: int) -> float:
        vals = [img.getpixel((x, y)) for x in range(x0, x1) for y in rows]
        return sum(vals) / len(vals)

    middle = mean(w // 2 - 2, w // 2 + 2)
    return abs(mean(1, 5) - middle), abs(mean(w - 5, w - 1) - middle)


def box_source(sources, site, rel: str, box: dict) -> str:
    """The source ``file:line`` of an overflowing box: its fence, its formula, its page."""
    if box["kind"] == "code":
        return sources.code(site, rel, box["text"])
    if box["kind"] == "formula":
        return sources.display_formula(site, rel, box["label"])
    return sources.text(site, rel, "")


def shadow_problem(where: str, rel: str, box: dict, at: str, edges: str) -> str:
    """One box without the scroll shadow it needs: the source line first, then what to do."""
    what = WHAT[box["kind"]]
    return (f"{where}: the {what}'s line is wider than a {WIDTH} px phone screen and shows no scroll shadow "
            f"{at} ({edges}; on {rel}): {FIX[box['kind']]} so it fits {WIDTH} px, or, if every wide box "
            "lacks it, mend the scroll shadow of the site's stylesheet (journal_tools/mkdocs_plugin/assets/)")


def _scroll_problems(page, rel: str, locate) -> tuple[list[str], int, int]:
    """(problems, sideways-scrolling boxes, boxes checked on pixels) of page ``rel``; ``locate(box)`` gives a box's ``file:line``."""
    problems = []
    sw, cw = page.evaluate("[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]")
    if sw > cw:
        problems.append(f"{locate(None)}: the page scrolls sideways at {WIDTH}px ({sw} > {cw}, on {rel}): "
                        "something on it is wider than a phone and does not scroll in a box of its own")
    boxes = page.evaluate(MARK_OVERFLOWING, SCROLL_BOXES)
    for i, found in enumerate(boxes[:PER_PAGE]):
        box = page.locator(f"[data-journal-test-box='{i}']")
        box.scroll_into_view_if_needed()
        box.evaluate(BACKGROUND_ONLY)
        box.evaluate("(el) => { el.scrollLeft = 0; }")
        left, right = edge_contrast(box.screenshot())
        if not (right >= SHADOW and left <= PLAIN):
            problems.append(shadow_problem(locate(found), rel, found, "at its right edge before scrolling",
                                           f"right edge {right:.0f} grey levels from the middle, want >= {SHADOW}; "
                                           f"left edge {left:.0f}, want <= {PLAIN}"))
        box.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }")
        left, right = edge_contrast(box.screenshot())
        if not (left >= SHADOW and right <= PLAIN):
            problems.append(shadow_problem(locate(found), rel, found, "at its left edge once scrolled to the end",
                                           f"left edge {left:.0f} grey levels from the middle, want >= {SHADOW}; "
                                           f"right edge {right:.0f}, want <= {PLAIN}"))
    return problems, len(boxes), min(len(boxes), PER_PAGE)


@pytest.mark.parametrize("scheme", sorted(axe_check.SCHEMES))
def test_phone_pages_pass_axe_do_not_scroll_sideways_and_wide_boxes_show_they_scroll(built, server, visit,
                                                                                     page_checks, sources, scheme):
    pages = [p.relative_to(built.site).as_posix() for p in built.html_pages()
             if "screenshots" not in p.relative_to(built.site).parts]
    assert "index.html" in pages
    page_checks.key_also(Path(axe_check.__file__).read_bytes())  # the axe check it runs
    page_checks.key_also(formulas.ink_code())  # and the ink check
    v = visit(color_scheme=scheme)
    v.page.set_viewport_size({"width": WIDTH, "height": 800})
    problems: list[str] = []
    axe_counts: dict[str, int] = {}
    overflowing = checked = pairs = 0
    for rel in pages:
        recorded = page_checks.reused(rel)
        if recorded is not None:
            overflowing += recorded["overflowing"]
            checked += recorded["checked"]
            pairs += recorded["pairs"]
            continue
        v.load(rel, axe_check.SCHEMES[scheme])
        found = axe_check.axe_violations(v.page)  # before the scroll check changes the page
        ink, page_pairs = (formulas.ink_problems(v.page, rel, WIDTH, sources, built.site)
                           if scheme == "light" else ([], 0))
        pairs += page_pairs
        for violation in found:
            axe_counts[violation["id"]] = axe_counts.get(violation["id"], 0) + len(violation["nodes"])
        scroll, page_overflowing, page_checked = _scroll_problems(
            v.page, rel, lambda box, rel=rel: box_source(sources, built.site, rel, box) if box else sources.text(built.site, rel, ""))
        overflowing += page_overflowing
        checked += page_checked
        problems += axe_check.describe(found, f"{rel} ({scheme}, {WIDTH}px)", sources, built.site, rel) + scroll + ink
        if not found and not scroll and not ink:
            page_checks.passed(rel, v.fetched, {"overflowing": page_overflowing, "checked": page_checked,
                                                "pairs": page_pairs})
    print(f"\naxe and scrolling on {len(pages)} pages at {WIDTH}px, {scheme}, {pairs} scripts measured on the ink"
          f"{page_checks.note()}")
    assert pairs or scheme != "light", "no script measured against its base on the ink: it ran on nothing"
    assert overflowing and checked, f"no box scrolls sideways at {WIDTH}px on any page: nothing was checked"
    assert not problems, (f"{scheme}, {WIDTH}px (axe: {axe_counts} (rule: nodes); {overflowing} boxes scroll "
                          f"sideways, {checked} checked):\n" + "\n".join(problems))
