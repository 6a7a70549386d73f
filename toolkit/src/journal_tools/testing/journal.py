"""A journal as its built-site checks read it: one place for its entries, site URL and blog
options, all from its mkdocs.yml (through ``compat.mkdocs_config``, the blog plugin's own
options and defaults), never from fixed paths or from any one journal's entries."""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from mkdocs.utils import meta as mkdocs_meta

from journal_tools.compat import mkdocs_config
from journal_tools.testing.site import heading_text

_HEADING = re.compile(r"(?m)^# (.+)$")


@dataclass(frozen=True, eq=False)  # hashed by identity: a key of entry_pages()
class Entry:
    """One blog post: its file, front matter and title as the pages show it."""

    path: Path
    meta: dict
    title: str

    @property
    def name(self) -> str:
        """The file name."""
        return self.path.name

    @property
    def date(self) -> dt.date:
        """The creation date (``date: YYYY-MM-DD``, or ``date: {created: ...}``)."""
        d = self.meta.get("date")
        d = d.get("created") if isinstance(d, dict) else d
        return d.date() if isinstance(d, dt.datetime) else d

    @property
    def draft(self) -> bool:
        """``draft: true``: built by the test build, left out of the published site."""
        return bool(self.meta.get("draft"))

    @property
    def categories(self) -> list[str]:
        """The categories of its front matter."""
        return list(self.meta.get("categories") or [])

    @property
    def tags(self) -> list[str]:
        """The tags of its front matter."""
        return list(self.meta.get("tags") or [])


class Journal:
    """The journal whose mkdocs.yml is at ``project / "mkdocs.yml"``."""

    def __init__(self, project: Path):
        self.project = project
        self.settings = mkdocs_config.load(project / "mkdocs.yml")
        if self.settings.blog is None:
            raise AssertionError(f"{project / 'mkdocs.yml'}: no blog plugin, so no entries to check")
        self.raw = mkdocs_config.read_yaml(project / "mkdocs.yml")

    @property
    def site_url(self) -> str:
        """site_url with one trailing slash ("/" when unset)."""
        return self.settings.site_url.rstrip("/") + "/" if self.settings.site_url else "/"

    @property
    def site_prefix(self) -> str:
        """The path of site_url ("/llm-journal/"), where the site is served, or "/"."""
        path = urlsplit(self.site_url).path.strip("/")
        return f"/{path}/" if path else "/"

    @property
    def posts_dir(self) -> Path:
        """The blog's posts folder (absolute)."""
        return self.settings.blog.posts_dir

    @functools.cached_property
    def entries(self) -> list[Entry]:
        """Every post, drafts included (the test build builds them), oldest first as the blog orders them."""
        found = []
        md = None
        for path in sorted(self.posts_dir.glob("*.md")):
            body, meta = mkdocs_meta.get_data(path.read_text(encoding="utf-8"))
            title = meta.get("title")
            if not title:
                heading = _HEADING.search(body)
                if heading is None:
                    raise AssertionError(f"{self.settings.rel(path)}: no title (`title:` or a `# ` heading)")
                md = md or self.settings.markdown()
                title = heading_text(md.reset().convert(heading.group(0)))  # "# C\#" reads "C#"
            found.append(Entry(path, meta, title))
        if not found:
            raise AssertionError(f"no entry in {self.settings.rel(self.posts_dir)}/ (the blog's post_dir): "
                                 "the checks of the built site would check nothing")
        # The blog's own order: newest first by date, a day's entries in file-name order; reversed.
        # A date that is no date (its page test fails at its line) sorts first instead of stopping every check.
        return sorted(found, key=lambda e: e.date if isinstance(e.date, dt.date) else dt.date.min, reverse=True)[::-1]

    def published(self) -> list[Entry]:
        """The entries that are no draft, oldest first."""
        return [e for e in self.entries if not e.draft]

    def entry_pages(self, site: Path) -> dict[Entry, str]:
        """{entry: built page relative to ``site``}: the page whose <h1> is its title and lists no excerpts (whatever post_url_format)."""
        titles: dict[str, list[str]] = {}
        for page in sorted(site.rglob("*.html")):
            html = page.read_text(encoding="utf-8")
            if "md-post--excerpt" not in html:
                titles.setdefault(heading_text(html), []).append(page.relative_to(site).as_posix())
        pages = {}
        for entry in self.entries:
            found = titles.get(entry.title, [])
            if len(found) != 1:
                raise AssertionError(f"{self.settings.rel(entry.path)}: {len(found)} built pages have its title "
                                     f"{entry.title!r} as their <h1> ({found}); one should")
            pages[entry] = found[0]
        return pages

    def built_file(self, site: Path, url: str) -> Path | None:
        """The file of ``site`` that ``url`` (absolute, under site_url) names; None for another site."""
        return built_file(site, self.site_url, url)


def built_file(site: Path, site_url: str, url: str) -> Path | None:
    """The file of ``site`` that ``url`` (absolute, under ``site_url``) names; None for another site."""
    if not url.startswith(site_url):
        return None
    path = unquote(urlsplit(url).path[len(urlsplit(site_url).path):])
    return site / path / "index.html" if (path == "" or path.endswith("/")) else site / path
