"""Every feed the build writes, read as a feed reader reads it.

RSS feeds (feed_rss_*.xml) are parsed with feedparser (pinned in
requirements.txt), JSON feeds (feed_json_*.json) with json. For every item of
every feed, the description a reader shows:

- holds no raw TeX ($, \\( \\[, \\begin): math reaches readers as MathML;
- links (href, src) only to absolute URLs under site_url (a reader shows the
  description away from the site, so a relative link or a link to a source
  file such as 2025-07-26-x.md is broken there), each of which names a file
  of the built site, and each #fragment an id on that page;
- does not repeat the item's title as an <h1> (the reader shows the title).

feedparser is run with relative-URL resolution off for the link check (it
would otherwise quietly turn a relative link into an absolute one) and as a
reader runs it (defaults) for the TeX check.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import feedparser
import pytest

from journal_tools.testing.site import ROOT

TEX = re.compile(r"\$|\\\(|\\\[|\\begin\b")


def _site_url(project: Path) -> str:
    m = re.search(r"(?m)^site_url:\s*['\"]?([^'\"\s]+)", (project / "mkdocs.yml").read_text(encoding="utf-8"))
    assert m, "no site_url in mkdocs.yml"
    return m.group(1).rstrip("/") + "/"


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


def built_file(site: Path, site_url: str, url: str) -> Path | None:
    """The file of ``site`` that ``url`` (absolute, under site_url) names."""
    if not url.startswith(site_url):
        return None
    path = unquote(urlsplit(url).path[len(urlsplit(site_url).path):])
    target = site / path
    return target / "index.html" if (path == "" or path.endswith("/")) else target


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


def test_every_feed_has_usable_descriptions(built):
    site_url = _site_url(built.project)
    found = feeds(built.site)
    names = [p.name for p in found]
    assert "feed_rss_created.xml" in names and "feed_rss_updated.xml" in names, names
    problems = []
    n_items = 0
    for path in found:
        # As written in the feed (no resolution of relative links) ...
        raw = items(path, resolve_relative_uris=False, sanitize_html=False)
        assert raw, f"{path.name}: no items"
        n_items += len(raw)
        for title, html in raw:
            problems += [f"{path.name}: {title!r}: {p}" for p in description_problems(built.site, site_url, title, html)]
        # ... and as a reader shows it (sanitised): still no TeX.
        if path.suffix == ".xml":
            for title, html in items(path):
                problems += [f"{path.name} (as a reader shows it): {title!r}: raw TeX {m.group(0)!r}"
                             for m in TEX.finditer(re.sub(r"<[^>]+>", " ", html))]
    assert not problems, f"{len(problems)} problems in {n_items} feed items:\n" + "\n".join(problems)


@pytest.mark.parametrize("html, expected", [
    ('<h1>T</h1><p>x</p>', "<h1>T</h1> in the description (the item's title again)"),
    ('<p>In our <a href="2025-07-26-x.md">walkthrough</a></p>', "is not an absolute URL under"),
    ('<p><a href="https://example.github.io/llm-journal/nope/">x</a></p>', "no such file in the built site"),
    ('<p>weights $W^{Q}$</p>', "raw TeX '$'"),
    ('<p>\\(x\\) and \\begin{bmatrix}</p>', "raw TeX '\\\\('"),
])
def test_description_check_catches_bad_items(tmp_path, html, expected):
    (tmp_path / "index.html").write_text("<h1 id='top'>home</h1>", encoding="utf-8")
    problems = description_problems(tmp_path, "https://example.github.io/llm-journal/", "T", html)
    assert any(expected in p for p in problems), problems


def test_site_url_is_read_from_the_project():
    assert _site_url(ROOT).startswith("http")


def test_excerpt_for_feed_drops_title_and_permalinks_and_makes_links_absolute():
    from journal_tools.mkdocs_plugin.feeds import excerpt_html

    def excerpt_for_feed(html, url):
        return excerpt_html(html, "<!-- more -->", url)

    html = ('<h1 id="t">Title<a class="headerlink" href="#t" title="Permanent link">¶</a></h1>\n'
            '<p>See <a href="../../26/x/">the last one</a>, <a href="#sec">below</a>, '
            '<img src="../img.svg" alt=""> and <a href="https://other.org/">elsewhere</a>.</p>\n'
            "<!-- more -->\n<p>not in the feed</p>")
    out = excerpt_for_feed(html, "https://example.github.io/j/blog/2025/07/27/y/")
    assert out == ('<p>See <a href="https://example.github.io/j/blog/2025/07/26/x/">the last one</a>, '
                   '<a href="https://example.github.io/j/blog/2025/07/27/y/#sec">below</a>, '
                   '<img src="https://example.github.io/j/blog/2025/07/27/img.svg" alt=""> and '
                   '<a href="https://other.org/">elsewhere</a>.</p>')
    assert excerpt_for_feed("<p>no separator</p>", "https://x.org/") is None
