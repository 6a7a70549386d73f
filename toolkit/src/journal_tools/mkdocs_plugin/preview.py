"""Link previews of entries, offline: a description from the excerpt (plain text, at most :data:`LIMIT`
characters), Open Graph tags and a Twitter ``summary`` card, set in ``page.meta`` for Material's ``base.html``
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

# Text a preview cannot show: scripts, styles, drawings, a formula's TeX annotation and phantoms.
_SKIPPED = {"script", "style", "svg", "annotation", "annotation-xml", "mphantom", "button", "template"}
_BLOCKS = {"p", "div", "li", "ul", "ol", "br", "tr", "td", "th", "pre", "blockquote", "figure", "figcaption",
           "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "table", "details", "summary"}
# Operators written with a space on each side at the top level of a formula (not in scripts).
_SPACED = set("=≠≈≡<>≤≥∈∉⊂⊆→←↦⇒⇔+−±×·∝∼") | {"-"}
_INVISIBLE = dict.fromkeys(map(ord, "\u2061\u2062\u2063\u2064"))  # function application, invisible times, ...


class _Text(HTMLParser):
    """The text of an HTML fragment, each ``<math>`` linearised (no package turns MathML into plain text)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping: list[str] = []  # the skipped element's tag, once per nesting level
        self.math: list[tuple] = []  # open MathML elements: (tag, attrs, children)

    def handle_starttag(self, tag, attrs):
        if self.skipping:
            if tag == self.skipping[0]:
                self.skipping.append(tag)
            return
        if tag in _SKIPPED:
            self.skipping.append(tag)
        elif tag == "math" or self.math:
            node = (tag, dict(attrs), [])
            if self.math:
                self.math[-1][2].append(node)
            self.math.append(node)
        elif tag in _BLOCKS:
            self.out.append(" ")

    def handle_startendtag(self, tag, attrs):
        if self.math and not self.skipping:
            self.math[-1][2].append((tag, dict(attrs), []))  # <mspace/>: nothing to close
        elif tag in _BLOCKS and not self.skipping:
            self.out.append(" ")

    def handle_endtag(self, tag):
        if self.skipping:
            if tag == self.skipping[0]:
                self.skipping.pop()
            return
        if self.math and self.math[-1][0] == tag:
            node = self.math.pop()
            if not self.math:
                self.out.append(_linear(node))
        elif tag in _BLOCKS:
            self.out.append(" ")

    def handle_data(self, data):
        if self.skipping:
            return
        if self.math:
            self.math[-1][2].append(data)
        else:
            self.out.append(data)


def _linear(node, script: bool = False) -> str:
    """One formula as a line of text: ``W^Q``, ``x_(2j)``, ``(QK^⊤)/√(d_k)``, ``ℝ^(6×3)``."""
    if isinstance(node, str):
        return node.translate(_INVISIBLE).strip()
    tag, attrs, kids = node
    kids = [k for k in kids if not isinstance(k, str) or k.strip()]
    parts = [_linear(k, script or tag in _SCRIPTED) for k in kids]
    for n, kid in enumerate(kids):  # a sign with no operand before it is unary: "−∞", not "− ∞"
        if _is_mo(kid) and (n == 0 or _is_mo(kids[n - 1])):
            parts[n] = parts[n].strip()
    if tag in _SCRIPTED and len(parts) >= 2:
        return _scripted(tag, attrs, parts)
    if tag == "mfrac" and len(parts) == 2:
        return f"{_group(parts[0])}/{_group(parts[1])}"
    if tag in ("msqrt", "mroot") and parts:
        return "√" + _group(parts[0] if tag == "mroot" else "".join(parts))
    if tag in _JOINED:
        return _JOINED[tag].join(parts)
    text = "".join(parts)
    return _operator(text) if tag == "mo" and not script else text


# A matrix's cells joined by ", ", its rows by "; ".
_JOINED = {"mtr": ", ", "mtable": "; "}


def _operator(text: str) -> str:
    """An operator at the top level: relations and binary operators spaced, a comma followed by a space."""
    if text in _SPACED:
        return f" {text} "
    return f"{text} " if text in (",", ";") else text


_SCRIPTED = {"msup", "msub", "msubsup", "munder", "mover", "munderover"}
_LARGE = set("∑∏∫∮⋃⋂")  # a sum's terms follow its limits after a space: "∑_(j=1)^6 α_j"


def _is_mo(node) -> bool:
    return not isinstance(node, str) and node[0] == "mo"


def _scripted(tag: str, attrs: dict, parts: list[str]) -> str:
    base, scripts = parts[0], parts[1:]
    if tag in ("munder", "mover") and (attrs.get("accent") == "true" or attrs.get("accentunder") == "true"):
        return base  # \tilde{A}, \hat{y}: the letter itself
    marks = {"msup": "^", "mover": "^", "msub": "_", "munder": "_"}.get(tag)
    if marks:
        text = f"{base}{marks}{_group(scripts[0])}"
    else:
        text = f"{base}_{_group(scripts[0])}^{_group(scripts[1])}" if len(scripts) > 1 else base
    return text + " " if base.strip() in _LARGE else text


def _group(text: str) -> str:
    """``text`` as one operand: in parentheses unless it is one symbol, a word or a number, or already wrapped."""
    text = " ".join(text.split())
    if len(text) <= 1 or text.isalpha() or text.replace(".", "", 1).isdigit():
        return text
    if text.startswith("√") and _group(text[1:]) == text[1:]:  # √(d_k) is one operand already
        return text
    if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        return text
    return f"({text})"


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def plain_text(html: str) -> str:
    """The text a reader sees in an HTML fragment, one line, formulas as linear text."""
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
