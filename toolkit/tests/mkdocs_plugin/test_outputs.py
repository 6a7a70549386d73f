"""Printed outputs marked as outputs, a tensor shown once (mkdocs_plugin/outputs.py); formulas' TeX for search
(mkdocs_plugin/search_text.py)."""

from __future__ import annotations

import markdown

from journal_tools.mkdocs_plugin.outputs import mark_outputs
from journal_tools.mkdocs_plugin.search_text import searchable_math, tex_words, unindexed_boxes, unsearchable

PAGE = """```python
print(tokens)
```

<!--pytest-codeblocks:expected-output-->

```text
['Your', 'journey']
```

```python
print(inputs)
```

<!--pytest-codeblocks:expected-output-->

```text
tensor([[0.4300, 0.1500]])
```

<!-- journal:expected-math -->

$$
X = \\begin{bmatrix} 0.43 & 0.15 \\end{bmatrix}
$$
"""


def rendered(text: str) -> str:
    md = markdown.Markdown(extensions=["pymdownx.highlight", "pymdownx.superfences", "journal_tools.core.markup.markdown_math"])
    return md.convert(text)


def test_outputs_are_marked_and_a_checked_matrix_shows_its_tensor_once_folded_under_it():
    html = mark_outputs(rendered(PAGE))
    assert html.count('journal-output no-copy"') == 2  # both outputs: labelled, no copy button
    tokens, rest = html.split('class="n">inputs')
    assert "journal-printed" not in tokens and "['Your', 'journey']" in tokens  # shown as it is
    matrix, folded = rest.split('<details class="journal-printed">')
    assert 'class="math-display"' in matrix and "tensor" not in matrix  # the matrix first
    assert folded.startswith("<summary>Numbers checked against this printed output</summary>")  # the mark verified.md names
    assert "tensor([[0.4300, 0.1500]])" in folded and folded.endswith("</details>")


def test_a_checked_matrix_with_no_output_right_above_says_it_is_checked_too():
    page = PAGE.replace("<!--pytest-codeblocks:expected-output-->\n\n```text\ntensor([[0.4300, 0.1500]])\n```\n", "")
    html = mark_outputs(rendered(page))
    assert "<details" not in html
    assert html.rstrip().endswith('</div>\n<p class="journal-printed" data-search-exclude>Numbers checked against what the '
                                  "code above prints</p>")
    assert mark_outputs(rendered("$$\nX = 1\n$$\n")).count("Numbers checked") == 0  # an unchecked formula: no mark


def test_search_reads_a_formula_as_words_not_its_mathml_letters_nor_its_tex():
    html = searchable_math(rendered(r"Weights $\operatorname{softmax}\bigl(\frac{QK^\top}{\sqrt{d_k}}\bigr)V$ here."))
    tex = r"\operatorname{softmax}\bigl(\frac{QK^\top}{\sqrt{d_k}}\bigr)V"
    assert html.count(f'<math alttext="{tex}" data-search-exclude>') == 1  # the TeX kept for previews
    assert html.endswith("</math><span hidden data-tex>softmax(QK^\u22a4/sqrt(d_k))V</span> here.</p>")  # found by "sqrt d_k"
    assert "\\" not in html.split("data-search-exclude>", 1)[1].split("</math>", 1)[1]  # no TeX in what is indexed
    assert unsearchable(html).endswith("</math> here.</p>")  # the page written has no words added


def test_words_of_matrices_cases_and_comparisons_are_plain_text():
    assert tex_words(r"X = \begin{bmatrix} 0.43 & 0.15 \\ 0.55 & 0.87 \end{bmatrix}") == "X = [ 0.43 0.15; 0.55 0.87 ]"
    assert tex_words(r"\frac{\partial w_i}{\partial s_j}") == "\u2202w_i/\u2202s_j"
    html = searchable_math(rendered(r"Masked where $j > i$ and $a < b$."))
    assert "<span hidden data-tex>j &gt; i</span>" in html and unsearchable(html).count("data-tex") == 0


SERIES = """!!! info "Attention from scratch: part 1 of 3"
    1. **This** entry

!!! info series "Another series: part 2"
    Its list.

!!! info "Attention, a note"
    Indexed.
"""


def test_the_series_boxes_are_left_out_of_search_and_nothing_else():
    html = unindexed_boxes(markdown.Markdown(extensions=["admonition"]).convert(SERIES), ["Attention from scratch"])
    assert html.count("data-search-exclude") == 2
    assert '<div class="admonition info" data-search-exclude>' in html  # by its title
    assert '<div class="admonition info series" data-search-exclude>' in html  # by its class
    assert '<div class="admonition info">\n<p class="admonition-title">Attention, a note' in html
