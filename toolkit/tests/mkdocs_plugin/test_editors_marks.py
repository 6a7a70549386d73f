"""The editors' words marked in the HTML (mkdocs_plugin/editors.py), with the line at the top of the page."""

from __future__ import annotations

import markdown

from journal_tools.core.page.editors import NOTICE, line_ranges
from journal_tools.mkdocs_plugin.editors import add_notice, mark

PAGE = """# Title

The author's words.

!!! note "Editor's note: why scale"
    The editors' note.

??? note "Editors: folded"
    Folded.

A paragraph of the editors'.
{ .editor }

<div class="editor" markdown>
A div of theirs.
</div>

## The editors' check

Their section.

### Inside it

Still theirs.

## The author's section

!!! note "A note"
    The author's.
"""


def rendered(text: str) -> str:
    return markdown.Markdown(extensions=["admonition", "attr_list", "md_in_html", "pymdownx.details", "toc"]).convert(text)


def test_every_form_is_marked_and_nothing_of_the_author_s():
    html, found = mark(rendered(PAGE))
    assert found
    assert html.count('class="admonition note journal-editors"') == 1
    assert html.count('<details class="note journal-editors">') == 1
    assert html.count('<span class="journal-editors__label" data-search-exclude>Editors</span>') == 3  # the paragraph, the div, the section
    section = html.split('<section class="journal-editors journal-editors--section">')[1].split("</section>")[0]
    assert section.startswith('<span class="journal-editors__label" data-search-exclude>Editors</span><h2 id="the-editors-check">')
    assert "Their section." in section and "Still theirs." in section and "The author's section" not in section
    author = html.split("</section>")[1]
    assert "journal-editors" not in author  # the author's section and note keep no mark


def test_a_page_without_marks_is_left_alone_and_gets_no_line():
    html = rendered("# Title\n\nThe author's words.\n\n!!! note \"A note\"\n    Theirs.\n")
    assert mark(html) == (html, False)


def test_the_line_comes_right_after_the_title():
    html = add_notice(rendered("# Title\n\nWords.\n"))
    assert html.startswith('<h1 id="title">Title</h1>\n<p class="journal-editors-notice" data-search-exclude>')
    assert "not the author" in html and NOTICE.split("\u201d")[0].replace("\u2019", "&#8217;") not in html


def test_the_markdown_reader_and_the_html_marks_agree():
    """The downloads read the marks in the Markdown, the page in the HTML: the same page, the same verdict."""
    assert bool(line_ranges(PAGE)) == mark(rendered(PAGE))[1]
    plain = "# Title\n\nWords.\n"
    assert bool(line_ranges(plain)) == mark(rendered(plain))[1] is False


def test_a_note_right_after_a_note_ending_in_code_is_marked_too():
    """A code block's <pre> is no admonition title: the note after it keeps its own mark (the second was left unmarked)."""
    notes = ('!!! note "Editor\'s note: one"\n    Set-up:\n\n    ```python\n    x = 1\n    ```\n\n'
             '!!! note "Editor\'s note: two"\n    The second.\n')
    html, _ = mark(markdown.Markdown(extensions=["admonition", "pymdownx.highlight", "pymdownx.superfences"]).convert(notes))
    assert html.count('class="admonition note journal-editors"') == 2, html
