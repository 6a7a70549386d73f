"""Link previews of entries, offline: a description from the excerpt (plain text, formulas as their TeX, at most
:data:`LIMIT` characters), Open Graph tags and a Twitter ``summary`` card, set in ``page.meta`` for Material's ``base.html``
and ``theme/main.html``; an author's ``description:`` wins.
"""

from __future__ import annotations

import datetime as dt
from html.parser import HTMLParser

from markupsafe import Markup

from journal_tools.core.settings import Settings
from journal_tools.mkdocs_plugin.feeds import excerpt_html

__all__ = ["LIMIT", "META_KEY", "describe", "plain_text", "published", "summary"]

LIMIT = 160  # what search results and link previews show of a description before cutting it
META_KEY = "journal_preview"  # page.meta key of the (attribute, name, content) tags main.html writes

# Text a preview cannot show: scripts, styles, drawings; a formula shows its TeX (its alttext, core/markup/mathml.py).
_SKIPPED = {"script", "style", "svg", "math", "button", "template"}
_BLOCKS = {"p", "div", "li", "ul", "ol", "br", "tr", "td", "th", "pre", "blockquote", "figure", "figcaption",
           "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "table", "details", "summary"}


class _Text(HTMLParser):
    """The text of an HTML fragment, each ``<math>`` as the TeX it was written in."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping: list[str] = []  # the skipped element's tag, once per nesting level

    def handle_starttag(self, tag, attrs):
        if self.skipping:
            if tag == self.skipping[0]:
                self.skipping.append(tag)
            return
        if tag in _SKIPPED:
            self.skipping.append(tag)
            if tag == "math":
                self.out.append(dict(attrs).get("alttext") or "")
        elif tag in _BLOCKS:
            self.out.append(" ")

    def handle_startendtag(self, tag, attrs):
        if tag in _BLOCKS and not self.skipping:
            self.out.append(" ")

    def handle_endtag(self, tag):
        if self.skipping:
            if tag == self.skipping[0]:
                self.skipping.pop()
            return
        if tag in _BLOCKS:
            self.out.append(" ")

    def handle_data(self, data):
        if not self.skipping:
            self.out.append(data)


def plain_text(html: str) -> str:
    """The text a reader sees in an HTML fragment, one line, formulas as their TeX."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    text = " ".join("".join(parser.out).split())
    for mark in (",", ".", ";", ":", ")", "!", "?"):
        text = text.replace(f" {mark}", mark)
    return text.replace("( ", "(")


def summary(text: str, limit: int = LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, ending with "…" when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-–—") + "…"


def published(page) -> dt.datetime | dt.date | None:
    """The post's date as Material's blog read it (``date:`` or ``date.created``)."""
    date = getattr(getattr(getattr(page, "config", None), "date", None), "created", None)
    if date is None:
        raw = page.meta.get("date")
        date = raw.get("created") if isinstance(raw, dict) else raw
    return date if isinstance(date, (dt.date, dt.datetime)) else None


def _iso(date: dt.date | dt.datetime) -> str:
    """ISO 8601: the date alone when the front matter gave no time of day."""
    if isinstance(date, dt.datetime) and date.time() == dt.time(0) and date.tzinfo is None:
        return date.date().isoformat()
    return date.isoformat()


def describe(page, html: str, settings: Settings, site_name: str) -> None:
    """Give a post's page its description and its preview tags (from ``html``, the rendered post)."""
    if settings.blog is None:
        return
    excerpt = excerpt_html(html, settings.blog.excerpt_separator, page.canonical_url or page.url)
    if excerpt is None:
        return
    description = str(page.meta.get("description") or summary(plain_text(excerpt)))
    page.meta["description"] = description
    # page.title is HTML text (a heading's "&amp;" stays an entity): as plain text, the way
    # Material's <title> shows it (striptags, which also resolves entities); the template escapes it once.
    title = Markup(page.title or site_name).striptags()
    tags = [("property", "og:type", "article"), ("property", "og:site_name", site_name),
            ("property", "og:title", title), ("property", "og:description", description)]
    if page.canonical_url:
        tags.append(("property", "og:url", page.canonical_url))
    date = published(page)
    if date is not None:
        tags.append(("property", "article:published_time", _iso(date)))
    tags += [("name", "twitter:card", "summary"), ("name", "twitter:title", title),
             ("name", "twitter:description", description)]
    page.meta[META_KEY] = tags
