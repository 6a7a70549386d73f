"""Numbers in sentences tied to the page's code (``core/code/prose_numbers.py``), on inline pages: read, checked after
the code above them, rewritten, shown to readers, and every mistake at its line."""

from __future__ import annotations

import pytest

from journal_tools.core.code import prose_numbers
from journal_tools.core.code.outputs import apply_updates
from journal_tools.core.code.parse import PageError, parse_page
from journal_tools.core.code.run import BlockError, ChainResult, run_chain

PAGE = """---
doctest: page
---

```python
d_k = 2
```

With $d_k = 2$ it divides by [1.41]{= d_k ** 0.5 :.2f}, and `[9]{= x}` in code is text.

```python
d_k = 512
```

Now [22.6]{= d_k ** 0.5 :.1f} and {= d_k} alone, [512]{= d_k}.
"""


def _page(journal, text, name="page.md"):
    settings, write = journal
    return parse_page(write(name, text), settings)


def _run(page, update=None):
    result = ChainResult()
    run_chain(page, page.steps, result, update)
    return result


def test_each_number_is_checked_after_the_block_above_it(journal):
    page = _page(journal, PAGE)
    first, second = (step.parts[0].prose for step in page.steps)
    assert [(n.written, n.field.strip()) for n in first] == [("1.41", "d_k ** 0.5 :.2f")]  # not the one in a code span
    assert [n.written for n in second] == ["22.6", None, "512"]
    result = _run(page)
    assert result.shown == ["1.41", "22.6", "512", "512"]
    assert result.numbers_checked == 3  # the filled one is shown, not compared


def test_a_changed_digit_fails_at_its_line_naming_both(journal):
    page = _page(journal, PAGE.replace("[1.41]", "[1.42]"))
    with pytest.raises(BlockError, match=r"docs/page\.md:9: the number written is 1\.42 but `d_k \*\* 0\.5` gives 1\.41 "
                                         r"\(`:\.2f`\); if the code is right, run `make update-outputs"):
        _run(page)


def test_update_rewrites_the_number_in_place(journal):
    settings, write = journal
    path = write("page.md", PAGE.replace("[1.41]", "[1.42]").replace("[512]", "[500]").replace("[22.6]", "[2]"))
    updates = []
    result = _run(parse_page(path, settings), updates)
    assert [(u.kind, u.line, u.numbers) for u in updates] == [("prose", 9, 1), ("prose", 15, 2)]
    (rewrite,) = apply_updates(settings.root, updates)
    assert rewrite.summary() == "docs/page.md: 3 numbers in the text (lines 9, 15)"
    assert path.read_text(encoding="utf-8") == PAGE
    assert result.numbers_checked == 3


@pytest.mark.parametrize("field, problem", [
    ("{= d_kk}", r"page\.md:7: NameError: name 'd_kk' is not defined. Did you mean: 'd_k'\?\n  in the number \{= d_kk\}"),
    ("{= d_k :.2q}", r"page\.md:7: ValueError: Unknown format code 'q'"),
    ("{= 1 / (d_k - 2)}", r"page\.md:7: ZeroDivisionError"),
])
def test_a_field_that_raises_fails_at_its_line(journal, field, problem):
    page = _page(journal, f"```python\nd_k = 2\n```\n\ntext\n\nThat is {field}.\n")
    with pytest.raises(BlockError, match=problem):
        _run(page)


@pytest.mark.parametrize("text, problem", [
    ("No code yet: [2]{= d_k}.\n\n```python\nd_k = 2\n```\n", r"page\.md:1: the number \{= d_k\} comes after no Python block"),
    ("```sh\necho 1\n```\n\n[1]{= x}\n", r"page\.md:5: .* comes after a 'sh' block"),
    ("```python\nx = 1\n```\n\n[1]{= x +}\n", r"page\.md:5: the number's field \{= x \+\} is not a Python f-string field"),
])
def test_a_number_that_cannot_be_checked_is_a_page_error(journal, text, problem):
    with pytest.raises(PageError, match=problem):
        _page(journal, text)


def test_block_mode_numbers_see_their_own_chain_only(journal):
    page = _page(journal, "```python\na = 1\n```\n\n[1]{= a}\n\n```python\nb = 2\n```\n\n[2]{= b} but {= a}\n")
    with pytest.raises(BlockError, match=r"page\.md:11: NameError: name 'a' is not defined"):
        for step in page.steps:
            run_chain(page, [step], ChainResult())


def test_readers_see_plain_numbers_outside_code(journal):
    text = "It is [1.41]{= r :.2f} or {= r :.3f}.\n\n```python\n[9]{= x}\n```\n\n`{= y}` stays.\n"
    assert prose_numbers.shown(text, ["1.41", "1.414"]) == "It is 1.41 or 1.414.\n\n```python\n[9]{= x}\n```\n\n`{= y}` stays.\n"
    assert prose_numbers.shown("No value yet: {= r :.3f}.") == "No value yet: `r :.3f`."


NOTEBOOK = """# %%
d_k = 2

# %% [markdown]
# It divides by [1.41]{= d_k ** 0.5 :.2f}; `[9]{= x}` is text.
#
# ```python
# [7]{= y}
# ```

# %%
d_k = 512

# %% [markdown]
# Now [22.6]{= d_k ** 0.5 :.1f}.
"""


def test_a_notebooks_markdown_numbers_are_checked_after_the_cell_above_and_rewritten(journal):
    from journal_tools.core.code.notebook import number_mismatches, read_notebook, run_notebook

    settings, write = journal
    path = write("nb.py", NOTEBOOK.replace("[22.6]", "[22.7]"))
    nb = read_notebook(path, settings)
    assert [[n.written for n in cell] for cell in nb.numbers] == [["1.41"], ["22.7"]]  # not in code spans or fences
    shown = []
    run_notebook(nb, [], shown=shown)
    (wrong,) = number_mismatches(nb, shown)
    assert (wrong.path, wrong.line) == ("docs/nb.py", 15)
    assert wrong.problem.startswith("the number written is 22.7 but `d_k ** 0.5` gives 22.6 (`:.1f`)"), wrong.problem
    apply_updates(settings.root, [wrong])
    assert path.read_text(encoding="utf-8") == NOTEBOOK


def test_a_notebooks_filled_number_is_a_mistake_at_its_line(journal):
    from journal_tools.core.code.notebook import read_notebook

    settings, write = journal
    with pytest.raises(PageError, match=r"the number \{= d_k \*\* 0\.5 :\.1f\}: it is filled in; in a notebook, write it") as found:
        read_notebook(write("nb.py", NOTEBOOK.replace("[22.6]", "")), settings)
    assert (found.value.path, found.value.line) == ("docs/nb.py", 15)


def test_a_notebooks_download_shows_the_number_as_written(journal, tmp_path):
    from types import SimpleNamespace

    from journal_tools.mkdocs_plugin.notebooks import write_ipynb

    settings, write = journal
    page = SimpleNamespace(file=SimpleNamespace(abs_src_path=str(write("nb.py", NOTEBOOK)), dest_path="nb/index.html"))
    name = write_ipynb(page, SimpleNamespace(site_dir=str(tmp_path / "site")))
    text = (tmp_path / "site" / "nb" / name).read_text(encoding="utf-8")
    assert "It divides by 1.41; `[9]{= x}` is text." in text and "{= d_k" not in text
