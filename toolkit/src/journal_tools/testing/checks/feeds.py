"""Every feed the build writes, read as a feed reader reads it: every published entry in each
RSS feed with its front matter's date, and each item's description usable away from the site.

RSS feeds (feed_rss_*.xml) are parsed with feedparser (pinned in
requirements.txt), JSON feeds (feed_json_*.json) with json. For every item of
every feed, the description a reader shows:

- holds no raw TeX ($, \\( \\[, \\begin): math reaches readers as MathML;
- links (href, src) only to absolute URLs under site_url (a reader shows the
  description away from the site, so a relative link or a link to a source
  file such as an entry's .md is broken there), each of which names a file
  of the built site, and each #fragment an id on that page;
- does not repeat the item's title as an <h1> (the reader shows the title);
- opens with the line on the editors' words exactly when its entry marks some (core/page/editors.py), as the
  entry's page and its downloads do.

feedparser is run with relative-URL resolution off for the link check (it
would otherwise quietly turn a relative link into an absolute one) and as a
reader runs it (defaults) for the TeX check.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from email.utils import parsedate_to_datetime
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import feedparser

from journal_tools.core.page import editors
from journal_tools.testing.journal import built_file

TEX = re.compile(r"\$|\\\(|\\\[|\\begin\b")


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs: list[str] = []
        self.h1: list[str] = []
        self.ids: set[str] = set()
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("href", "src"):
            if a.get(key) is not None:
                self.refs.append(a[key])
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        if tag == "h1":
            self._in_h1 = True
            self.h1.append("")

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data):
        if self._in_h1:
            self.h1[-1] += data


def refs_of(html: str) -> _Refs:
    p = _Refs()
    p.feed(html)
    p.close()
    return p


def description_problems(site: Path, site_url: str, title: str, html: str) -> list[str]:
    problems = []
    text = re.sub(r"<[^>]+>", " ", html)
    for m in TEX.finditer(text):
        problems.append(f"raw TeX {m.group(0)!r}: ...{' '.join(text[max(0, m.start() - 40):m.end() + 40].split())}...")
    refs = refs_of(html)
    for h1 in refs.h1:
        problems.append(f"<h1>{' '.join(h1.split())}</h1> in the description" +
                        (" (the item's title again)" if " ".join(h1.split()) == title else ""))
    for url in refs.refs:
        target = built_file(site, site_url, url)
        if target is None:
            if not url.startswith(("http://", "https://")) or url.startswith(site_url[: len(site_url) - 1]):
                problems.append(f"link {url!r} is not an absolute URL under {site_url}")
            continue  # another site: not ours to check
        if not target.is_file():
            problems.append(f"link {url!r}: no such file in the built site ({target.relative_to(site)})")
            continue
        fragment = urlsplit(url).fragment
        if fragment and target.suffix == ".html" and unquote(fragment) not in refs_of(target.read_text(encoding="utf-8")).ids:
            problems.append(f"link {url!r}: no id {fragment!r} on {target.relative_to(site)}")
    return problems


def feeds(site: Path) -> list[Path]:
    return sorted(site.glob("feed_*.xml")) + sorted(site.glob("feed_*.json"))


def items(path: Path, **parse_options) -> list[tuple[str, str]]:
    """(title, description HTML) of every item of the feed at ``path``."""
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        return [(it.get("title", ""), it.get("content_html") or it.get("summary") or "") for it in data["items"]]
    parsed = feedparser.parse(str(path), **parse_options)
    assert not parsed.bozo, f"{path.name}: not a well-formed feed: {parsed.bozo_exception}"
    return [(e.get("title", ""), e.get("summary", "")) for e in parsed.entries]


def test_every_feed_has_usable_descriptions(built, journal):
    site_url = journal.site_url
    found = feeds(built.site)
    assert found, "the build wrote no feed (feed_*.xml, feed_*.json)"
    problems = []
    n_items = 0
    for path in found:
        # As written in the feed (no resolution of relative links) ...
        raw = items(path, resolve_relative_uris=False, sanitize_html=False)
        assert raw, f"{path.name}: no items"
        n_items += len(raw)
        for title, html in raw:
            if not html:
                problems.append(f"{path.name}: {title!r}: no description")
            problems += [f"{path.name}: {title!r}: {p}" for p in description_problems(built.site, site_url, title, html)]
        # ... and as a reader shows it (sanitised): still no TeX.
        if path.suffix == ".xml":
            for title, html in items(path):
                problems += [f"{path.name} (as a reader shows it): {title!r}: raw TeX {m.group(0)!r}"
                             for m in TEX.finditer(re.sub(r"<[^>]+>", " ", html))]
    assert not problems, f"{len(problems)} problems in {n_items} feed items:\n" + "\n".join(problems)




def test_every_rss_feed_lists_every_entry_with_its_date(built, journal):
    """Every published entry is in each RSS feed, with its title, front-matter date (never git's) and link under site_url; the logo too."""
    rss = sorted(built.site.glob("feed_rss_*.xml"))
    assert rss, "the build wrote no RSS feed (feed_rss_*.xml)"
    published = journal.published()
    for feed in rss:
        channel = ET.parse(feed).getroot().find("channel")  # raises on invalid XML
        assert channel is not None, f"{feed.name}: no <channel>"
        image = channel.findtext("image/url")
        assert image is None or image.startswith(journal.site_url), f"{feed.name}: logo {image} not under {journal.site_url}"
        items = {item.findtext("title", "").strip(): item for item in channel.findall("item")}
        assert len(items) == len(published), (f"{feed.name}: {len(items)} items for {len(published)} published entries "
                                              f"({sorted(items)})")
        problems = []
        for entry in published:
            item = items.get(entry.title)
            if item is None:
                problems.append(f"{journal.settings.rel(entry.path)} ({entry.title!r}) is not in the feed")
                continue
            got = parsedate_to_datetime(item.findtext("pubDate")).date()
            if got != entry.date:
                problems.append(f"{journal.settings.rel(entry.path)}: the feed says {got}, its front matter {entry.date}")
            if not item.findtext("link", "").startswith(journal.site_url):
                problems.append(f"{journal.settings.rel(entry.path)}: link {item.findtext('link')} not under {journal.site_url}")
        assert not problems, f"{feed.name}:\n" + "\n".join(problems)


def test_entries_write_dates_one_way(journal):
    """date_from_meta reads one key: every entry has a `date: YYYY-MM-DD` line."""
    bad = [journal.settings.rel(e.path) for e in journal.entries
           if not re.search(r"^date: \d{4}-\d{2}-\d{2}\s*$", e.path.read_text(encoding="utf-8").split("\n---", 1)[0], re.M)]
    assert not bad, f"entries without a `date: YYYY-MM-DD` line: {bad}"


def test_an_entry_with_editors_words_says_so_in_its_page_its_feed_items_and_its_downloads(built, journal):
    """The editors' words an entry marks are said once at the top of its page, of its feed items' descriptions and of
    its .py download; an entry without any says nothing of them there."""
    notice = editors.NOTICE
    pages = journal.entry_pages(built.site)
    descriptions: dict[str, list[str]] = {}
    for path in built.site.glob("feed_rss_*.xml"):
        for title, html in items(path, resolve_relative_uris=False, sanitize_html=False):
            descriptions.setdefault(title, []).append(html)
    problems = []
    for entry in journal.published():
        marked = editors.line_ranges(entry.path.read_text(encoding="utf-8"))
        where = f"{journal.settings.rel(entry.path)}:{marked[0].start if marked else 1}"
        html = (built.site / pages[entry]).read_text(encoding="utf-8")
        said = {"its page": notice in html.split("</h1>", 1)[-1][:4000],
                **{f"feed item {n}": d.lstrip().startswith(f'<p class="journal-editors-notice" data-search-exclude>{notice}')
                   for n, d in enumerate(descriptions.get(entry.title, []), 1)}}
        download = built.site / "downloads" / f"{entry.path.stem}.py"
        if download.is_file():
            said["its .py download"] = notice.split(" is by ")[0] in download.read_text(encoding="utf-8")[:2000]
        wrong = [name for name, says in said.items() if says != bool(marked)]
        if wrong:
            problems.append(f"{where}: the entry {'marks' if marked else 'marks no'} editors' words, but the top of "
                            f"{', '.join(wrong)} {'does not say so' if marked else 'says it does'} (core/page/editors.py)")
    assert not problems, "\n".join(problems)
