"""Series from front matter (journal_tools/core/page/series.py): parts read from an entry's front matter and a notebook's
``# jupyter:`` header, each mistake at its key's line; the box, index page and pager as the fixture journal's build draws them
(journal_tools/mkdocs_plugin/series.py: tests/mkdocs_plugin/test_series_drawn.py)."""

from __future__ import annotations

import pytest

from journal_tools.core.page import series
from journal_tools.core.page.series import SeriesError

SERIES = """\
# the journal's series
attention:
  title: Attention from scratch
  description: Dot products to multi-head attention.
"""


def _entry(day: int, part: str = "series: attention\npart: 1\n") -> str:
    return f"---\ndate: 2025-07-{day:02d}\ncategories: [Attention]\n{part}---\n\n# Entry {day}\n\nText.\n\n<!-- more -->\n"


NOTEBOOK = """\
# ---
# jupyter:
#   kernelspec:
#     name: python3
#   series: attention
#   part: 3
# ---

# %% [markdown]
# # A notebook
"""


@pytest.fixture
def journal_with_series(journal):
    settings, write = journal
    (settings.docs_dir / "blog" / ".series.yml").write_text(SERIES, encoding="utf-8")
    write("blog/posts/2025-07-26-one.md", _entry(26))
    write("blog/posts/2025-07-27-two.md", _entry(27, "series: attention\npart: 2\n"))
    return settings, write


def test_parts_are_read_from_front_matter_and_a_notebook_header(journal_with_series):
    settings, _ = journal_with_series
    note = series.part_of(NOTEBOOK, "docs/notebooks/a.py", notebook=True)
    assert (note.series, note.number, note.series_line, note.part_line, note.title) == ("attention", 3, 5, 6, "A notebook")
    assert [(p.path, p.number, p.title) for p in series.parts(settings)] == [
        ("docs/blog/posts/2025-07-26-one.md", 1, "Entry 26"), ("docs/blog/posts/2025-07-27-two.md", 2, "Entry 27")]
    assert series.declared(settings)["attention"]["title"] == "Attention from scratch"


@pytest.mark.parametrize(("name", "page", "line", "says"), [
    ("undeclared series", _entry(28, "series: atention\npart: 3\n"), 4,
     "series 'atention' is not declared in docs/blog/.series.yml, which declares attention"),
    ("two parts with one number", _entry(28, "series: attention\npart: 2\n"), 5,
     "part 2 of series 'attention' is also docs/blog/posts/2025-07-27-two.md:5: each part has its own number"),
    ("a part that is no number", _entry(28, "series: attention\npart: second\n"), 5,
     "a part of series 'attention' needs `part: N`, its place in the series (1, 2, ...), not 'second'"),
    ("a series without a part", _entry(28, "series: attention\n"), 4, "needs `part: N`"),
])
def test_a_mistake_fails_at_its_key(journal_with_series, name, page, line, says):
    settings, write = journal_with_series
    path = write("blog/posts/2025-07-28-three.md", page)
    with pytest.raises(SeriesError) as caught:
        series.check_page(path, settings)
    assert str(caught.value).startswith(f"docs/blog/posts/2025-07-28-three.md:{line}: "), str(caught.value)
    assert says in str(caught.value)


def test_of_two_parts_with_one_number_only_the_later_path_fails(journal_with_series):
    settings, write = journal_with_series
    write("blog/posts/2025-07-28-three.md", _entry(28, "series: attention\npart: 2\n"))
    series.check_page(settings.docs_dir / "blog/posts/2025-07-27-two.md", settings)  # the earlier one passes: one failure


def test_a_broken_series_file_fails_the_first_part_only(journal_with_series):
    settings, _ = journal_with_series
    (settings.docs_dir / "blog" / ".series.yml").write_text("attention:\n  description: no title\n", encoding="utf-8")
    with pytest.raises(SeriesError) as caught:
        series.check_page(settings.docs_dir / "blog/posts/2025-07-26-one.md", settings)
    assert str(caught.value).startswith("docs/blog/.series.yml:1: series 'attention' needs a title")
    series.check_page(settings.docs_dir / "blog/posts/2025-07-27-two.md", settings)


def test_a_series_file_that_is_not_yaml_fails_at_its_line(journal_with_series):
    settings, _ = journal_with_series
    (settings.docs_dir / "blog" / ".series.yml").write_text("attention:\n  title: [unclosed\n", encoding="utf-8")
    with pytest.raises(SeriesError) as caught:
        series.declared(settings)
    assert str(caught.value).startswith("docs/blog/.series.yml:3: docs/blog/.series.yml is not valid YAML"), str(caught.value)
