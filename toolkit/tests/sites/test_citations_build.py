"""Citations and link previews as a strict build of the fixture journal publishes them (excerpt
citations, a notebook Markdown cell, an uncited references.bib entry).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import feedparser
import pytest

from journal_tools.testing.site import mkdocs_build

from fixture_journal import fixture_project

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

ENTRY = "blog/2025/07/27/fixture-entry/index.html"
NOTEBOOK = "notebooks/fixture_notebook/index.html"
ENTRY_URL = "https://example.github.io/llm-journal/blog/2025/07/27/fixture-entry/"


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    root = fixture_project(tmp_path_factory.mktemp("citations") / "project")
    proc = mkdocs_build(root, root.parent / "site")
    assert proc.returncode == 0, proc.stdout
    return root, root.parent / "site", proc.stdout


class _Page(HTMLParser):
    """Ids, citation links (href, text), the reference items' text and links, and <meta> tags."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.ids, self.cites, self.refs, self.meta, self.toc = [], [], {}, {}, []
        self._cite = self._ref = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "meta" and (a.get("name") or a.get("property")):
            self.meta[a.get("name") or a.get("property")] = a.get("content")
        if tag == "a" and "citation__ref" in classes:
            self._cite = [a["href"], ""]
        if tag == "a" and "md-nav__link" in classes:
            self.toc.append(a.get("href"))
        if tag == "li" and (a.get("id") or "").startswith("ref-"):
            self._ref = a["id"]
            self.refs[self._ref] = {"text": "", "links": []}
        elif tag == "a" and self._ref:
            self.refs[self._ref]["links"].append(a.get("href"))

    def handle_endtag(self, tag):
        if tag == "a" and self._cite:
            self.cites.append(tuple(self._cite))
            self._cite = None
        if tag == "li":
            self._ref = None

    def handle_data(self, data):
        if self._cite:
            self._cite[1] += data
        if self._ref:
            self.refs[self._ref]["text"] += data


def _read(site: Path, rel: str) -> tuple[str, _Page]:
    html = (site / rel).read_text(encoding="utf-8")
    return html, _Page(html)


def test_the_strict_build_lists_what_nothing_cites_as_a_notice(fixture_site):
    root, _, output = fixture_site
    bib = (root / "docs" / "references.bib").read_text(encoding="utf-8")
    line = bib[: bib.index("@inproceedings{vaswani2017")].count("\n") + 1
    assert re.search(rf"^INFO +- +docs/references\.bib:{line}: entry 'vaswani2017' is cited by no page of this build$",
                     output, re.M), output
    assert "raschka2024' is cited by no page" not in output
    assert not re.search(r"^WARNING", output, re.M), output
    assert "no such anchor" not in output, output  # MkDocs sees the items' ids (#ref-... links land)


def test_the_entry_cites_and_ends_with_its_references(fixture_site):
    _, site, _ = fixture_site
    html, page = _read(site, ENTRY)
    assert page.cites == [("#ref-raschka2024", "Raschka, 2024")]
    assert re.search(r'<span class="citation">\(<a [^>]*>Raschka, 2024</a>, ch\. 3\)</span>', html)
    assert list(page.refs) == ["ref-raschka2024"] and "ref-raschka2024" in page.ids
    ref = page.refs["ref-raschka2024"]
    for part in ("Sebastian Raschka", "Build a Large Language Model (From Scratch)", "Manning, 2024"):
        assert part in ref["text"], ref
    assert ref["links"] == ["https://www.manning.com/books/build-a-large-language-model-from-scratch"]
    assert "#references" in page.toc  # the list's heading is in the page's table of contents
    assert html.index('id="references"') > html.index("does the same in cells")  # at the end


def test_the_notebook_gets_one_list_after_its_cells(fixture_site):
    _, site, _ = fixture_site
    html, page = _read(site, NOTEBOOK)
    assert page.cites == [("#ref-raschka2024", "Raschka, 2024")]
    assert list(page.refs) == ["ref-raschka2024"] and html.count('id="references"') == 1
    assert html.index('id="references"') > html.rindex('class="highlight"')  # after the last code cell


def test_excerpts_elsewhere_link_to_the_entrys_list(fixture_site):
    _, site, _ = fixture_site
    _, home = _read(site, "index.html")
    assert home.cites == [("blog/2025/07/27/fixture-entry/#ref-raschka2024", "Raschka, 2024")]
    assert not home.refs  # the list stays with the entry
    items = feedparser.parse(str(site / "feed_rss_created.xml")).entries
    (item,) = [i for i in items if i.link == ENTRY_URL]
    assert f'href="{ENTRY_URL}#ref-raschka2024"' in item.description and "Raschka, 2024" in item.description
    json_feed = json.loads((site / "feed_json_created.json").read_text(encoding="utf-8"))
    assert any("Raschka, 2024" in (i.get("content_html") or "") for i in json_feed["items"])


def test_the_entrys_link_preview_reads_its_excerpt(fixture_site):
    _, site, _ = fixture_site
    _, page = _read(site, ENTRY)
    expected = "Weights w_{ij} from scores, a row at a time. As in the book (Raschka, 2024, ch. 3)."
    assert page.meta["description"] == page.meta["og:description"] == page.meta["twitter:description"] == expected
    assert page.meta["og:title"] == "Fixture entry" and page.meta["og:type"] == "article"
    assert page.meta["og:url"] == ENTRY_URL and page.meta["twitter:card"] == "summary"
    assert page.meta["article:published_time"].startswith("2025-07-27")
    _, notebook = _read(site, NOTEBOOK)
    assert "og:type" not in notebook.meta and notebook.meta["description"].startswith("Dated notes")
