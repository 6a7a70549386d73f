"""The author's site: the strict build of docs/, then what it built: offline
guarantee, build-time math, RSS.

test_docs_build is the one test that builds the author's docs/ (fixture
`docs_build`); the tests taking `built` look at that site and skip when it did
not build. The build code itself is tested on small sites elsewhere
(test_build_command.py, test_bad_inputs.py, ...).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from email.utils import parsedate_to_datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from mkdocs.utils import meta as mkdocs_meta

from journal_tools.testing.prerequisites import FONT_MISSING, require
from journal_tools.testing.site import build_problem, first_problem, heading_text, in_this_run, reporting_page_test
from journal_tools.testing.site_math import missing_mathml, raw_tex

# The build: the session-wide `docs_build` fixture of tests/conftest.py (one
# strict build of a frozen copy of the project, shared with the browser tests).


def test_docs_build(docs_build, request):
    """The strict build of the real site, docs/ as written.

    When it fails on a mistake a page test of this run already reports (a
    post's front matter or includes, a formula, a notebook cell: the same file
    and line), this test skips naming that page test, so the mistake is one failure.
    Otherwise it fails with the build's first problem, ``path:line: ...``
    where the build names one (broken links do: journal_tools.compat.mkdocs_log.LinkLocator;
    a mistake in mkdocs.yml gets its line from journal_tools.compat.mkdocs_config).
    """
    if docs_build.returncode != 0:
        problem = build_problem(docs_build.output, docs_build.project)
        reporter = reporting_page_test(problem, docs_build.project)
        if reporter and in_this_run(request.session, reporter):
            pytest.skip(f"the build stopped at {problem.split(': ', 1)[0]}, which the page test {reporter} reports")
        pytest.fail(f"{problem}\n(mkdocs build --strict of docs/ failed, exit {docs_build.returncode})\n\n"
                    + docs_build.output[-4000:], pytrace=False)
    # MkDocs' own log lines ("WARNING -  ..."): in --strict mode they also fail
    # the build, but a plugin may log them after the count is taken.
    # (The Jupyter kernel's "[IPKernelApp] WARNING | ... TCP" notice is not one.)
    warnings = [ln for ln in docs_build.output.splitlines() if re.match(r"\s*WARNING\b", ln)]
    assert not warnings, "\n".join(warnings)
    assert (docs_build.site / "index.html").is_file()  # the home page is the journal's index (blog_dir ".")
    # (the tags page: tests/browser/test_home.py::test_tags_page_lists_every_tag)


def test_first_problem_is_the_first_located_message():
    notebook = ("INFO    -  Building\nERROR   -  Error reading page 'notebooks/x.py':\n"
                "ERROR   -  docs/notebooks/x.py:29: notebook cell raised NameError: name 'y' is not defined\n"
                "\nAborted with a BuildError!\n")
    assert first_problem(notebook) == "docs/notebooks/x.py:29: notebook cell raised NameError: name 'y' is not defined"
    links = "WARNING -  docs/index.md:4: Doc file 'index.md' contains a link 'a.md'\nWARNING -  docs/b.md:2: ...\n"
    assert first_problem(links) == "docs/index.md:4: Doc file 'index.md' contains a link 'a.md'"
    assert first_problem("ERROR   -  Config value 'x': bad\nAborted with 1 configuration errors!\n") == "Config value 'x': bad"
    yaml_error = 'Error: MkDocs encountered an error parsing the configuration file: while parsing\n  in "mkdocs.yml", line 4, column 2\n'
    assert first_problem(yaml_error) == yaml_error.strip().removeprefix("Error: ")


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


def test_scanner_catches_external_resources():
    page = """<html><head>
    <link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">
    <link rel="canonical" href="https://example.org/page/">
    <script src="//cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>
    <style>@import url("https://x.org/a.css"); body { background: url(https://x.org/b.png) }</style>
    </head><body><a href="https://example.org">fine</a>
    <img src="https://avatars.githubusercontent.com/u/1" alt="">
    <img src="data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%3E%3C/svg%3E" alt="">
    <div style="background-image: url('http://x.org/c.png')"></div></body></html>"""
    bad = html_external_refs(page)
    assert len(bad) == 6, bad
    assert not any("example.org" in b for b in bad)
    assert css_external_refs("a{b:url(../fonts/x.woff2)} @import 'local.css';") == []
    assert css_external_refs("@import 'https://x.org/y.css';") == ["https://x.org/y.css"]


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
# Math


def test_no_unconverted_math(built):
    """No text a reader sees (outside code and MathML) still holds TeX in the math syntax."""
    raw = {}
    for page in built.html_pages():
        found = raw_tex(page.read_text(encoding="utf-8"))
        if found:
            raw[str(page.relative_to(built.site))] = found[:3]
    assert not raw, f"TeX left unconverted: {raw}"


def test_every_page_with_math_has_mathml(built):
    """Each page's formulas (a notebook's Markdown cells included) are <math> elements of its built page."""
    total, missing = missing_mathml(built.site, built.project)
    assert total > 0, "no formula found in any source of docs/: the sources were not read"
    assert not missing, "\n".join(missing)


# --------------------------------------------------------------------------
# RSS


def _posts(root: Path) -> dict[str, dict]:
    posts = {}
    for path in sorted((root / "docs" / "blog" / "posts").glob("*.md")):
        _, meta = mkdocs_meta.get_data(path.read_text(encoding="utf-8"))
        if not meta.get("draft"):
            posts[path.name] = meta
    return posts


def test_rss_feed_parses_and_dates_come_from_front_matter(built):
    site_url = yaml.safe_load(
        "\n".join(ln for ln in (built.project / "mkdocs.yml").read_text(encoding="utf-8").splitlines() if ln.startswith("site_url:"))
    )["site_url"]
    for name in ("feed_rss_created.xml", "feed_rss_updated.xml"):
        feed = built.site / name
        assert feed.is_file(), f"{name} not built"
        channel = ET.parse(feed).getroot().find("channel")
        assert channel is not None
        image_url = channel.findtext("image/url")
        assert image_url and image_url.startswith(site_url), (image_url, site_url)
        items = channel.findall("item")
        posts = _posts(built.project)
        assert len(items) == len(posts), (len(items), sorted(posts))
        feed_dates = sorted(parsedate_to_datetime(i.findtext("pubDate")).date() for i in items)
        post_dates = sorted(meta["date"] if not isinstance(meta["date"], dict) else meta["date"]["created"]
                            for meta in posts.values())
        assert feed_dates == post_dates
        for item in items:
            assert item.findtext("link", "").startswith(site_url + "blog/")


def test_feed_descriptions_are_the_rendered_excerpts(built):
    """MathML instead of raw TeX, absolute links under site_url, no repeated title."""
    site_url = "https://example.github.io/llm-journal/"
    for name in ("feed_rss_created.xml", "feed_rss_updated.xml"):
        for item in ET.parse(built.site / name).getroot().iter("item"):
            description = item.findtext("description", "")
            assert description, item.findtext("title")
            assert not re.search(r"\$|\\\(|\\\[|\\begin", description), description[:200]
            assert "<h1" not in description
            for url in re.findall(r'(?:href|src)="([^"]+)"', description):
                assert url.startswith(site_url) and not url.endswith(".md"), url
    entry = ET.parse(built.site / "feed_rss_created.xml").getroot()
    assert any("<math" in (i.findtext("description") or "") for i in entry.iter("item"))


def test_posts_write_dates_one_way(built):
    """date_from_meta reads one key: every post of the built site has `date: YYYY-MM-DD`."""
    bad = []
    for path in sorted((built.project / "docs" / "blog" / "posts").glob("*.md")):
        head = path.read_text(encoding="utf-8").split("\n---", 1)[0]
        if not re.search(r"^date: \d{4}-\d{2}-\d{2}\s*$", head, re.MULTILINE):
            bad.append(path.name)
    assert not bad, f"posts without a `date: YYYY-MM-DD` line: {bad}"


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
    """The site's subset is cut to its pages' maths: every character a formula shows
    (and the math italic form of each letter) that the whole font has is in it."""
    from fontTools.ttLib import TTFont

    from journal_tools.mkdocs_plugin import fonts
    installed = fonts.font_files(built.project)
    require(bool(installed), FONT_MISSING)
    used = set()
    for page in built.html_pages():
        used |= fonts.math_codepoints(page.read_text(encoding="utf-8"))
    assert 0x1D465 in used, "no math italic x: the pages' maths was not read"  # x, in every entry
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
    """The text of an entry page from the end of its title to its <!-- more --> (the excerpt as
    the page shows it), the verified badge and the download links after it left out; formulas as
    their MathML's text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = ""
        self._state = "before"  # before the title, in it, in the excerpt, done
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if self._state == "before" and tag == "h1":
            self._state = "title"
        elif self._state == "excerpt" and (self._skip or "headerlink" in classes
                                           or {"journal-verified", "journal-downloads"} & set(classes)):
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
    """Letters and digits only: the preview's linear math (W^Q) and the MathML's text (WQ) agree here."""
    return "".join(ch for ch in text if ch.isalnum())


def _read(parser_class, html: str):
    parser = parser_class()
    parser.feed(html)
    parser.close()
    return parser


def _draft_pages(built) -> set[Path]:
    """The built pages of the drafts: under their date, with their title as the page's <h1>."""
    pages = set()
    for path in sorted((built.project / "docs" / "blog" / "posts").glob("*.md")):
        body, meta = mkdocs_meta.get_data(path.read_text(encoding="utf-8"))
        if not meta.get("draft"):
            continue
        d = meta["date"]["created"] if isinstance(meta["date"], dict) else meta["date"]
        title = meta.get("title") or re.search(r"(?m)^# (.+)$", body).group(1).strip()
        pages |= {page for page in built.site.glob(f"blog/{d:%Y/%m/%d}/*/index.html")
                  if heading_text(page.read_text(encoding="utf-8")) == title}
    return pages


def _entry_pages(built) -> dict[Path, str]:
    """{built page: its post's date} for every post in the feed (every post the build published)."""
    root = ET.parse(built.site / "feed_rss_created.xml").getroot()
    site_url = root.findtext("channel/link", "").rstrip("/") + "/"
    pages = {}
    for item in root.iter("item"):
        link = item.findtext("link", "")
        assert link.startswith(site_url), link
        pages[built.site / link[len(site_url):] / "index.html"] = parsedate_to_datetime(item.findtext("pubDate")).date()
    return pages


def test_every_page_has_one_description_and_entries_preview_as_themselves(built):
    from journal_tools.compat.mkdocs_config import read_yaml

    site_description = read_yaml(built.project / "mkdocs.yml")["site_description"]
    entries = _entry_pages(built)
    assert len(entries) == len(_posts(built.project)) and all(p.is_file() for p in entries)
    drafts = _draft_pages(built)  # built by the test build, left out of the feeds until published
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
