"""The editors' words found in a page's Markdown (core/page/editors.py): the three marked forms, nothing else."""

from __future__ import annotations

from journal_tools.core.page.editors import NOTICE, heading_is_editors, line_ranges, title_is_editors

PAGE = """---
date: 2025-07-27
# the editors: a YAML comment, no mark
---
# A title

The author's paragraph.

!!! note "Editor's note: why scale"
    First line of the note.

    Second paragraph of the note.

The author again.

```python
!!! note "Editor's note: inside a fence is code"
print("## The editors' section, as a string")
```

A paragraph the editors
wrote in two lines.
{ .editor }

## The editors' check

Its text.

### A subsection of it

More.

## The author's next section

<div class="editor" markdown>
A div of the editors'.
<div>nested</div>
</div>

<p class="editor">One more.</p>

!!! note "A note of the author's"
    Not the editors'.
"""


def lines_of(ranges: list[range]) -> list[tuple[int, int]]:
    return [(r.start, r.stop - 1) for r in ranges]


def test_each_marked_form_is_found_at_its_lines_and_nothing_else():
    assert lines_of(line_ranges(PAGE)) == [(9, 12), (21, 23), (25, 31), (35, 38), (40, 40)]


def test_a_page_without_marks_has_no_editors_words():
    assert line_ranges("# T\n\nThe author wrote it all.\n\n!!! note \"Note\"\n    Theirs too.\n") == []


def test_titles_and_headings_that_name_the_editors():
    assert title_is_editors("Editor's note: why") and title_is_editors("Editors: a check")
    assert not title_is_editors("A note for editors")  # a title must start so
    assert heading_is_editors("The editors' check") and heading_is_editors("Editor\u2019s notes")
    assert not heading_is_editors("Editorial choices") and not heading_is_editors("Credits")


def test_the_notice_names_both_marks():
    assert "Editor\u2019s note" in NOTICE and "\u201cEditors\u201d" in NOTICE and "not the author" in NOTICE
