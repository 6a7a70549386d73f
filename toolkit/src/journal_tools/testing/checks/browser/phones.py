"""On a phone (390 px wide), light and dark palette, each page loaded once for:

- axe-core, as at 1280 px (checks/browser/axe.py), on the page as the reader gets it;
- no page scrolls sideways (document.scrollingElement.scrollWidth <= clientWidth): wide
  math, code and outputs scroll inside their own box (a long code block is fine);
- no figure text under ``MIN_FIGURE_TEXT_PX`` (8 px; 9 px at 1280 px, checks/browser/pages.py): a figure of
  several panels must put fewer a row on a phone;
- no console error.

(axe shares the load: loading each page anew for it cost as much again.) Whether a box that
scrolls shows it (its scroll shadow) is the stylesheet's, not a page's: it is not measured.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from journal_tools.testing.checks.browser import axe as axe_check

WIDTH = 390
MIN_FIGURE_TEXT_PX = 8  # the smallest text of a figure, drawn on a 390 px phone

# Per figure: the first words of its caption and its smallest text's height in px (None: no text).
FIGURE_TEXT = r"""
() => [...document.querySelectorAll('figure')].map((fig) => {
  const heights = [...fig.querySelectorAll('svg text')].filter((t) => t.closest('details:not([open])') === null)
    .map((t) => t.getBoundingClientRect().height);
  const caption = fig.querySelector('figcaption');
  return [caption ? caption.textContent.split(/\s+/).slice(0, 6).join(' ') : '', heights.length ? Math.min(...heights) : null];
})
"""


@pytest.mark.parametrize("scheme", sorted(axe_check.SCHEMES))
def test_phone_pages_pass_axe_and_do_not_scroll_sideways(built, server, visit, page_checks, sources, scheme):
    pages = [p.relative_to(built.site).as_posix() for p in built.html_pages()
             if "screenshots" not in p.relative_to(built.site).parts]
    assert "index.html" in pages
    page_checks.key_also(Path(axe_check.__file__).read_bytes())  # the axe check it runs
    v = visit(color_scheme=scheme)
    v.page.set_viewport_size({"width": WIDTH, "height": 800})
    problems: list[str] = []
    axe_counts: dict[str, int] = {}
    for rel in pages:
        if page_checks.reused(rel) is not None:
            continue
        v.console_errors.clear()
        v.load(rel, axe_check.SCHEMES[scheme])
        found = axe_check.axe_violations(v.page)
        for violation in found:
            axe_counts[violation["id"]] = axe_counts.get(violation["id"], 0) + len(violation["nodes"])
        page = axe_check.describe(found, f"{rel} ({scheme}, {WIDTH}px)", sources, built.site, rel)
        sw, cw = v.page.evaluate("[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]")
        where = sources.text(built.site, rel, "")
        if sw > cw:
            page.append(f"{where}: the page scrolls sideways at {WIDTH}px ({sw} > {cw}, on {rel}): something on it "
                        "is wider than a phone and does not scroll in a box of its own")
        page += [f"{sources.text(built.site, rel, caption)}: a figure's text is {px:.1f} px high on a {WIDTH} px phone, "
                 f"under {MIN_FIGURE_TEXT_PX} px: draw fewer panels a row there, or larger type (on {rel})"
                 for caption, px in v.page.evaluate(FIGURE_TEXT) if px is not None and px < MIN_FIGURE_TEXT_PX]
        page += [f"{where}: {e} (on {rel}, {scheme}, {WIDTH}px)" for e in v.console_errors]
        problems += page
        if not page:
            page_checks.passed(rel, v.fetched)
    print(f"\naxe and sideways scrolling on {len(pages)} pages at {WIDTH}px, {scheme}{page_checks.note()}")
    assert not problems, f"{scheme}, {WIDTH}px (axe: {axe_counts} (rule: nodes)):\n" + "\n".join(problems)
