"""Feed item descriptions that work in a feed reader.

mkdocs-rss-plugin 1.19 makes an entry's description by running plain
``markdown.markdown`` on the Markdown before ``<!-- more -->``: none of the
site's extensions or link handling, so the description repeated the title as
an ``<h1>``, kept links to source files (``2025-07-26-x.md``, which no reader
can open) and kept TeX as typed.

It takes ``page.meta["rss"]["feed_description"]`` verbatim when set, and
reads it in its own ``on_page_content`` (priority -75), after the hooks'.
:func:`set_feed_description` sets it from the page's *rendered* excerpt: the
HTML the site shows before the separator, so links already point at built
pages and math is MathML, with

- the title's ``<h1>`` left out (the item has the title already),
- heading permalinks (``¶``) left out,
- every relative ``href``/``src`` made absolute against the page's URL under
  ``site_url`` (readers show descriptions away from the site).

tests/test_feeds.py reads every feed the build writes.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

__all__ = ["SEPARATOR", "excerpt_for_feed", "set_feed_description"]

SEPARATOR = "<!-- more -->"  # the blog plugin's post_excerpt_separator (default)

_FIRST_H1 = re.compile(r"\s*<h1\b[^>]*>.*?</h1>\s*", re.DOTALL | re.IGNORECASE)
_PERMALINK = re.compile(r'<a\b[^>]*\bclass="headerlink"[^>]*>.*?</a>', re.DOTALL)
_URL_ATTR = re.compile(r'\b(?P<attr>href|src)="(?P<url>[^"]*)"')


def _absolute(url: str, base: str) -> str:
    parts = urlsplit(url)
    if parts.scheme or url.startswith("//") or url.startswith(("mailto:", "data:")):
        return url
    return urljoin(base, url)


def excerpt_for_feed(html: str, page_url: str, separator: str = SEPARATOR) -> str | None:
    """The part of a rendered page before ``separator``, made fit for a feed
    (see the module doc); None when the page has no separator."""
    head, found, _ = html.partition(separator)
    if not found:
        return None
    head = _FIRST_H1.sub("", head, count=1)
    head = _PERMALINK.sub("", head)
    head = _URL_ATTR.sub(lambda m: f'{m["attr"]}="{_absolute(m["url"], page_url)}"', head)
    return head.strip()


def set_feed_description(html: str, page, separator: str = SEPARATOR) -> None:
    """Give a post its feed description (page.meta["rss"]["feed_description"])
    from its rendered excerpt. Pages without the separator, without a
    canonical URL (no site_url) or with their own description are left alone."""
    url = getattr(page, "canonical_url", None)
    rss = page.meta.setdefault("rss", {}) if isinstance(page.meta.get("rss", {}), dict) else None
    if not url or rss is None or rss.get("feed_description"):
        return
    description = excerpt_for_feed(html, url, separator)
    if description:
        rss["feed_description"] = description
