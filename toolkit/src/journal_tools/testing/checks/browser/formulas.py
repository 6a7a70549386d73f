"""Every formula of the built site is drawn whole with the math font the site serves.

The oracle is the whole, unsubset font file that set-up installed from npm
(``.cache/fonts/node_modules/...``): it shares no code with the subsetting. Each
page that holds math is drawn twice at 1280 px: once as built, and once with the site's font URLs answered with the whole font's bytes
(a Playwright route), its @font-face without the unicode-range, so that the
whole font draws every character it has. The stylesheet and the browser's
layout are otherwise the same both times, so any pixel of a <math> element that
differs is a glyph (a radical, a size variant, an assembly part, an accent, a
math italic letter) that the served subset lacks or draws otherwise, or a
character the site's unicode-range leaves to another font.

Both drawings must have fetched the font URL: a local math font (the stylesheet
names a few in local()) would take over before it and leave nothing compared.
Each page is loaded once per font; its formulas (those in closed <details> too)
are cloned into a column of boxes of whole pixels at the top of the page, with
their own font size and colour, shot in one screenshot of that column and cut
out of it. One width is enough: the boxes are as wide as their formula, not as
the window, and the site's font size is the same at 390 and 1280 px (on the
journal of main 1942cad all 113 formulas drew the same pixels at both widths,
with either font).

On the font of main e9fbdaa it fails for the 8 formulas with a square root (their
radical is not drawn) and for the 2 with a subscript h (drawn with other pixels).

The load with the served font also checks every script against its base on the ink
(:func:`ink_problems`, journal_tools/testing/formula_ink.py): a script whose ink comes
closer than 0.5 CSS px to its base's fails at the formula's source line. The 390 px
check of the same runs on the phone test's load (checks/browser/phones.py).
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

from PIL import Image, ImageChops

from journal_tools.mkdocs_plugin import fonts, site_assets
from journal_tools.testing import formula_ink

WIDTH = 1280
STYLESHEET = re.compile(r"/" + re.escape(site_assets.site_uri("journal.css")) + r"(?:[?#].*)?$")
UNICODE_RANGE = re.compile(r"unicode-range:[^;}]*;?")
FONT_URL = re.compile(r"/" + re.escape(fonts.SITE_FONT_DIR.as_posix()) + r"/[^/?#]+\.woff2?(?:[?#].*)?$")

# The math font loaded before anything is shot: with font-display: swap the page may otherwise be drawn with a fallback first.
LOAD_MATH_FONT = """
() => Promise.all([...document.fonts].filter((f) => f.family.replace(/"/g, '') === 'Journal Math')
                   .map((f) => f.load())).then(() => document.fonts.ready).then(() => true)
"""

# Every <math> of the page, cloned into a column of its own at the top left, each in a box of whole pixels with the font size and colour of
# the original: a formula whose width changed cannot move the next one by a fraction of a pixel (which would change its anti-aliasing, not
# its glyphs). Returns each box in page coordinates with the formula's text, to name it.
ISOLATE = """
() => {
  const maths = [...document.querySelectorAll('math')];
  const column = document.createElement('div');
  column.style.cssText = 'position:absolute;left:0;top:0;z-index:2147483647;background:#fff;'
    + 'width:max-content;min-width:100%;padding:0;margin:0';
  const boxes = maths.map((m) => {
    const from = getComputedStyle(m.parentElement);
    const box = document.createElement('div');
    box.style.cssText = `display:block;white-space:nowrap;margin:0;padding:4px;width:max-content;`
      + `font-size:${from.fontSize};color:${from.color};line-height:${from.lineHeight};`;
    box.appendChild(m.cloneNode(true));
    column.appendChild(box);
    return box;
  });
  document.body.appendChild(column);
  boxes.forEach((box) => {
    const r = box.getBoundingClientRect();
    box.style.width = Math.ceil(r.width) + 'px';
    box.style.height = Math.ceil(r.height) + 'px';
  });
  return boxes.map((box, i) => {
    const r = box.getBoundingClientRect();
    const display = maths[i].closest('.math-display');
    const block = maths[i].closest('p, li, td, div') || maths[i].parentElement;
    const range = document.createRange();
    range.setStart(block, 0);
    range.setEndBefore(maths[i]);
    return {x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height,
            text: maths[i].textContent.replace(/\\s+/g, ' ').trim().slice(0, 70),
            label: display ? display.getAttribute('aria-label') || '' : '',
            before: range.toString().replace(/\\s+/g, ' ').trim().split(' ').slice(-3).join(' ')};
  });
}
"""


def ink_problems(page, rel: str, width: int, sources, site) -> tuple[list[str], int]:
    """(problems, pairs measured): scripts on page ``rel`` whose ink is nearer than formula_ink.MIN_GAP to their base's, at file:line."""
    problems = []
    page.evaluate(LOAD_MATH_FONT)
    gaps = formula_ink.script_gaps(page)
    for g in gaps:
        if g.gap >= formula_ink.MIN_GAP:
            continue
        where = sources.display_formula(site, rel, g.label) if g.label else sources.text(site, rel, g.before)
        problems.append(f"{where}: in the formula {g.text!r}, the {g.kind} script {g.script!r} is {g.gap:.2f} CSS px "
                        f"from the ink of its base {g.base!r} at {width} px (at least {formula_ink.MIN_GAP} wanted; on "
                        f"{rel}): they look joined; a letter not in journal_tools/core/markup/italic_scripts.py's "
                        "table, or a space written in the formula, brings them back apart")
    return problems, len(gaps)


def ink_code() -> bytes:
    """What the ink check runs, for the page check records' key."""
    return Path(__file__).read_bytes() + Path(formula_ink.__file__).read_bytes()


def _full_font_bytes(project) -> dict[str, bytes]:
    """The installed, unsubset font files by suffix (".woff2", ".woff")."""
    return {p.suffix: p.read_bytes() for p in fonts.font_files(project)}


def _math_pages(built) -> list[str]:
    return [p.relative_to(built.site).as_posix() for p in built.html_pages()
            if "screenshots" not in p.relative_to(built.site).parts and "<math" in p.read_text(encoding="utf-8")]


def _draw(browser, server, pages: list[str], width: int, full_font: dict[str, bytes] | None, ink=None):
    """({page: [(box, formula image)]}, font URLs fetched, {page: URLs loaded}), drawn with the served font or (``full_font``) the whole one
    at the same URLs; ``ink(page, rel)`` runs on each page before its formulas move."""
    fetched: list[str] = []
    loaded: dict[str, list[str]] = {}
    current = [""]

    def route(r):
        url = r.request.url
        if not url.startswith(server.origin + "/"):
            return r.abort()
        loaded.setdefault(current[0], []).append(url)
        if full_font is not None and STYLESHEET.search(url):
            # The whole font drawn for every character it has: a character outside the
            # unicode-range the site declares is drawn by another font on the site.
            css = r.fetch().text()
            return r.fulfill(status=200, body=UNICODE_RANGE.sub("", css), content_type="text/css")
        m = FONT_URL.search(url)
        if m is None:
            return r.continue_()
        fetched.append(url)
        if full_font is None:
            return r.continue_()
        suffix = ".woff2" if url.split("?")[0].endswith(".woff2") else ".woff"
        return r.fulfill(status=200, body=full_font[suffix], content_type=f"font/{suffix[1:]}")

    context = browser.new_context(viewport={"width": width, "height": 900}, service_workers="block")
    context.route("**/*", route)
    page = context.new_page()
    drawn = {}
    try:
        for rel in pages:
            current[0] = rel
            page.goto(server.url(rel), wait_until="load")
            page.evaluate(LOAD_MATH_FONT)
            if ink is not None:
                ink(page, rel)
            boxes = [box for box in page.evaluate(ISOLATE) if box["w"] > 0 and box["h"] > 0]
            drawn[rel] = []
            if not boxes:
                continue
            # Only the column, from the page's top left: a full-page shot of a long page costs more.
            column = {"x": 0, "y": 0, "width": max(math.ceil(b["x"] + b["w"]) for b in boxes),
                      "height": max(math.ceil(b["y"] + b["h"]) for b in boxes)}
            png = page.screenshot(full_page=True, clip=column, animations="disabled")
            shot = Image.open(io.BytesIO(png)).convert("RGB")
            drawn[rel] = [(box, shot.crop((round(box["x"]), round(box["y"]),
                                           round(box["x"] + box["w"]), round(box["y"] + box["h"]))))
                          for box in boxes]
    finally:
        context.close()
    return drawn, fetched, loaded


def _differs(served: Image.Image, full: Image.Image) -> str | None:
    if served.size != full.size:
        return f"{served.size[0]}x{served.size[1]} px with the served font, {full.size[0]}x{full.size[1]} with the whole font"
    bbox = ImageChops.difference(served, full).getbbox()
    return None if bbox is None else f"pixels differ in {bbox} (x0, y0, x1, y1 within the formula)"


def test_every_formula_draws_as_with_the_whole_font(built, server, browser, page_checks, sources):
    width = WIDTH
    full_font = _full_font_bytes(built.project)
    assert full_font, f"no installed math font under {fonts.package_dir(built.project)}: nothing to compare with"
    assert list((built.site / fonts.SITE_FONT_DIR).glob("*.woff*")), "the build served no math font"
    pages = _math_pages(built)
    assert pages, "no built page holds <math>: the comparison ran on nothing"
    page_checks.key_also(b"".join(full_font[k] for k in sorted(full_font)))  # the oracle is not a file of the site
    page_checks.key_also(Path(fonts.__file__).read_bytes() + Path(site_assets.__file__).read_bytes())  # the URLs matched
    page_checks.key_also(ink_code())
    count, pairs, drawn_pages = 0, 0, []
    for rel in pages:
        recorded = page_checks.reused(rel)
        if recorded is None:
            drawn_pages.append(rel)
        else:
            count += recorded["formulas"]
            pairs += recorded["pairs"]
    ink: dict[str, tuple[list[str], int]] = {}

    def check_ink(page, rel):
        ink[rel] = ink_problems(page, rel, width, sources, built.site)

    served, fetched_served, loaded_served = _draw(browser, server, drawn_pages, width, None, check_ink)
    whole, fetched_whole, loaded_whole = _draw(browser, server, drawn_pages, width, full_font)
    for label, fetched in (("served", fetched_served), ("whole", fetched_whole)):
        assert fetched or not drawn_pages, (f"the browser fetched no math font URL with the {label} font: a local "
                                            "math font took over, so the drawings compare nothing")
    out = built.site.parent / f"formula-diffs-{width}"
    problems = []
    for rel in drawn_pages:
        assert len(served[rel]) == len(whole[rel]), f"{rel}: a different number of formulas was drawn"
        before = len(problems)
        problems += ink[rel][0]
        pairs += ink[rel][1]
        for i, ((box, a), (_, b)) in enumerate(zip(served[rel], whole[rel])):
            count += 1
            why = _differs(a, b)
            if why:
                out.mkdir(exist_ok=True)
                stem = f"{rel.replace('/', '_').removesuffix('.html')}-{i}"
                a.save(out / f"{stem}-served.png")
                b.save(out / f"{stem}-whole.png")
                where = (sources.display_formula(built.site, rel, box["label"]) if box["label"]
                         else sources.text(built.site, rel, box["before"]))
                problems.append(f"{where}: the formula {box['text']!r} draws glyphs the served math font lacks ({why}; "
                                f"on {rel}): the font subset misses them (journal_tools/mkdocs_plugin/formula_glyphs.py)")
        if len(problems) == before:
            page_checks.passed(rel, loaded_served.get(rel, []) + loaded_whole.get(rel, []), {"formulas": len(served[rel]), "pairs": ink[rel][1]})
    print(f"\n{count} formulas on {len(pages)} pages at {width} px drawn with the served and the whole font, "
          f"{pairs} scripts measured against their base on the ink{page_checks.note()}")
    assert pairs or not drawn_pages, "no script measured against its base on any page: the ink check ran on nothing"
    assert not problems, (f"{len(problems)} problems of formulas at {width} px: glyphs the served math font misses "
                          f"(both drawings in {out}), scripts that touch their base:\n" + "\n".join(problems))
