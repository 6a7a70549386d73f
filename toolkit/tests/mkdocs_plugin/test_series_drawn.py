"""What the fixture journal's build draws of its series (journal_tools/mkdocs_plugin/series.py: its entry part 1, its notebook
part 2) and of its labels (journal_tools/core/markup/crossrefs.py): the box, the pager, the index page, the numbers."""

from __future__ import annotations

import re


def test_the_box_lists_the_parts_and_is_kept_out_of_search(fixture_build):
    assert fixture_build.returncode == 0, fixture_build.output
    entry = (fixture_build.site / "blog/2025/07/27/fixture-entry/index.html").read_text(encoding="utf-8")
    box = re.search(r'<aside class="journal-series"[^>]*data-search-exclude>(.*?)</aside>', entry, re.S)
    assert box, "no series box on the entry"
    assert entry.index("<!-- more -->") < box.start(), "the box is in the excerpt (it belongs after it, as the feeds show it)"
    assert '<a href="../../../../../series/weights-by-hand/">Weights by hand</a>: part 1 of 2' in box[1]
    assert '<strong aria-current="page">Fixture entry</strong>' in box[1]
    assert '<a href="../../../../../notebooks/fixture_notebook/">Fixture notebook</a>' in box[1]
    index = (fixture_build.site / "search/search_index.json").read_text(encoding="utf-8")
    assert "part 1 of 2" not in index and "Next in the series" not in index


def test_each_part_ends_with_previous_and_next_in_the_series(fixture_build):
    entry = (fixture_build.site / "blog/2025/07/27/fixture-entry/index.html").read_text(encoding="utf-8")
    notebook = (fixture_build.site / "notebooks/fixture_notebook/index.html").read_text(encoding="utf-8")
    pager = r'<nav class="journal-pager journal-series-pager"[^>]*>(.*?)</nav>'
    assert re.findall(r'<span class="journal-pager__direction">([^<]*)</span><span class="journal-pager__title">([^<]*)',
                      re.search(pager, entry, re.S)[1]) == [("Next in the series", "Fixture notebook")]
    assert re.findall(r'<span class="journal-pager__direction">([^<]*)</span><span class="journal-pager__title">([^<]*)',
                      re.search(pager, notebook, re.S)[1]) == [("Previous in the series", "Fixture entry")]
    assert "part 2 of 2" in notebook
    assert ' rel="' not in re.search(pager, entry, re.S)[0]  # rel=prev/next are the date order's (the journal pager's)


def test_the_series_index_lists_the_parts_in_order(fixture_build):
    index = (fixture_build.site / "series/weights-by-hand/index.html").read_text(encoding="utf-8")
    assert "<p>Softmax weights, first in an entry, then in a notebook.</p>" in index
    assert re.findall(r'<li><a href="([^"]+)">([^<]+)</a>([^<]*)</li>', index) == [
        ("../../blog/2025/07/27/fixture-entry/", "Fixture entry", " · July 27, 2025"),
        ("../../notebooks/fixture_notebook/", "Fixture notebook", " · a notebook")]


def test_the_fixture_entry_numbers_its_equation_and_figure(fixture_build):
    entry = (fixture_build.site / "blog/2025/07/27/fixture-entry/index.html").read_text(encoding="utf-8")
    assert '<p>Each row of <a href="#eq-weights">(1)</a> sums to 1.</p>' in entry
    assert re.search(r'id="eq-weights"[^>]*><math[^>]*>.*<mtext>\(1\)</mtext>', entry, re.S)
    assert '<figure class="journal-figure" id="fig-square">' in entry and "<figcaption>Figure 1: A square" in entry
