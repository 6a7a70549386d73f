"""The built site in a real browser (headless Chromium, Playwright sync API).

Every HTML page of the session's build is loaded from a local server with
every request to another host aborted and counted. Each page must have: no
axe violation in the light palette (axe.py's rules), no console errors, no outside requests, every <math> rendered with a size and no
raw TeX left in the text, every <img> loaded, every figure SVG with a size,
no code block or notebook output that scrolls sideways at this width (1280 px:
ruff's line length is what the code column shows) and no figure text under
MIN_FIGURE_TEXT_PX high.
Then the search and the light/dark toggle. Screenshots of the home page, each
entry and each notebook page go to <build>/screenshots/.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import urlsplit

from journal_tools.testing.checks.browser import axe

# What must not scroll sideways at 1280 px: code blocks and printed outputs (a display formula may: it is no code).
CODE_BOXES = ".md-typeset pre > code, .jupyter-wrapper .jp-RenderedText.jp-OutputArea-output"
MIN_FIGURE_TEXT_PX = 9  # the smallest text of a figure, drawn in a 1280 px window

# Per page, in the browser: what went wrong with math, text, images, figures, code widths.
CHECK_PAGE = r"""
async ([boxes, minText]) => {
  const problems = [];
  const where = (el) => {
    const id = el.closest('[id]');
    return id ? '#' + id.id : el.tagName.toLowerCase();
  };
  const hidden = (el) => el.closest('details:not([open])') !== null;
  // The last words before an element in its paragraph: what its source line holds too.
  const before = (el) => {
    const block = el.closest('p, li, td, h1, h2, h3, h4, figure, div') || el.parentElement;
    const range = document.createRange();
    range.setStart(block, 0);
    range.setEndBefore(el);
    return range.toString().replace(/\s+/g, ' ').trim().split(' ').slice(-3).join(' ');
  };
  // math: rendered with a size
  document.querySelectorAll('math').forEach((m, i) => {
    if (hidden(m)) return;
    const r = m.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) {
      const display = m.closest('.math-display');
      problems.push({formula: display ? display.getAttribute('aria-label') || '' : null, text: before(m),
                     says: `the formula ${JSON.stringify(m.textContent.slice(0, 60))} near ${where(m)} has no size ` +
                           `(${r.width}x${r.height}): check its TeX converts as you meant (make check PAGE=...)`});
    }
  });
  // raw TeX in the text a reader sees (code, scripts and math left out)
  const skip = new Set(['PRE', 'CODE', 'SCRIPT', 'STYLE', 'TEXTAREA', 'KBD', 'SAMP']);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      for (let el = node.parentElement; el; el = el.parentElement) {
        if (skip.has(el.tagName) || el.namespaceURI === 'http://www.w3.org/1998/Math/MathML') {
          return NodeFilter.FILTER_REJECT;
        }
      }
      return NodeFilter.FILTER_ACCEPT;
    }
  });
  const tex = /\\\(|\\\[|\$\$|\\begin\{/;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const m = n.textContent.match(tex);
    if (m) {
      const t = n.textContent;
      const at = t.indexOf(m[0]);
      problems.push({text: t.slice(at, at + 30).split('\n')[0],
                     says: `raw TeX ${JSON.stringify(m[0])} near ${where(n.parentElement)} is shown as text: ` +
                           JSON.stringify(t.slice(Math.max(0, at - 30), at + 40)) +
                           ': close the formula, or escape the characters that open one'});
    }
  }
  // images: loaded (lazy ones are made eager first)
  const imgs = [...document.images];
  imgs.forEach((img) => { img.loading = 'eager'; });
  await Promise.all(imgs.map((img) => img.decode().catch(() => null)));
  imgs.forEach((img) => {
    if (!(img.complete && img.naturalWidth > 0)) {
      const src = img.getAttribute('src');
      problems.push({text: src.split('/').pop().slice(0, 80),
                     says: `the image ${JSON.stringify(src.slice(0, 80))} did not load: check its path and that the file is under docs/`});
    }
  });
  // figures: inline SVGs with a size
  const svgs = document.querySelectorAll('figure svg, .journal-figure svg');
  svgs.forEach((svg, i) => {
    if (hidden(svg)) return;
    const r = svg.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) {
      problems.push({text: 'journal:figure',
                     says: `the figure near ${where(svg)} has no size (${r.width}x${r.height}): ` +
                           'its function must return an SVG with a width and height (or a viewBox)'});
    }
  });
  // code and outputs (the phone check's boxes but formulas): nothing to scroll sideways to
  document.querySelectorAll(boxes).forEach((el) => {
    if (el.matches('.math-display') || hidden(el) || el.scrollWidth <= el.clientWidth + 1) return;
    const isCode = el.matches('pre > code');
    const cell = el.closest('.jp-Cell');
    const code = isCode ? el : cell && cell.querySelector('pre > code');
    problems.push({code: code ? code.textContent : '',
                   says: `${isCode ? 'a code block' : 'the output of this cell'} scrolls sideways ` +
                         `(${el.scrollWidth} > ${el.clientWidth} px): ${isCode ? 'wrap its lines at' : 'print lines of at most'} ` +
                         "ruff's line-length (pyproject.toml), what the code column shows"});
  });
  // figure text: readable without zooming
  document.querySelectorAll('figure').forEach((fig) => {
    const heights = [...fig.querySelectorAll('svg text')].filter((t) => !hidden(t))
      .map((t) => t.getBoundingClientRect().height);
    const smallest = Math.min(...heights);
    if (heights.length && smallest < minText) {
      const caption = fig.querySelector('figcaption');
      problems.push({text: caption ? caption.textContent.split(/\s+/).slice(0, 6).join(' ') : 'journal:figure',
                     says: `a figure's text is ${smallest.toFixed(1)} px high, under ${minText} px: ` +
                           'draw it with larger type or fewer panels a row'});
    }
  });
  return {problems, maths: document.querySelectorAll('math').length, imgs: imgs.length, svgs: svgs.length};
}
"""

def screenshot_names(journal, site) -> dict[str, str]:
    """{built page: its screenshot's name}: the home page, each entry and each notebook page."""
    shown = ["index.html", *journal.entry_pages(site).values()]
    for path in journal.settings.docs_dir.rglob("*"):
        if journal.settings.is_notebook(path):
            rel = path.relative_to(journal.settings.docs_dir).with_suffix("").as_posix() + "/index.html"
            shown.append(rel)
    return {rel: "home.png" if rel == "index.html" else rel.removesuffix("/index.html").replace("/", "_") + ".png"
            for rel in shown}


def located(sources, site, rel: str, problem: dict) -> str:
    """A problem CHECK_PAGE found, with the source ``file:line`` first."""
    if problem.get("formula"):
        where = sources.display_formula(site, rel, problem["formula"])
    elif "code" in problem:
        where = sources.code(site, rel, problem["code"])
    else:
        where = sources.text(site, rel, problem.get("text", ""))
    return f"{where}: {problem['says']} (on {rel})"


def test_every_page_in_the_browser(built, journal, server, visit, page_checks, sources):
    pages = [p.relative_to(built.site).as_posix() for p in built.html_pages()]
    assert "index.html" in pages
    names = screenshot_names(journal, built.site)
    shots = built.site / "screenshots"
    shots.mkdir(exist_ok=True)
    problems: list[str] = []
    taken: list[str] = []
    totals = {"maths": 0, "imgs": 0, "svgs": 0}
    v = visit()
    for rel in pages:
        name = names.get(rel)
        recorded = page_checks.reused(rel)
        if recorded is not None and (not name or "screenshot" in recorded):  # its screenshot is kept with its record
            for key in totals:
                totals[key] += recorded[key]
            if name:
                (shots / name).write_bytes(base64.b64decode(recorded["screenshot"]))
                taken.append(name)
            continue
        v.console_errors.clear()
        v.outside.clear()
        v.fetched.clear()
        before = len(problems)
        response = v.page.goto(server.url(rel), wait_until="load")
        if response is None or not response.ok:
            problems.append(f"{rel}: HTTP {response.status if response else 'no response'}")
            continue
        v.page.evaluate("document.fonts.ready.then(() => true)")
        scheme = v.page.evaluate("document.body.getAttribute('data-md-color-scheme')")
        if scheme != axe.SCHEMES["light"]:
            problems.append(f"{rel}: Material's scheme is {scheme!r}, not the light one the browser asked for")
        # axe on the page as the reader gets it, before the checks below touch it (this load is the light
        # palette's at 1280 px: axe's own load of each page cost as much again; the dark one is axe.py's).
        problems += axe.describe(axe.axe_violations(v.page), f"{rel} (light, 1280px)", sources, built.site, rel)
        result = v.page.evaluate(CHECK_PAGE, [CODE_BOXES, MIN_FIGURE_TEXT_PX])
        for key in totals:
            totals[key] += result[key]
        counts = {key: result[key] for key in totals}
        problems += [located(sources, built.site, rel, p) for p in result["problems"]]
        if name:  # shot while the page's late requests run (the wait below is at least 500 ms of quiet)
            v.page.screenshot(path=str(shots / name), full_page=True)
            taken.append(name)
        v.page.wait_for_load_state("networkidle")
        page_line = sources.text(built.site, rel, "")
        problems += [f"{page_line}: {e} (on {rel}): a script of the page or the site's theme failed" for e in v.console_errors]
        # (Material caches what it fetches per browser session: a request made once for the whole site shows up on the first page loaded.)
        problems += [f"{sources.text(built.site, rel, urlsplit(u).netloc)}: request to another host (aborted): {u} "
                     f"(on {rel}): the site must work offline; serve the file from docs/ instead" for u in v.outside]
        if len(problems) == before:
            if name:
                counts["screenshot"] = base64.b64encode((shots / name).read_bytes()).decode()
            page_checks.passed(rel, v.fetched, counts)
    print(f"\n{len(pages)} pages checked{page_checks.note()} ({totals['maths']} <math>, {totals['imgs']} <img>, "
          f"{totals['svgs']} figure <svg>); screenshots in {shots}: {', '.join(taken)}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
    assert totals["maths"] > 0, "no <math> on any page: math checks ran on nothing"
    missing = sorted(set(names.values()) - set(taken))
    assert not missing, f"no screenshot of {missing}: their pages were not built where the journal says"


def _search_word(title: str) -> str:
    """The longest word of an entry's title: what a reader would type to find it."""
    return max(re.findall(r"[^\W\d_]{4,}", title) or [title], key=len)


def test_search_finds_the_newest_entry(built, journal, server, visit):
    title = journal.published()[-1].title
    v = visit()
    v.page.goto(server.url("index.html"), wait_until="load")
    box = v.page.locator("input[data-md-component='search-query']")
    box.click()
    box.type(_search_word(title), delay=30)
    results = v.page.locator(".md-search-result__item")
    results.first.wait_for(timeout=15000)
    v.page.wait_for_function(
        "(t) => [...document.querySelectorAll('.md-search-result__item')].some(li => li.textContent.includes(t))",
        arg=title, timeout=15000,
    )
    assert not v.console_errors, v.console_errors  # (outside requests: test_every_page_in_the_browser)


def test_palette_toggle_switches_light_and_dark(built, server, visit):
    v = visit(color_scheme="light")
    v.page.goto(server.url("index.html"), wait_until="load")
    scheme = lambda: v.page.evaluate("document.body.getAttribute('data-md-color-scheme')")  # noqa: E731
    assert scheme() == "default"
    toggle = "form[data-md-component='palette'] label.md-header__button:visible"
    v.page.locator(toggle).first.click()
    v.page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'", timeout=5000)
    v.page.locator(toggle).first.click()
    v.page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'default'", timeout=5000)
    assert scheme() == "default"
    assert not v.console_errors, v.console_errors
