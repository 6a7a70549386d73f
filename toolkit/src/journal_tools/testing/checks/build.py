"""The journal's strict build, and what it built as a whole: nothing loaded from another host,
the site's stylesheet and math font, and every page's link preview.

``test_docs_build`` is the one test that reports on the build of docs/ (fixture ``docs_build``);
the others take ``built`` and skip, naming it, when the build failed."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from journal_tools.testing.prerequisites import FONT_MISSING, require
from journal_tools.testing.site import build_problem, in_this_run, page_tests_reporting


def test_docs_build(docs_build, request):
    """The strict build of the real site. When the build stopped at mistakes that page tests of this run judge the same way (the build
    lists each with its page test: core/record/mistakes.py), it skips naming the first one's, so a mistake is one failure; else it fails
    with the first ``path:line: ...`` (links: compat.mkdocs_log; mkdocs.yml: compat.mkdocs_config)."""
    if docs_build.returncode != 0:
        problem = build_problem(docs_build.output, docs_build.project)
        reporters = list(page_tests_reporting(docs_build.project).values())
        if reporters and all(test is not None and in_this_run(request.session, test) for test in reporters):
            pytest.skip(f"the build stopped at {problem.split(': ', 1)[0]}, which the page test {reporters[0]} reports")
        pytest.fail(f"{problem}\n(mkdocs build --strict of docs/ failed, exit {docs_build.returncode})\n\n"
                    + docs_build.output[-4000:], pytrace=False)
    # MkDocs' own log lines ("WARNING -  ..."): in --strict mode they also fail the build, but a plugin may log them after the count is
    # taken. (The Jupyter kernel's "[IPKernelApp] WARNING | ... TCP" notice is not one.)
    warnings = [ln for ln in docs_build.output.splitlines() if re.match(r"\s*WARNING\b", ln)]
    assert not warnings, "\n".join(warnings)
    assert (docs_build.site / "index.html").is_file(), "the build made no home page (index.html)"


# --------------------------------------------------------------------------
# Offline: nothing a page loads comes from another host

EXTERNAL = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)
# <link rel=...> values that only name another document (nothing is fetched).
NON_FETCHING_RELS = {"canonical", "alternate", "prev", "next", "author", "license", "me", "search"}
LOADING_ATTRS = {"src", "srcset", "poster", "data", "background"}
CSS_URL = re.compile(r"""url\(\s*(['"]?)(?P<url>[^'")]*)\1\s*\)""", re.IGNORECASE)
CSS_IMPORT = re.compile(r"""@import\s+(?:url\()?\s*['"]?(?P<url>[^'")\s;]+)""", re.IGNORECASE)


def css_external_refs(css: str) -> list[str]:
    urls = [m["url"] for m in CSS_URL.finditer(css)] + [m["url"] for m in CSS_IMPORT.finditer(css)]
    return list(dict.fromkeys(u for u in urls if EXTERNAL.match(u)))  # @import url() matches twice


class _ResourceScanner(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in LOADING_ATTRS & attrs.keys():
            value = attrs[name] or ""
            candidates = [c.strip().split(" ")[0] for c in value.split(",")] if name == "srcset" else [value]
            self.bad += [f"<{tag} {name}={c}>" for c in candidates if EXTERNAL.match(c)]
        if tag == "link":
            rels = set((attrs.get("rel") or "").lower().split())
            href = attrs.get("href") or ""
            if EXTERNAL.match(href) and not rels <= NON_FETCHING_RELS:
                self.bad.append(f"<link rel={attrs.get('rel')} href={href}>")
        if "style" in attrs:
            self.bad += [f"style= {u}" for u in css_external_refs(attrs["style"] or "")]
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.bad += [f"<style> {u}" for u in css_external_refs(data)]


def html_external_refs(page_html: str) -> list[str]:
    scanner = _ResourceScanner()
    scanner.feed(page_html)
    scanner.close()
    return scanner.bad


def test_pages_load_nothing_from_outside(built):
    problems = []
    for page in built.html_pages():
        for ref in html_external_refs(page.read_text(encoding="utf-8")):
            problems.append(f"{page.relative_to(built.site)}: {ref}")
    for css in sorted(built.site.rglob("*.css")):
        for ref in css_external_refs(css.read_text(encoding="utf-8")):
            problems.append(f"{css.relative_to(built.site)}: url {ref}")
    assert not problems, "external resources:\n" + "\n".join(problems)


def test_site_css_has_math_font_stack(built):
    css = (built.site / "assets" / "journal" / "journal.css").read_text(encoding="utf-8")  # the toolkit's, packaged
    css = re.sub(r"\s*([:,;{}()])\s*", r"\1", css)  # the published stylesheet is minified
    assert 'font-family:"Journal Math",math,' in css and 'local("Noto Sans Math")' in css
    assert "../fonts/noto-sans-math-latin-400-normal.woff2" in css
    assert "/*" not in css, "the published stylesheet still has its comments"


# --------------------------------------------------------------------------
# The math font lands in the site when it is installed.


def test_math_font_is_copied_into_site(built):
    from journal_tools.mkdocs_plugin import fonts
    installed = fonts.font_files(built.project)
    require(bool(installed), FONT_MISSING)
    copied = sorted(p.name for p in (built.site / "assets" / "fonts").iterdir())
    assert copied == sorted(p.name for p in installed)
    assert any(name.endswith(".woff2") for name in copied)


def test_site_font_has_every_math_character_and_little_else(built):
    """The subset is cut to the pages' maths: every character a formula shows (and each letter's math italic) that the font has is in it."""
    from fontTools.ttLib import TTFont

    from journal_tools.mkdocs_plugin import fonts
    installed = fonts.font_files(built.project)
    require(bool(installed), FONT_MISSING)
    used = set()
    for page in built.html_pages():
        used |= fonts.math_codepoints(page.read_text(encoding="utf-8"))
    assert used, "no math character on any page: the pages' maths was not read"
    whole = TTFont(str(next(p for p in installed if p.suffix == ".woff"))).getBestCmap()
    site_font = built.site / "assets" / "fonts" / next(p.name for p in installed if p.suffix == ".woff")
    subset = TTFont(str(site_font))
    cmap = subset.getBestCmap()
    missing = sorted(hex(cp) for cp in used if cp in whole and cp not in cmap)
    assert not missing, f"characters the pages' maths uses that the site's font lacks: {missing}"
    assert "MATH" in subset
    assert len(cmap) < 0.2 * len(whole), (len(cmap), len(whole))


# --------------------------------------------------------------------------
# Link previews: every entry's head carries its own description (its excerpt as
# plain text), Open Graph tags and a Twitter card; every other page the site's.

ENTRY_TAGS = ("og:type", "og:title", "og:description", "og:url", "article:published_time",
              "twitter:card", "twitter:title", "twitter:description")


class _Head(HTMLParser):
    """The <meta> tags (name or property -> contents), the canonical link and the <title> of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, list[str]] = {}
        self.canonical = None
        self.title = ""
        self._in_title = self._head_done = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        key = a.get("name") or a.get("property")
        if tag == "meta" and key and "content" in a:
            self.meta.setdefault(key, []).append(a["content"])
        if tag == "link" and a.get("rel") == "canonical":
            self.canonical = a.get("href")
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False
        self._head_done = self._head_done or tag == "head"  # an inline SVG's <title> is no page title

    def handle_data(self, data):
        if self._in_title and not self._head_done:
            self.title += data


class _ExcerptText(HTMLParser):
    """An entry page's text from its title to <!-- more --> (the excerpt as shown), badge, download links and the line on the
    editors' words left out, formulas as their TeX (``alttext``), as the preview has them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = ""
        self._state = "before"  # before the title, in it, in the excerpt, done
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if self._state == "before" and tag == "h1":
            self._state = "title"
        elif self._state == "excerpt" and (self._skip or tag == "math" or "headerlink" in classes
                                           or {"journal-date", "journal-verified", "journal-downloads", "journal-editors-notice"} & set(classes)):
            self.text += dict(attrs).get("alttext", "") if tag == "math" and not self._skip else ""
            self._skip += 1

    def handle_endtag(self, tag):
        if self._state == "title" and tag == "h1":
            self._state = "excerpt"
        elif self._skip:
            self._skip -= 1

    def handle_comment(self, data):
        if self._state == "excerpt" and data.strip() == "more":
            self._state = "done"

    def handle_data(self, data):
        if self._state == "excerpt" and not self._skip:
            self.text += data


def _letters(text: str) -> str:
    """Letters and digits only: what the preview and the excerpt must share (spaces and marks aside)."""
    return "".join(ch for ch in text if ch.isalnum())


def _read(parser_class, html: str):
    parser = parser_class()
    parser.feed(html)
    parser.close()
    return parser


def test_every_page_has_one_description_and_entries_preview_as_themselves(built, journal):
    site_description = journal.raw.get("site_description") or ""
    pages = journal.entry_pages(built.site)
    entries = {built.site / rel: e.date for e, rel in pages.items() if not e.draft}
    drafts = {built.site / rel for e, rel in pages.items() if e.draft}  # checked once published, with the feed's
    problems = []
    for page in built.html_pages():
        html = page.read_text(encoding="utf-8")
        head = _read(_Head, html)
        where = page.relative_to(built.site)
        descriptions = head.meta.get("description", [])
        if len(descriptions) != 1:
            problems.append(f"{where}: {len(descriptions)} description tags")
            continue
        description = descriptions[0]
        shown = [v for k, values in head.meta.items() if k.startswith(("og:", "twitter:", "description")) for v in values]
        problems += [f"{where}: raw TeX in a preview tag: {v!r}" for v in shown if "$" in v]
        if page in drafts:
            continue  # its description is checked once it is published, with the feed's
        if page not in entries:
            if description != site_description or head.meta.get("og:type"):
                problems.append(f"{where}: not an entry, yet its description is {description!r} ({head.meta.get('og:type')})")
            continue
        missing = [tag for tag in ENTRY_TAGS if len(head.meta.get(tag, [])) != 1]
        if missing:
            problems.append(f"{where}: missing (or repeated) {missing}")
            continue
        tag = {k: v[0] for k, v in head.meta.items()}
        excerpt = " ".join(_read(_ExcerptText, html).text.split())
        said = _letters(description.removesuffix("…"))
        checks = {
            "description != site description": description != site_description,
            f"description {description!r} is not the excerpt {excerpt[:200]!r}":
                len(said) >= min(len(_letters(excerpt)), 80) and _letters(excerpt).startswith(said),
            "description longer than 160 characters": len(description) <= 160,
            "og:description / twitter:description differ from the description":
                tag["og:description"] == tag["twitter:description"] == description,
            "og:title / twitter:title are not the <title>'s entry title":
                tag["og:title"] == tag["twitter:title"] and head.title.startswith(tag["og:title"] + " - "),
            f"og:url {tag['og:url']!r} is not the canonical {head.canonical!r}": tag["og:url"] == head.canonical,
            "og:type is not article": tag["og:type"] == "article",
            "twitter:card is not summary": tag["twitter:card"] == "summary",
            f"article:published_time {tag['article:published_time']!r} is not {entries[page]}":
                tag["article:published_time"].startswith(entries[page].isoformat()),
        }
        problems += [f"{where}: {what}" for what, ok in checks.items() if not ok]
    assert not problems, "\n".join(problems)
