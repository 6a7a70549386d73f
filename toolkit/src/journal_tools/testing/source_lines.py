"""The source ``file:line`` behind an element of a built page, for the checks of the built site.

A browser check finds a problem in the built HTML (a code block wider than a phone,
a formula without a size, an image not loaded); the author edits Markdown. So every
such failure starts with the page's source file and line, found here from what the
element shows, with the page tests' own readers (``core.includes`` expands the
snippets with a map back to page lines, ``core.fences`` finds the fences):

- a code block: the fence (of the page, else of any page: blog views show excerpts of
  other pages) whose text is the block's text; its opening line;
- a display formula: the Nth display formula of the page's source, N from its wrapper's
  ``aria-label`` ("Formula N", numbered per page by ``core.markdown_math``);
- anything else: the first line of the page's source holding the given text (an image's
  ``src``, the words before an inline formula), else the page's first line.

Nothing is added to the built pages for this: they stay byte for byte the ones readers get.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from journal_tools.core.page.fences import inside_fence, scan
from journal_tools.core.page.includes import ExpandedPage, expand_file

_DOWNLOAD_LINK = re.compile(r'href="[^"]*downloads/([^"/]+)\.py"')
_DISPLAY_OPEN = re.compile(r"^[ \t>]*(?:\$\$|\\\[|\\begin\{)")
_FORMULA_NUMBER = re.compile(r"Formula (\d+)")


class SourceLines:
    """The sources of the site built from ``project`` (a journal's folder with its mkdocs.yml)."""

    def __init__(self, project: Path):
        from journal_tools.compat import mkdocs_config

        self.project = project
        self.settings = mkdocs_config.load(project / "mkdocs.yml")

    def page_source(self, site: Path, rel: str) -> Path | None:
        """The source of built page ``rel``: an entry by its download links, else the Markdown page or notebook its URL comes from."""
        docs = self.settings.docs_dir
        html = (site / rel).read_text(encoding="utf-8") if (site / rel).is_file() else ""
        stems = set(_DOWNLOAD_LINK.findall(html))
        posts = [p for p in self.settings.blog.posts_dir.glob("*.md") if p.stem in stems] if self.settings.blog else []
        if len(posts) == 1:
            return posts[0]
        folder = rel.removesuffix("index.html").rstrip("/")
        for candidate in ((f"{folder}.md", f"{folder}/index.md", f"{folder}.py", f"{folder}.ipynb") if folder
                          else ("index.md", "README.md")):
            if (docs / candidate).is_file():
                return docs / candidate
        return None

    def rel(self, path: Path) -> str:
        """``path`` as the failure names it (relative to the journal: docs/...)."""
        return self.settings.rel(path)

    @functools.cache
    def _expanded(self, path: Path) -> ExpandedPage | None:
        try:
            return expand_file(path, self.settings)
        except Exception:  # a page the page tests refuse: they report it
            return None

    def code(self, site: Path, rel: str, text: str) -> str:
        """``file:line`` of the fence showing ``text`` on built page ``rel``."""
        own = self.page_source(site, rel)
        others = sorted(p for p in self.settings.docs_dir.rglob("*.md") if p != own)
        want = _normal(text)
        for path in ([own] if own else []) + others:
            page = self._expanded(path) if path.suffix == ".md" else None
            if page is None:
                continue
            try:
                fences = scan(page.lines)
            except Exception:
                continue
            for fence in fences:
                if _normal(fence.code(page.lines)) == want:
                    origin = page.origins[fence.start]
                    return f"{origin.path}:{origin.line}"
        return self.text(site, rel, text.strip().split("\n", 1)[0])

    def display_formula(self, site: Path, rel: str, label: str) -> str:
        """``file:line`` of the display formula named ``label`` ("Formula N") on built page ``rel``."""
        own = self.page_source(site, rel)
        m = _FORMULA_NUMBER.search(label or "")
        page = self._expanded(own) if own is not None and own.suffix == ".md" else None
        if m is None or page is None:
            return self.text(site, rel, "")
        try:
            in_code = inside_fence(scan(page.lines))
        except Exception:
            in_code = set()
        opening = [i for i, line in enumerate(page.lines) if i not in in_code and _DISPLAY_OPEN.match(line)]
        # "$$" both opens and closes: a formula on several lines closes with a line "$$" of its own.
        starts, open_dollars = [], False
        for i in opening:
            line = page.lines[i].strip().lstrip("> ")
            if open_dollars:
                open_dollars = not line.startswith("$$")
                continue
            starts.append(i)
            open_dollars = line == "$$" or (line.startswith("$$") and line.count("$$") == 1)
        n = int(m[1])
        if not 1 <= n <= len(starts):
            return self.text(site, rel, "")
        origin = page.origins[starts[n - 1]]
        return f"{origin.path}:{origin.line}"

    def text(self, site: Path, rel: str, needle: str) -> str:
        """``file:line`` of the first source line of page ``rel`` holding ``needle`` (else the source's first line, else the built page)."""
        own = self.page_source(site, rel)
        if own is None:
            return f"{rel}:1 (built page; no source page found)"
        lines = own.read_text(encoding="utf-8", errors="replace").split("\n")
        needle = needle.strip()
        line = next((n for n, text in enumerate(lines, 1) if needle and needle in text), 1)
        return f"{self.rel(own)}:{line}"


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))
