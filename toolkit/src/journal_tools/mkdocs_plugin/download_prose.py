"""An entry's prose as its ``.ipynb`` shows it, away from the site: relative links as the built pages' absolute
URLs (:class:`SiteLinks`), citations as the page reads them, linking to the notebook's reference list.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from journal_tools.core.markup import citations
from journal_tools.core.settings import Settings

__all__ = ["Prose", "SiteLinks"]

# [text](target "title") and ![alt](target); reference definitions "[id]: target".
_INLINE_LINK = re.compile(r"(?P<head>!?\[[^\]\n]*\]\(\s*)(?P<target><[^>\n]*>|[^\s)]+)")
_DEFINITION = re.compile(r"^(?P<head>[ ]{0,3}\[[^\]\n]+\]:[ \t]*)(?P<target><[^>\n]*>|\S+)", re.MULTILINE)


@dataclass(frozen=True)
class SiteLinks:
    """``urls`` maps a docs-relative source (``blog/posts/2025-07-27-x.md``) to its site-relative URL (``blog/2025/07/27/x/``)."""

    site_url: str
    urls: Mapping[str, str] = field(default_factory=dict)

    def absolute(self, url: str) -> str:
        """``url`` (relative to the site) under ``site_url``."""
        base = self.site_url if self.site_url.endswith("/") else self.site_url + "/"
        return urljoin(base, url)


class Prose:
    """The Markdown cells of one entry's notebook: links made absolute, citations written out."""

    def __init__(self, settings: Settings, links: SiteLinks | None, page_src: str):
        self.settings, self.links, self.page_src = settings, links, page_src  # page_src: docs-relative
        self.cited: list[str] = []

    def cell(self, text: str) -> str:
        """One Markdown cell's text as the notebook shows it."""
        if self.links is not None:
            text = _DEFINITION.sub(self._link, _INLINE_LINK.sub(self._link, text))
        if self.settings.bibliography is not None and "[@" in text:
            text, keys = citations.cite_in_markdown(text, citations.load(self.settings.bibliography))
            self.cited += [k for k in keys if k not in self.cited]
        return text

    def references(self) -> str | None:
        """The last cell: the reference list of every key the cells cite (None: nothing cited)."""
        if not self.cited:
            return None
        return citations.reference_list_markdown(citations.load(self.settings.bibliography), self.cited)

    def _link(self, m: re.Match[str]) -> str:
        target = m["target"]
        bracketed = target.startswith("<")
        url = self._absolute(target[1:-1] if bracketed else target)
        return m["head"] + (f"<{url}>" if bracketed else url)

    def _absolute(self, target: str) -> str:
        parts = urlsplit(target)
        if parts.scheme or target.startswith(("//", "#")) or not target:
            return target  # elsewhere, or a place on this page (the notebook's own headings)
        fragment = f"#{parts.fragment}" if parts.fragment else ""
        if target.startswith("/"):
            return self.links.absolute(target.lstrip("/"))
        src = posixpath.normpath(posixpath.join(posixpath.dirname(self.page_src), parts.path))
        if src in self.links.urls:
            return self.links.absolute(self.links.urls[src]) + fragment
        own = self.links.urls.get(self.page_src, "")
        return urljoin(self.links.absolute(own), target)
