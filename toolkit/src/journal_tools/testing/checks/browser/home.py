"""The home page is the journal, and entries lead to each other.

- index.html lists the latest entries, newest first, each with its date, its
  title linking to the entry and an excerpt; it links to the archive, to every
  category that has entries (and names no category that has none: the blog's
  categories_allowed keeps empty ones for `make new`), to the tags page and
  to the feed.
- The tags page lists every tag of every entry.
- Each entry links to the previous (older) and the next (newer) entry, and
  to nothing past either end.
- Screenshots of the home page at 1280 px and 390 px, light palette, go to
  <build>/screenshots/ (home-1280.png, home-390.png).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit


class _Links(HTMLParser):
    """Every <a> (href, rel, class, text) and <time datetime> of a page, with the <article> (excerpt) each is in."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[dict] = []
        self.times: list[tuple[int, str]] = []
        self.articles = 0
        self._article = 0  # 1-based index of the open excerpt, 0 outside
        self._open: list[dict] = []
        self.text_parts: list[str] = []
        self.article_text: dict[int, str] = {}
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article":
            self.articles += 1
            self._article = self.articles
        elif tag == "a":
            link = {"href": a.get("href") or "", "rel": a.get("rel") or "", "class": a.get("class") or "",
                    "text": "", "article": self._article}
            self.links.append(link)
            self._open.append(link)
        elif tag == "time":
            self.times.append((self._article, a.get("datetime") or ""))
        elif tag in ("script", "style", "svg"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag == "article":
            self._article = 0
        elif tag == "a" and self._open:
            self._open.pop()
        elif tag in ("script", "style", "svg") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if self._skip:
            return
        for link in self._open:
            link["text"] += data
        self.text_parts.append(data)
        if self._article:
            self.article_text[self._article] = self.article_text.get(self._article, "") + " " + data

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.text_parts).split())


def parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8"))
    p.close()
    return p


def _target(site: Path, page_rel: str, href: str) -> Path | None:
    """The built file a relative link of page_rel points to (None: external)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    url = urljoin("/" + page_rel, parts.path)
    path = site / url.lstrip("/")
    return path / "index.html" if url.endswith("/") else path


def test_home_lists_latest_entries_newest_first(built, journal):
    entries = journal.entries  # drafts too: the test build lists them as it will once they are published
    home = parse(built.site / "index.html")
    assert home.articles >= min(len(entries), 1), "no entry excerpts on the home page"
    shown = []  # (article, title) in page order
    for link in home.links:
        if link["article"] and link["text"].strip() in {e.title for e in entries}:
            target = _target(built.site, "index.html", link["href"])
            assert target is not None and target.is_file(), f"home: link to {link['href']!r} resolves to nothing"
            if (link["article"], link["text"].strip()) not in shown:
                shown.append((link["article"], link["text"].strip()))
    newest_first = [e.title for e in reversed(entries)]
    titles = [t for _, t in shown]
    assert titles == newest_first[: len(titles)] and titles, f"home lists {titles}, expected newest first {newest_first}"
    by_title = {e.title: e for e in entries}
    for article, title in shown:
        dates = [d for a, d in home.times if a == article]
        assert any(d.startswith(by_title[title].date.isoformat()) for d in dates), (
            f"home: excerpt of {title!r} has no <time> with {by_title[title].date} (has {dates})")
        # An excerpt: text beyond the title, date, category and "Continue reading".
        links = " ".join(lk["text"] for lk in home.links if lk["article"] == article)
        text = " ".join(home.article_text[article].split())
        assert len(text) - len(" ".join(links.split())) > 80, f"home: no excerpt under {title!r}: {text!r}"


def test_home_links_archive_categories_tags_and_feed(built, journal):
    entries = journal.entries
    home = parse(built.site / "index.html")
    hrefs = {lk["href"] for lk in home.links}

    def resolves(pattern: str) -> list[str]:
        return [h for h in hrefs if re.search(pattern, h) and (_target(built.site, "index.html", h) or Path("/-")).is_file()]

    years = {f"{e.date:%Y}" for e in entries}
    for year in years:
        assert resolves(rf"archive/{year}/$"), f"home: no working link to the archive of {year} ({sorted(hrefs)})"
    used = {c for e in entries for c in e.categories}
    for category in used:
        slug = re.sub(r"[^a-z0-9]+", "-", category.lower()).strip("-")
        assert resolves(rf"category/{slug}/$"), f"home: no working link to category {category!r}"
    assert resolves(r"^tags/$"), "home: no working link to the tags page"
    assert resolves(r"feed_rss_created\.xml$"), "home: no working link to the RSS feed"
    # Categories allowed for new entries but without any: not on the home page.
    empty = [c for c in journal.settings.blog.categories_allowed if c not in used]
    named = [c for c in empty if re.search(rf"\b{re.escape(c)}\b", home.text, re.IGNORECASE)]
    assert not named, f"home page names categories with no entries: {named}"


def test_tags_page_lists_every_tag(built, journal):
    page = built.site / "tags" / "index.html"
    assert page.is_file(), "no tags page (docs/tags.md)"
    tags = parse(page)
    for entry in journal.entries:
        for tag in entry.tags:
            assert tag in tags.text, f"tags page: no tag {tag!r} (of {entry.name})"
        if entry.tags:  # an entry with no tags (make new starts with none) is on no tag's list
            assert any(lk["text"].strip() == entry.title for lk in tags.links), f"tags page: no link to {entry.title!r}"


def test_entries_link_previous_and_next(built, journal):
    entries = journal.entries
    on = journal.entry_pages(built.site)
    pages = [on[e] for e in entries]
    for i, rel in enumerate(pages):
        links = parse(built.site / rel).links
        for rel_name, j in (("prev", i - 1), ("next", i + 1)):
            found = [lk for lk in links if rel_name in lk["rel"].split()]
            if 0 <= j < len(pages):
                assert found, f"{rel}: no rel={rel_name} link (expected {entries[j].title!r})"
                target = _target(built.site, rel, found[0]["href"])
                assert target == built.site / pages[j], f"{rel}: rel={rel_name} goes to {found[0]['href']}, not {pages[j]}"
                assert entries[j].title in found[0]["text"]
                assert f"{entries[j].date:%B} {entries[j].date.day}, {entries[j].date:%Y}" in found[0]["text"]
            else:
                assert not found, f"{rel}: rel={rel_name} link past the end of the journal: {found}"


def test_home_screenshots(built, server, visit):
    shots = built.site / "screenshots"
    shots.mkdir(exist_ok=True)
    v = visit(color_scheme="light")
    for width in (1280, 390):
        v.page.set_viewport_size({"width": width, "height": 900})
        v.page.goto(server.url("index.html"), wait_until="load")
        v.page.evaluate("document.fonts.ready.then(() => true)")
        # The first entry's title is on the first screen, even on a phone.
        box = v.page.locator("article.md-post--excerpt h2").first.bounding_box()
        assert box is not None and box["y"] < 900 * 1.5, f"{width}px: the first entry starts at y={box}"
        path = shots / f"home-{width}.png"
        v.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
    assert not v.console_errors, v.console_errors

