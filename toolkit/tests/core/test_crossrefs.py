"""Numbered equations, figures and listings and the references to them (journal_tools/core/markup/crossrefs.py), on inline pages
of the tiny journal: drawn as the ``::render`` test renders them, and each mistake at its ``file:line``."""

from __future__ import annotations

import re

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.core.code.figures import expand_figures
from journal_tools.core.code.parse import parse_page
from journal_tools.core.code.render_check import RenderProblem, _render, check_render
from journal_tools.core.markup import crossrefs

PAGE = """\
---
# a comment of the front matter, not the title another page's reference names
date: 2025-07-28
categories: [Attention]
---

# Scores and weights

By @eq-softmax, each row of the weights sums to 1; @fig-weights shows them and
@lst-mask computes them. Not a reference: `@eq-softmax` in code, me@eq-x.org.

<!-- more -->

$$
s = q k^\\top
$$ {#eq-scores}

$$
w_i = \\frac{e^{s_i}}{\\sum_j e^{s_j}}
$$ {#eq-softmax}

$$ x = 1 $$

<!-- journal:figure weights.square | The weights. {#fig-weights} -->

```python {#lst-mask title="mask.py"}
x = 1
```

As [@eq-softmax] and again @eq-scores.
"""

OTHER = """\
---
date: 2025-07-29
categories: [Attention]
---

# The Next Entry

The weights of [@eq-softmax](2025-07-28-scores.md) and [@fig-weights](2025-07-28-scores.md).

<!-- more -->
"""


@pytest.fixture
def pages(journal):
    settings, write = journal
    config = settings.config_file  # with attr_list, as the journal's: a listing's {#lst-x} is its block's id
    config.write_text(config.read_text(encoding="utf-8").replace("markdown_extensions:\n", "markdown_extensions:\n  - attr_list\n"),
                      encoding="utf-8")
    settings = mkdocs_config.load(config)
    write("blog/posts/2025-07-28-scores.md", PAGE)
    write("blog/posts/2025-07-29-next.md", OTHER)
    return settings, write


def _html(settings, name: str) -> str:
    path = settings.docs_dir / "blog" / "posts" / name
    return _render(path.read_text(encoding="utf-8"), settings.rel(path), settings)


def test_references_are_drawn_as_numbered_links(pages):
    html = _html(pages[0], "2025-07-28-scores.md")
    assert '<a href="#eq-softmax">(2)</a>, each row' in html  # the second labelled formula; the unlabelled one is not counted
    assert '<a href="#fig-weights">Figure 1</a> shows' in html and '<a href="#lst-mask">Listing 1</a> computes' in html
    assert "As <a href=\"#eq-softmax\">(2)</a> and again <a href=\"#eq-scores\">(1)</a>." in html
    assert "<code>@eq-softmax</code>" in html and "me@eq-x.org" in html  # code and an address left alone


def test_a_labelled_formula_has_its_id_and_its_number_in_its_mathml(pages):
    html = _html(pages[0], "2025-07-28-scores.md")
    display = re.search(r'<div[^>]*id="eq-softmax"[^>]*>(<math.*?</math>)</div>', html, re.S)
    assert display, html
    assert '<mtd class="journal-eq__side journal-eq__number"><mtext>(2)</mtext></mtd>' in display[1]
    assert "mlabeledtr" not in html and html.count("<mtext>(") == 2  # the unlabelled formula has no number


def test_a_listing_and_a_figure_are_numbered_with_their_captions(pages):
    settings = pages[0]
    html = _html(settings, "2025-07-28-scores.md")
    assert '<div id="lst-mask" class="language-python highlight"><span class="filename">Listing 1: mask.py</span>' in html
    source = (settings.docs_dir / "blog/posts/2025-07-28-scores.md").read_text(encoding="utf-8")
    resolved = crossrefs.resolve(source, "docs/blog/posts/2025-07-28-scores.md", settings.root)
    figure = expand_figures(resolved, {"weights.square": "<svg></svg>"}, "docs/blog/posts/2025-07-28-scores.md")
    assert '<figure class="journal-figure" id="fig-weights">' in figure
    assert "<figcaption>Figure 1: The weights.</figcaption>" in figure


def test_a_reference_to_another_page_names_it(pages):
    html = _html(pages[0], "2025-07-29-next.md")
    assert '<a href="2025-07-28-scores.md#eq-softmax">(2) in Scores and weights</a>' in html
    assert '<a href="2025-07-28-scores.md#fig-weights">Figure 1 in Scores and weights</a>' in html


@pytest.mark.parametrize(("name", "old", "new", "line", "says"), [
    ("unknown label", "By @eq-softmax,", "By @eq-sofmax,", 9, "unknown label 'eq-sofmax': this page labels no equation, figure or "
                                                            "listing so; did you mean 'eq-softmax'?"),
    ("duplicated label", "$$ {#eq-scores}", "$$ {#eq-softmax}", 20, "label 'eq-softmax' is given twice (also at line 16)"),
    ("label on no display formula", "$$ x = 1 $$", "$$ x = 1 $$ {#eq-x}\nmore text", 22, "'eq-x' follows no display formula"),
])
def test_a_mistake_on_the_page_fails_its_render_at_its_line(pages, name, old, new, line, says):
    settings, write = pages
    assert old in PAGE
    path = write("blog/posts/2025-07-28-scores.md", PAGE.replace(old, new, 1))
    with pytest.raises(RenderProblem) as caught:
        check_render(parse_page(path, settings), settings)
    assert str(caught.value).startswith(f"docs/blog/posts/2025-07-28-scores.md:{line}: "), str(caught.value)
    assert says in str(caught.value)


@pytest.mark.parametrize(("old", "new", "says"), [
    ("[@eq-softmax](2025-07-28-scores.md)", "[@eq-softmax](2025-07-28-scorez.md)",
     "refers to 2025-07-28-scorez.md (docs/blog/posts/2025-07-28-scorez.md), which is no page of the journal"),
    ("[@eq-softmax](2025-07-28-scores.md)", "[@eq-scaled](2025-07-28-scores.md)",
     "unknown label 'eq-scaled': docs/blog/posts/2025-07-28-scores.md labels no equation, figure or listing so"),
])
def test_a_reference_to_another_page_that_cannot_be_found_fails_at_its_line(pages, old, new, says):
    settings, write = pages
    path = write("blog/posts/2025-07-29-next.md", OTHER.replace(old, new, 1))
    with pytest.raises(RenderProblem) as caught:
        check_render(parse_page(path, settings), settings)
    assert str(caught.value).startswith("docs/blog/posts/2025-07-29-next.md:8: "), str(caught.value)
    assert says in str(caught.value)


def test_labels_and_references_inside_code_fences_are_text(pages):
    settings, write = pages
    fenced = "```text\n$$ {#eq-softmax}\n@eq-nowhere\n```\n"
    write("blog/posts/2025-07-28-scores.md", PAGE + "\n" + fenced)
    assert "@eq-nowhere" in _html(settings, "2025-07-28-scores.md")  # no duplicate, no unknown label
