"""The built site in a real browser (headless Chromium, Playwright sync API).

Every HTML page of the session's build is loaded from a local server with
every request to another host aborted and counted. Each page must have: no
console errors, no outside requests, every <math> rendered with a size and no
raw TeX left in the text, every <img> loaded, every figure SVG with a size.
Then the search, the light/dark toggle and the RSS feeds. Screenshots of the
home page, each entry and each notebook page go to <build>/screenshots/.
"""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from mkdocs.utils import meta as mkdocs_meta

# Per page, in the browser: what went wrong with math, text, images, figures.
CHECK_PAGE = r"""
async () => {
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
  return {problems, maths: document.querySelectorAll('math').length, imgs: imgs.length, svgs: svgs.length};
}
"""

ENTRY_PAGE = re.compile(r"^blog/\d{4}/\d{2}/\d{2}/[^/]+/index\.html$")
NOTEBOOK_PAGE = re.compile(r"^notebooks/.+/index\.html$")


def screenshot_name(rel: str) -> str | None:
    if rel == "index.html":
        return "home.png"
    if ENTRY_PAGE.match(rel) or NOTEBOOK_PAGE.match(rel):
        return rel.removesuffix("/index.html").replace("/", "_") + ".png"
    return None


def located(sources, site, rel: str, problem: dict) -> str:
    """A problem CHECK_PAGE found, with the source ``file:line`` first."""
    if problem.get("formula"):
        where = sources.display_formula(site, rel, problem["formula"])
    else:
        where = sources.text(site, rel, problem.get("text", ""))
    return f"{where}: {problem['says']} (on {rel})"


def test_every_page_in_the_browser(built, server, visit, page_checks, sources):
    pages = [p.relative_to(built.site).as_posix() for p in built.html_pages()]
    assert "index.html" in pages
    shots = built.site / "screenshots"
    shots.mkdir(exist_ok=True)
    problems: list[str] = []
    taken: list[str] = []
    totals = {"maths": 0, "imgs": 0, "svgs": 0}
    v = visit()
    for rel in pages:
        name = screenshot_name(rel)
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
        result = v.page.evaluate(CHECK_PAGE)
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
        # (Material caches what it fetches per browser session: a request made
        # once for the whole site shows up on the first page loaded.)
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
    entries = [r for r in pages if ENTRY_PAGE.match(r)]
    assert entries and "home.png" in taken
    assert all(screenshot_name(r) in taken for r in entries)


def _entries(project: Path) -> dict[str, dict]:
    """{title (first # heading): front matter} for each entry that is built."""
    found = {}
    for path in sorted((project / "docs" / "blog" / "posts").glob("*.md")):
        body, meta = mkdocs_meta.get_data(path.read_text(encoding="utf-8"))
        if meta.get("draft"):
            continue
        title = meta.get("title") or re.search(r"(?m)^# (.+)$", body).group(1).strip()
        found[title] = meta | {"_file": path.name}
    return found


CAUSAL_ENTRY = "2025-07-27-weights-and-causal-attention.md"


def test_search_finds_the_causal_attention_entry(built, server, visit):
    titles = {meta["_file"]: title for title, meta in _entries(built.project).items()}
    assert CAUSAL_ENTRY in titles, f"{CAUSAL_ENTRY} not among the entries: {sorted(titles)}"
    title = titles[CAUSAL_ENTRY]
    v = visit()
    v.page.goto(server.url("index.html"), wait_until="load")
    box = v.page.locator("input[data-md-component='search-query']")
    box.click()
    box.type("causal", delay=30)
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


@pytest.mark.parametrize("feed", ["feed_rss_created.xml", "feed_rss_updated.xml"])
def test_rss_feed_lists_every_entry_with_its_date(built, feed):
    path = built.site / feed
    assert path.is_file(), f"{feed} not built"
    channel = ET.parse(path).getroot().find("channel")  # raises on invalid XML
    assert channel is not None, f"{feed}: no <channel>"
    items = {item.findtext("title", "").strip(): item for item in channel.findall("item")}
    missing, wrong = [], []
    for title, meta in _entries(built.project).items():
        item = items.get(title)
        if item is None:
            missing.append(f"{meta['_file']} ({title!r})")
            continue
        date = meta["date"]["created"] if isinstance(meta["date"], dict) else meta["date"]
        got = parsedate_to_datetime(item.findtext("pubDate")).date()
        if got != date:
            wrong.append(f"{meta['_file']}: feed says {got}, front matter {date}")
    assert not missing, f"{feed}: entries missing from the feed: {missing} (items: {sorted(items)})"
    assert not wrong, f"{feed}: " + "; ".join(wrong)
