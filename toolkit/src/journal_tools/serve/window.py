"""The recent window: ``make serve`` builds the N most recent entries (``POSTS``, 20 by default; DECISIONS.md),
those saved since it started, those they link to, those whose date cannot be read, and every page that is
not an entry. Entries are left out of ``Files`` before the blog reads them, so lists, feeds and search are
what a build of those entries alone makes; listing pages say so (``note_html``).
"""

from __future__ import annotations

import datetime as dt
import os
import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from journal_tools.core.page import frontmatter

__all__ = ["ENV", "DEFAULT", "Window", "note_html", "size"]

ENV = "JOURNAL_POSTS"  # the Makefile passes `make serve POSTS=...` through it
DEFAULT = 20  # the largest window whose saves cost at most 1.2x a window of 10's (bench row 9d)
# Relative Markdown links to a page: [text](x.md), [text](x.md#part), [ref]: x.md
_LINK = re.compile(r"\]\(\s*<?([^)\s>#]+\.md)(?:#[^)\s>]*)?>?(?:\s[^)]*)?\)|^\s*\[[^\]]+\]:\s*<?([^\s>#]+\.md)", re.M)


def size(environ=os.environ) -> int | None:
    """How many recent entries ``make serve`` builds: ``POSTS`` (``JOURNAL_POSTS``), else ``DEFAULT``; None: all."""
    raw = environ.get(ENV, "").strip()
    if not raw:
        return DEFAULT
    if raw.lower() == "all":
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise PluginError(f"{ENV}={raw!r} (make serve POSTS={raw}): give a number of entries above 0, or all")
    return int(raw)


class Window:
    """Which entries one ``mkdocs serve`` builds; kept across its rebuilds."""

    def __init__(self, n: int):
        self.n = n
        self.started: dict[str, int] | None = None  # each entry's mtime at the first build
        self.saved: set[str] = set()  # entries saved since then (src_uri), served from then on
        self._dates: dict[str, tuple[tuple, tuple]] = {}  # src_uri -> (stat, sort key): front matter read once per save

    def apply(self, files, post_dir: str) -> str | None:
        """Remove the entries outside the window from ``files`` (posts under ``post_dir``); the note saying so, or None for none."""
        posts = {f.src_uri: f for f in files.documentation_pages() if f.abs_src_path and f.src_uri.startswith(f"{post_dir}/")}
        stats = {uri: os.stat(f.abs_src_path) for uri, f in posts.items()}
        if self.started is None:
            self.started = {uri: st.st_mtime_ns for uri, st in stats.items()}
        self.saved = {uri for uri in self.saved if uri in posts}
        self.saved |= {uri for uri, st in stats.items() if self.started.get(uri) != st.st_mtime_ns}
        order = {uri: self._order(uri, posts[uri].abs_src_path, stats[uri]) for uri in posts}
        unreadable = {uri for uri, key in order.items() if key is None}  # served: the build reports what is wrong
        recent = sorted(order.keys() - unreadable, key=order.__getitem__, reverse=True)
        served = set(recent[: self.n]) | self.saved | unreadable
        served |= _linked(served, posts)
        if len(served) == len(posts):
            return None
        for uri in posts.keys() - served:
            files.remove(posts[uri])
        more = len(served) - min(self.n, len(posts))
        extra = f", plus {more:,} saved since the start or linked" if more else ""
        return (f"Serving the {min(self.n, len(posts)):,} most recent of {len(posts):,} entries{extra}; "
                "`make serve POSTS=all` serves them all")

    def _order(self, uri: str, path: str, st) -> tuple | None:
        """The blog's order of posts (pinned first, then by date); None for an entry whose date cannot be read."""
        stamp = (st.st_mtime_ns, st.st_size)
        known = self._dates.get(uri)
        if known is None or known[0] != stamp:
            known = self._dates[uri] = (stamp, _sort_key(Path(path)))
        return None if known[1] is None else known[1] + (uri,)


def _sort_key(path: Path) -> tuple | None:
    """(pinned, created) as the blog orders posts; None where the date cannot be read (the build that serves the entry names its line)."""
    try:
        meta = frontmatter.read(path.read_text(encoding="utf-8-sig"), str(path)).data
    except (OSError, UnicodeDecodeError, frontmatter.FrontMatterError):
        return None
    date = meta.get("date")
    created = date.get("created") if isinstance(date, dict) else date
    if not isinstance(created, dt.date):
        return None
    if not isinstance(created, dt.datetime):
        created = dt.datetime.combine(created, dt.time())
    return (bool(meta.get("pin")), created.replace(tzinfo=None))


def _linked(served: set[str], posts: dict) -> set[str]:
    """The entries reached by following links from the ``served`` ones (the served ones included)."""
    reached, todo = set(served), list(served)
    while todo:
        uri = todo.pop()
        try:
            text = Path(posts[uri].abs_src_path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        for m in _LINK.finditer(text):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(uri), m[1] or m[2]))
            if target in posts and target not in reached:
                reached.add(target)
                todo.append(target)
    return reached


def note_html(note: str) -> str:
    """The window's one line, as HTML for the top of a page that lists entries (``make serve`` only)."""
    before, _, after = note.partition("`make serve POSTS=all`")
    return (f'<p class="journal-window" role="note" style="font-size:.7rem;margin:0 0 1em;'
            f'color:var(--md-default-fg-color--light)">{before}<code>make serve POSTS=all</code>{after}</p>')
