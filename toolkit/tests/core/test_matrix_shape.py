"""A checked matrix is one printed tensor, shape and all (core/code/outputs.py): another shape
fails at the matrix's line naming both; `--update-outputs` fills a matrix in its own layout.
"""

from __future__ import annotations

import pytest

from journal_tools.core.code.outputs import OutputMismatch, apply_updates
from journal_tools.core.code.parse import PageError, parse_page
from journal_tools.core.code.printed_tensors import printed_tensors
from journal_tools.core.code.run import BlockError, ChainResult, run_chain
from journal_tools.core.code.seed_check import run_checked
from journal_tools.core.code.tex_matrix import matrix_numbers

# The new author's block: a 6x2 tensor, then its shape (torch.Size and plain numbers: not the matrix's).
BLOCK = """\
```python
import torch
context_vecs = torch.arange(24.).reshape(2, 6, 2) / 8
print(context_vecs[0])
print("shape:", context_vecs.shape, 2, 6, 2)
```
"""
# What it prints, the 12 numbers as a matrix row by row (torch prints 0.0000, 0.1250, ...).
ROWS = [["0.0000", "0.1250"], ["0.2500", "0.3750"], ["0.5000", "0.6250"],
        ["0.7500", "0.8750"], ["1.0000", "1.1250"], ["1.2500", "1.3750"]]


def _page(journal, matrix: str, name="m.md", marker="<!-- journal:expected-math -->", block=BLOCK):
    settings, write = journal
    return parse_page(write(name, f"{block}\n{marker}\n\n$$\nC = {matrix}\n$$\n"), settings)


def _bmatrix(rows: list[list[str]], sep=" & ") -> str:
    return "\\begin{bmatrix}\n" + " \\\\\n".join(sep.join(r) for r in rows) + "\n\\end{bmatrix}"


def _first_line(page, update=None) -> str:
    with pytest.raises(BlockError) as info:
        run_chain(page, page.steps, ChainResult(), update)
    return str(info.value).split("\n")[0]


LABELS = ("\\begin{matrix}\n\\leftarrow \\text{Your} \\\\ \\leftarrow \\text{journey} \\\\ \\leftarrow \\text{starts} \\\\\n"
          "\\leftarrow \\text{with} \\\\ \\leftarrow \\text{one} \\\\ \\leftarrow \\text{step}\n\\end{matrix}")


def test_the_new_authors_block_passes_its_12_numbers(journal):
    """The shape printed after the tensor is not a seventh row: the 6x2 matrix passes, 12 numbers checked."""
    page = _page(journal, _bmatrix(ROWS))
    result = ChainResult()
    run_chain(page, page.steps, result)
    assert result.numbers_checked == 12


def test_a_matrix_of_another_shape_fails_at_its_line_naming_both(journal):
    """A planted seventh row: 7x2 against the 6x2 printed."""
    page = _page(journal, _bmatrix([*ROWS, ["2", "6"]]))
    first = _first_line(page)
    # the marker is line 8, the $$ 10, "C = \begin{bmatrix}" 11, the first row 12
    assert first.startswith("docs/m.md:12: the matrix is 7x2 but the tensor the block at line 1 printed is 6x2;"), first


def test_update_fills_the_placeholder_with_its_12_numbers_in_its_own_layout(journal):
    """Zeros laid out by the author (a row a line, wide `&`, labels beside): each zero becomes its
    printed number where it stands; everything else is as written; the report counts 12."""
    settings, _ = journal
    zeros = "\\begin{bmatrix}\n" + " \\\\\n".join(["0  &  0"] * 6) + "\n\\end{bmatrix}\n" + LABELS
    page = _page(journal, zeros)
    updates: list[OutputMismatch] = []
    run_chain(page, page.steps, ChainResult(), updates)
    (done,) = apply_updates(settings.root, updates)
    assert done.numbers == 12 and done.summary() == "docs/m.md: 12 matrix numbers (line 10)"
    filled = "\\begin{bmatrix}\n" + " \\\\\n".join(f"{a}  &  {b}" for a, b in ROWS) + "\n\\end{bmatrix}\n" + LABELS
    assert (settings.root / page.path).read_text(encoding="utf-8") == f"{BLOCK}\n<!-- journal:expected-math -->\n\n$$\nC = {filled}\n$$\n"
    again = parse_page(settings.root / page.path, settings)
    run_chain(again, again.steps, ChainResult())


def test_update_refuses_a_shape_change_and_writes_nothing(journal):
    settings, _ = journal
    for rows, shape in (([["0", "0"]] * 7, "7x2"), ([["0", "0", "0"]] * 6, "6x3"), ([["0", "0"]] * 5, "5x2")):
        page = _page(journal, _bmatrix(rows))
        before = (settings.root / page.path).read_text(encoding="utf-8")
        updates: list[OutputMismatch] = []
        first = _first_line(page, updates)
        assert first.startswith(f"docs/m.md:12: the matrix is {shape} but the tensor the block at line 1 printed is 6x2"), first
        assert "`make update-outputs` keeps a matrix's shape" in first
        assert updates == [] and (settings.root / page.path).read_text(encoding="utf-8") == before


def test_labels_beside_the_matrix_are_not_checked(journal):
    """The labels (no number in them) are not a matrix of numbers: 12 numbers checked, as without them."""
    page = _page(journal, _bmatrix(ROWS) + "\n" + LABELS)
    result = ChainResult()
    run_chain(page, page.steps, result)
    assert result.numbers_checked == 12
    assert matrix_numbers(page.steps[0].math.tex) == [v for row in ROWS for v in row]


