"""Feed descriptions from each post's rendered excerpt (MathML, absolute links, no title): mkdocs-rss-plugin
renders the excerpt with no extensions, but prefers ``page.meta["rss"]["feed_description"]``.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from journal_tools.core.settings import Settings

__all__ = ["excerpt_html", "set_description"]

_H1 = re.compile(r"\A\s*<h1\b[^>]*>.*?</h1>\s*", re.DOTALL)
_PERMALINK = re.compile(r'<a\b[^>]*\bclass="headerlink"[^>]*>.*?</a>', re.DOTALL)  # toc's ¶ links
# href/src attributes of the page as Python-Markdown and MkDocs wrote it (always double-quoted). A parser round trip would re-serialise the
# MathML and every entity to change these few attribute values.
_URL_ATTR = re.compile(r'\b(?P<attr>href|src)="(?P<url>[^"]*)"')


def excerpt_html(html: str, separator: str, page_url: str) -> str | None:
    """``html`` before ``separator``, title and permalinks dropped, links absolute from ``page_url``; None without a separator."""
    excerpt, found, _ = html.partition(separator)
    if not found:
        return None
    excerpt = _PERMALINK.sub("", _H1.sub("", excerpt, count=1))
    return _URL_ATTR.sub(lambda m: f'{m["attr"]}="{_absolute(m["url"], page_url)}"', excerpt).strip()


def _absolute(url: str, base: str) -> str:
    if urlsplit(url).scheme or url.startswith("//"):  # http:, mailto:, data: ... stay as written
        return url
    return urljoin(base, url)


def set_description(page, html: str, settings: Settings, notice: str = "") -> None:
    """Give mkdocs-rss-plugin the post's excerpt as its description, opening with ``notice`` (the editors' line) if any."""
    if not settings.site_url or settings.blog is None:
        return
    page_url = urljoin(settings.site_url if settings.site_url.endswith("/") else settings.site_url + "/", page.url)
    excerpt = excerpt_html(html, settings.blog.excerpt_separator, page_url)
    rss = page.meta.setdefault("rss", {})
    if excerpt is not None and isinstance(rss, dict):
        rss.setdefault("feed_description", f"{notice}\n{excerpt}" if notice else excerpt)
