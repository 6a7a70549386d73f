"""Every internal link of the built site lands somewhere: the file exists and
the #fragment is an id (or <a name>) on the target page. Tables of contents,
navigation, permalinks, excerpts, pagers and the 404 page included.

Read with html.parser over every HTML file of the session's build: <a href>,
<link href>, <img src>, <script src>. Internal means relative, root-relative
under site_url's path (as 404.html writes them), or absolute under site_url.
Links to other sites are not followed (the site works offline; checks/build.py
checks nothing is loaded from them).
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

_REF_ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src"}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.refs: list[tuple[str, str]] = []  # (tag, url)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        attr = _REF_ATTRS.get(tag)
        if attr and a.get(attr) is not None:
            self.refs.append((tag, a[attr]))


def read_page(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    p.close()
    return p


def broken_links(site: Path, site_url: str) -> list[str]:
    """'page: <tag> url: why' for every internal link of ``site`` that lands nowhere."""
    base_path = urlsplit(site_url).path or "/"
    pages = {p.relative_to(site).as_posix(): read_page(p) for p in sorted(site.rglob("*.html"))
             if "screenshots" not in p.relative_to(site).parts}
    problems = []
    for rel, page in pages.items():
        page_url = base_path + rel
        for tag, url in page.refs:
            parts = urlsplit(url)
            if parts.scheme in ("mailto", "data", "javascript"):
                continue
            if parts.scheme or parts.netloc:
                if not url.startswith(site_url):
                    continue  # another site
                path = urlsplit(url).path
            elif parts.path:
                path = urljoin(page_url, parts.path)
            else:
                path = page_url  # "#fragment" alone
            if not path.startswith(base_path):
                problems.append(f"{rel}: <{tag}> {url}: outside the site ({path})")
                continue
            target_rel = unquote(path[len(base_path):])
            if target_rel == "" or target_rel.endswith("/"):
                target_rel += "index.html"
            target = site / target_rel
            if not target.is_file():
                problems.append(f"{rel}: <{tag}> {url}: no file {target_rel}")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target_rel.endswith(".html"):
                ids = pages[target_rel].ids if target_rel in pages else read_page(target).ids
                if fragment not in ids:
                    problems.append(f"{rel}: <{tag}> {url}: no id {fragment!r} on {target_rel}")
    return problems


def test_every_internal_link_and_anchor_resolves(built, journal):
    pages = built.html_pages()
    assert len(pages) > 3
    problems = broken_links(built.site, journal.site_url)
    assert not problems, f"{len(problems)} broken links:\n" + "\n".join(problems)