def test_a_label_inside_the_matrix_of_numbers_is_refused_at_its_line(journal):
    rows = [[*r, "\\leftarrow \\text{x}"] for r in ROWS]
    page = _page(journal, _bmatrix(rows))
    assert _first_line(page).startswith(
        "docs/m.md:12: row 1, column 3 of the matrix is '\\leftarrow \\text{x}', not a number, \\cdots, \\vdots or \\ddots")


WIDE = """\
```python
import torch
print(torch.arange(30).reshape(5, 6))
```
"""


def test_a_partial_matrix_shows_the_corners_around_its_dots(journal):
    """`\\cdots` for the columns left out, a row of `\\vdots`/`\\ddots` for the rows: the entries
    before the dots are the tensor's first, those after its last."""
    partial = _bmatrix([["0", "1", "\\cdots", "5"], ["\\vdots", "\\vdots", "\\ddots", "\\vdots"], ["24", "25", "\\cdots", "29"]])
    page = _page(journal, partial, block=WIDE)
    result = ChainResult()
    run_chain(page, page.steps, result)
    assert result.numbers_checked == 6
    wrong = _page(journal, partial.replace("25", "26"), "w.md", block=WIDE)
    assert _first_line(wrong).startswith("docs/w.md:12: number 5 of the matrix is 26 but the block at line 1 printed 25")
    too_big = _page(journal, _bmatrix([["0", "1", "2", "3", "4", "5", "\\cdots", "9"]]), "b.md", block=WIDE)
    assert _first_line(too_big).startswith("docs/b.md:10: the matrix is at least 1x7 (columns elided after column 6) "
                                           "but the tensor the block at line 1 printed is 5x6")


TWO = """\
```python
import torch
print(torch.tensor([[1, 2], [3, 4]]))
print(torch.tensor([[5, 6], [7, 8]]))
```
"""


@pytest.mark.parametrize("marker, matrix", [
    ("<!-- journal:expected-math tensor=2 -->", "\\begin{bmatrix} 5 & 6 \\\\ 7 & 8 \\end{bmatrix}"),
    ("<!-- journal:expected-math tensor=2[1] -->", "\\begin{bmatrix} 7 & 8 \\end{bmatrix}"),  # a printed row
    ("<!-- journal:expected-math tensor=1[:, 0] -->", "\\begin{bmatrix} 1 \\\\ 3 \\end{bmatrix}"),  # a column, as a column
])
def test_the_marker_names_a_printed_tensor_or_a_part_of_it(journal, marker, matrix):
    page = _page(journal, matrix, marker=marker, block=TWO)
    run_chain(page, page.steps, ChainResult())


@pytest.mark.parametrize("matrix, block, says", [
    ("\\begin{bmatrix} 5 & 6 \\\\ 7 & 8 \\end{bmatrix}", TWO,
     "printed 2 tensors a 2x2 matrix can show (tensors 1 and 2); name the one it shows in the marker: "
     "<!-- journal:expected-math tensor=2 -->"),
    ("\\begin{bmatrix} 0 & 1 & \\cdots & 1999 \\end{bmatrix}", "```python\nimport torch\nprint(torch.arange(2000))\n```\n",
     "printed is summarised"),
], ids=["two tensors of its shape need the marker", "a summarised tensor is not compared"])
def test_a_matrix_no_one_printed_tensor_stands_for_fails_saying_why(journal, matrix, block, says):
    assert says in _first_line(_page(journal, matrix, block=block))


@pytest.mark.parametrize("marker, message", [
    ("<!-- journal:expected-math tensor=0 -->", r"m\.md:8: .*tensors are counted from 1"),
    ("<!-- journal:expected-math tensr=1 -->", r"m\.md:8: .*cannot read 'tensr=1'"),
])
def test_a_marker_it_cannot_read_is_refused_at_its_line(journal, marker, message):
    with pytest.raises(PageError, match=message):
        _page(journal, "\\begin{bmatrix} 1 \\end{bmatrix}", marker=marker)


@pytest.mark.parametrize("text, shapes", [
    ("tensor([[1., 2.]])\nshape: torch.Size([1, 2]) (1, 2) 1 2", [(1, 2)]),  # the size and numbers: no tensor
    ("[[0.43 0.15]\n [0.55 0.87]]\narray([1, 2], dtype=int8)", [(2, 2), (2,)]),  # NumPy's str and repr
    ("tensor([2., 4.], grad_fn=<MulBackward0>) tensor(0.5000) tensor([], size=(0, 3))", [(2,), (), (0, 3)]),
    ("['Your', 'journey'] [[1, 2], [3]] [tensor([1.]), tensor([2., 3.])]", [(1,), (2,)]),  # words, ragged; tensors inside
    ("torch.return_types.max(\nvalues=tensor([2.]),\nindices=tensor([1]))", [(1,), (1,)]),
])
def test_printed_tensors_are_read_with_their_shapes(text, shapes):
    assert [t.shape for t in printed_tensors(text)] == shapes


def test_through_the_page_tests_run_the_shape_is_the_failure_not_the_seed(journal):
    """The page tests run a chain with the seed check after it (seed_check.run_checked): the same
    shape mismatch from seed 1 is the page's own failure, not reported as a seed-dependent output."""
    page = _page(journal, _bmatrix([*ROWS, ["2", "6"]]))
    with pytest.raises(BlockError) as info:
        run_checked(page, page.steps, ChainResult(), [])
    assert str(info.value).startswith("docs/m.md:12: the matrix is 7x2 but the tensor the block at line 1 printed is 6x2")
