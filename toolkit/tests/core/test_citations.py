"""Citations (journal_tools/core/markup/citations.py) on inline pages and a small BibTeX file in tmp_path."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.core.markup import citations
from journal_tools.core.settings import Settings

CONFIG = """\
site_name: t
theme: material
markdown_extensions:
  - toc:
      permalink: true
  - journal_math
  - journal_citations:
      bibliography: docs/refs.bib
  - pymdownx.highlight:
      pygments_lang_class: true
  - pymdownx.superfences
  - pymdownx.snippets:
      check_paths: true
      dedent_subsections: true
"""

BIB = """\
@book{raschka2024,
  author    = {Sebastian Raschka},
  title     = {{Build a Large Language Model (From Scratch)}},
  publisher = {Manning},
  year      = {2024},
  url       = {https://www.manning.com/books/build-a-large-language-model-from-scratch},
}

@inproceedings{vaswani2017,
  author    = {Ashish Vaswani and Noam Shazeer and Niki Parmar},
  title     = {{Attention Is All You Need}},
  booktitle = {Advances in Neural Information Processing Systems 30},
  year      = {2017},
  doi       = {10.48550/arXiv.1706.03762},
}

@article{bahdanau2014,
  author  = {Dzmitry Bahdanau and Kyunghyun Cho},
  title   = {Neural Machine Translation by Jointly Learning to Align and Translate},
  journal = {arXiv preprint},
  year    = {2014},
}
"""


@pytest.fixture
def site(tmp_path):
    """A tiny journal with the citations extension; returns (Settings, path of its .bib)."""
    (tmp_path / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "docs").mkdir()
    bib = tmp_path / "docs" / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    return mkdocs_config.load(tmp_path / "mkdocs.yml"), bib


class _Page(HTMLParser):
    """The visible text, the citation links (href, text) and the ids of a rendered page."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.text, self.links, self.ids, self._link = [], [], [], None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "a" and "citation__ref" in (a.get("class") or ""):
            self._link = [a["href"], ""]

    def handle_endtag(self, tag):
        if tag == "a" and self._link:
            self.links.append(tuple(self._link))
            self._link = None

    def handle_data(self, data):
        self.text.append(data)
        if self._link:
            self._link[1] += data


def render(settings: Settings, text: str) -> _Page:
    return _Page(settings.markdown().convert(text))


def test_citation_forms_read_author_year_and_link_to_the_list(site):
    settings, _ = site
    page = render(settings, "# T\n\nOne [@raschka2024]. Two [@vaswani2017, sec. 3.2]. Three [@bahdanau2014; @raschka2024, ch. 3].\n")
    text = "".join(page.text)
    assert "One (Raschka, 2024). Two (Vaswani et al., 2017, sec. 3.2). Three (Bahdanau and Cho, 2014; Raschka, 2024, ch. 3)." in text
    assert [href for href, _ in page.links] == ["#ref-raschka2024", "#ref-vaswani2017", "#ref-bahdanau2014", "#ref-raschka2024"]
    # one list at the end, each work once, sorted by author (plain style), every link lands on an item
    refs = [i for i in page.ids if i.startswith("ref-")]
    assert refs == ["ref-bahdanau2014", "ref-raschka2024", "ref-vaswani2017"]
    assert "references" in page.ids  # the heading, with the id the table of contents links to
    assert text.index("References") > text.index("Three")
    assert "Sebastian Raschka" in text and "Manning, 2024" in text and "Attention Is All You Need" in text


def test_references_link_doi_and_url(site):
    settings, _ = site
    html = settings.markdown().convert("[@vaswani2017] and [@raschka2024]\n")
    assert 'href="https://doi.org/10.48550/arXiv.1706.03762"' in html
    assert 'href="https://www.manning.com/books/build-a-large-language-model-from-scratch"' in html


@pytest.mark.parametrize("text", [
    "Escaped \\[@raschka2024] stays.\n",
    "In code `[@raschka2024]` stays.\n",
    "```text\n[@raschka2024]\n```\n",
    "Mail [me@example.org] and [@] and [ @raschka2024] stay.\n",
    "<!-- [@raschka2024] in a comment -->\n",
])
def test_what_is_no_citation(site, text):
    settings, _ = site
    html = settings.markdown().convert(text)
    assert "citation" not in html and 'id="references"' not in html


def test_a_page_without_citations_never_reads_the_file(site):
    settings, bib = site
    bib.write_text("@book{broken,\n", encoding="utf-8")
    assert "<p>Plain.</p>" in settings.markdown().convert("Plain.\n")


def test_keys_ignore_case_and_keep_the_file_spelling(site):
    settings, _ = site
    page = render(settings, "[@Raschka2024]\n")
    assert page.links == [("#ref-raschka2024", "Raschka, 2024")]


def test_unknown_key_says_did_you_mean_and_the_line(site):
    settings, _ = site
    source = "---\ntitle: t\n---\n\nFine [@raschka2024].\n\nThen [@vaswani2017; @rashka2024, ch. 3].\n"
    with pytest.raises(citations.UnknownKey) as info:
        settings.markdown().convert(source.split("---\n", 2)[2])
    located = str(info.value.located("docs/x.md", source))
    assert located == ("docs/x.md:7: unknown citation key 'rashka2024': docs/refs.bib has no such entry; "
                       "did you mean 'raschka2024'?")


def test_unknown_key_without_a_close_one_lists_the_keys(site):
    settings, _ = site
    with pytest.raises(citations.UnknownKey, match=r"its keys are raschka2024, vaswani2017, bahdanau2014$"):
        settings.markdown().convert("[@goodfellow]\n")


def test_same_author_and_year_get_letters(site):
    settings, bib = site
    bib.write_text(BIB + "@book{raschka2024b,\n  author = {Sebastian Raschka},\n  title = {A Second Book},\n"
                         "  publisher = {Manning},\n  year = {2024},\n}\n", encoding="utf-8")
    page = render(settings, "[@raschka2024; @raschka2024b]\n")
    assert [t for _, t in page.links] == ["Raschka, 2024b", "Raschka, 2024a"]  # "A Second ..." sorts first


@pytest.mark.parametrize("plant, line, says", [
    (lambda bib: bib.replace("  title     = {{Attention", "  title     {{Attention"), 11, "BibTeX syntax error: '=' expected"),
    (lambda bib: bib + "\n@book{raschka2024,\n  title = {Twice},\n  publisher = {M},\n  year = {2024},\n}\n", 24,
     "repeated bibliography entry: raschka2024"),
    (lambda bib: bib + "\n@article{lonely,\n  title = {No Author},\n  journal = {J},\n  year = {2020},\n}\n", 24,
     "entry 'lonely' cannot be formatted: missing author in lonely"),
], ids=["syntax", "repeated-key", "missing-field"])
def test_a_bad_bibtex_file_names_its_line(site, plant, line, says):
    settings, bib = site
    bib.write_text(plant(BIB), encoding="utf-8")
    with pytest.raises(citations.BibError) as info:
        settings.markdown().convert("[@raschka2024]\n")
    assert str(info.value) == f"docs/refs.bib:{line}: {says}"
    assert info.value.located("docs/x.md", "[@raschka2024]") is info.value  # names the .bib, not the page


def test_missing_file_and_missing_option(site, tmp_path):
    settings, bib = site
    bib.unlink()
    with pytest.raises(citations.BibError, match=r"^docs/refs\.bib: no such BibTeX file"):
        settings.markdown().convert("[@raschka2024]\n")
    # no bibliography option: a citation says so, naming mkdocs.yml
    (tmp_path / "other" / "docs").mkdir(parents=True)
    (tmp_path / "other" / "mkdocs.yml").write_text(CONFIG.replace("      bibliography: docs/refs.bib\n", "").replace(
        "journal_citations:", "journal_citations"), encoding="utf-8")
    with pytest.raises(citations.BibError, match=r"^mkdocs\.yml: a page cites, but journal_citations has no"):
        mkdocs_config.load(tmp_path / "other" / "mkdocs.yml").markdown().convert("[@x]\n")


def test_an_edited_file_is_read_again(site):
    """make serve rebuilds in one process: the file is kept only while it is unchanged."""
    settings, bib = site
    assert render(settings, "[@raschka2024]\n").links[0][1] == "Raschka, 2024"
    bib.write_text(BIB.replace("year      = {2024}", "year      = {2025}"), encoding="utf-8")
    stat = bib.stat()
    os.utime(bib, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a later save, even within one clock tick
    assert render(settings, "[@raschka2024]\n").links[0][1] == "Raschka, 2025"


def test_settings_make_the_bibliography_absolute(site):
    settings, bib = site
    assert settings.bibliography == bib
    assert settings.mdx_configs[citations.NAME]["bibliography"] == str(bib)
    assert str(settings.root) not in settings.markdown_key()


def test_the_record_lists_what_nothing_cited(site):
    settings, bib = site
    cited = citations.Cited()
    assert cited.note(settings.markdown().convert("[@Vaswani2017] and [@vaswani2017]\n")) == ["vaswani2017"]
    loaded = citations.load(bib)
    assert cited.of(loaded) == {"vaswani2017"}
    assert cited.uncited(loaded) == [(1, "raschka2024"), (17, "bahdanau2014")]
    assert citations.Cited().of(loaded) == set()  # another build's record starts empty


def test_notebook_cells_share_one_list_at_the_end(site):
    settings, bib = site
    md = settings.markdown(options={citations.NAME: {"reference_list": False}})
    cells = [md.reset().convert(cell) for cell in ("A [@vaswani2017].\n", "No citation.\n", "B [@raschka2024; @vaswani2017].\n")]
    assert not any('id="references"' in c for c in cells)
    html, keys = citations.append_reference_list("".join(cells), citations.load(bib))
    assert keys == ["vaswani2017", "raschka2024"]
    page = _Page(html)
    assert [i for i in page.ids if i.startswith("ref-")] == ["ref-raschka2024", "ref-vaswani2017"]
    assert html.rstrip().endswith("</ul>") and html.count('id="references"') == 1


def test_a_notebook_citing_a_removed_key_fails(site):
    settings, bib = site
    cell = settings.markdown(options={citations.NAME: {"reference_list": False}}).convert("A [@bahdanau2014].\n")
    bib.write_text(re.sub(r"@article\{bahdanau2014.*", "", BIB, flags=re.S), encoding="utf-8")
    with pytest.raises(citations.UnknownKey, match="'bahdanau2014'"):
        citations.append_reference_list(cell, citations.load(bib))


def test_each_document_lists_only_its_own_citations(site):
    """One converter, several documents (blog views, notebook cells): reset() forgets the keys."""
    settings, _ = site
    md = settings.markdown()
    assert 'id="ref-raschka2024"' in md.convert("[@raschka2024]\n")
    second = md.reset().convert("Then [@vaswani2017].\n")
    assert 'id="ref-vaswani2017"' in second and "ref-raschka2024" not in second
    assert 'id="references"' not in md.reset().convert("Nothing cited.\n")


def test_an_entry_type_the_style_cannot_format_names_its_line(site):
    settings, bib = site
    bib.write_text(BIB + "\n@webpage{web,\n  title = {A Page},\n  url = {https://example.org/},\n}\n", encoding="utf-8")
    with pytest.raises(citations.BibError, match=r"^docs/refs\.bib:24: entry 'web': @webpage is not an entry type"):
        settings.markdown().convert("[@raschka2024]\n")


