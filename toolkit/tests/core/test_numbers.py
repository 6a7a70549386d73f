"""Every number PyTorch prints is read (core/code/outputs.py), printed and in a checked LaTeX
matrix; `--update-outputs` rewrites a matrix's numbers whenever they differ.
"""

from __future__ import annotations

import pytest

from journal_tools.core.code.numbers import as_tex, printed_numbers, same_number
from journal_tools.core.code.outputs import OutputMismatch, apply_updates
from journal_tools.core.code.parse import parse_page
from journal_tools.core.code.printed_tensors import printed_tensors
from journal_tools.core.code.run import BlockError, ChainResult, run_chain
from journal_tools.core.code.tex_matrix import matrix_numbers
from journal_tools.core.mistake import Origin

# What torch 2.13 prints for each format (checked against torch below), and the values read from it.
PRINTED = [
    ("tensor([0.0000e+00, -0.0000e+00, 1.5000e-05,        nan,        inf,       -inf])",
     ["0.0000e+00", "-0.0000e+00", "1.5000e-05", "nan", "inf", "-inf"]),
    ("tensor([[ 0.,  1.],\n        [ 2., -3.]])", ["0.", "1.", "2.", "-3."]),
    ("tensor([[ 1,  2],\n        [ 3, -4]])", ["1", "2", "3", "-4"]),
    ("tensor([ True, False])", ["True", "False"]),
    ("tensor(0.5000) tensor(3)", ["0.5000", "3"]),
    ("[0.5, -0.0, nan, inf]", ["0.5", "-0.0", "nan", "inf"]),  # Python floats in a list
]


@pytest.mark.parametrize("text, values", PRINTED)
def test_every_printed_format_is_read(text, values):
    assert printed_numbers(text) == values


def test_the_formats_are_what_torch_prints():
    torch = pytest.importorskip("torch", reason="the formats above are torch's; without torch only the regex is tested")
    torch.set_printoptions(profile="default")
    nan, inf = float("nan"), float("inf")
    assert str(torch.tensor([0.0, -0.0, 1.5e-5, nan, inf, -inf])) == PRINTED[0][0]
    assert str(torch.tensor([[0.0, 1.0], [2.0, -3.0]])) == PRINTED[1][0]
    assert str(torch.tensor([[1, 2], [3, -4]])) == PRINTED[2][0]
    assert str(torch.tensor([True, False])) == PRINTED[3][0]


@pytest.mark.parametrize("text", [
    "SoftmaxBackward0", "torch 2.13.0", "information", "nanny", "Trueness", "x1", "inference", "v1.2.3",
])
def test_not_numbers(text):
    assert printed_numbers(text) == []


@pytest.mark.parametrize("tex, values", [
    (r"\begin{bmatrix} 0. & -0. & 1.5000e-05 \end{bmatrix}", ["0.", "-0.", "1.5000e-05"]),
    (r"\begin{bmatrix} \text{nan} & \mathrm{nan} & nan \end{bmatrix}", ["nan", "nan", "nan"]),
    (r"\begin{bmatrix} \infty & -\infty & - \infty \end{bmatrix}", ["inf", "-inf", "-inf"]),
    (r"\begin{pmatrix} \mathrm{True} & \text{False} \\ True & 3 \end{pmatrix}", ["True", "False", "True", "3"]),
    (r"A = \begin{bmatrix} 1 & -4 \end{bmatrix} \begin{matrix} \leftarrow \text{x} \end{matrix}", ["1", "-4"]),
])
def test_every_tex_form_is_read(tex, values):
    assert matrix_numbers(tex) == values


@pytest.mark.parametrize("a, b, same", [
    ("0.10", "0.1000", True), ("0.", "0.0000", True), ("-0.", "0.", True), ("1.5000e-05", "0.000015", True),
    ("nan", "nan", True), ("inf", "inf", True), ("-inf", "inf", False), ("True", "True", True),
    ("True", "1", False), ("False", "0", False), ("0.4483", "0.4484", False), ("3", "3.", True),
])
def test_values_compare(a, b, same):
    assert same_number(a, b) is same


def test_printed_values_written_the_tex_way():
    assert [as_tex(v) for v in ["nan", "inf", "-inf", "True", "False", "0.5"]] == [
        r"\mathrm{nan}", r"\infty", r"-\infty", r"\mathrm{True}", r"\mathrm{False}", "0.5"]
    assert matrix_numbers(r"\begin{bmatrix}" + " & ".join(as_tex(v) for v in ["nan", "-inf", "True"]) + r"\end{bmatrix}") == [
        "nan", "-inf", "True"]


def test_printed_shapes_follow_the_brackets():
    """torch wraps a long row over lines inside one pair of brackets: still one row; a scalar has shape ()."""
    wrapped = "tensor([[0.1, 0.2,\n         0.3],\n        [0.4, 0.5, 0.6]])\ntensor([7, 8])"
    assert [(t.shape, t.values) for t in printed_tensors(wrapped)] == [
        ((2, 3), [["0.1", "0.2", "0.3"], ["0.4", "0.5", "0.6"]]), ((2,), ["7", "8"])]
    assert [t.shape for t in printed_tensors("tensor(0.5)\n1 2\n")] == [()]  # 1 2: numbers, no tensor


# -- on a page: the check and the rewrite ------------------------------------------

PAGE = """\
```python
import torch
print(torch.tensor({values}))
```

<!-- journal:expected-math -->

$$
M = \\begin{{bmatrix}}
{matrix}
\\end{{bmatrix}}
$$
"""


def _check(journal, values: str, matrix: str, update=None):
    settings, write = journal
    page = parse_page(write("m.md", PAGE.format(values=values, matrix=matrix)), settings)
    run_chain(page, page.steps, ChainResult(), update)
    return page


@pytest.mark.parametrize("values, matrix", [
    ("[[0., -0.], [float('nan'), float('inf')]]", r"0. & -0. \\ \text{nan} & \infty"),
    ("[[1.5e-5, -float('inf')]]", r"1.5000e-05 & -\infty"),
    ("[[True, False]]", r"\mathrm{True} & \mathrm{False}"),
    ("[[1, -4]]", "1 & -4"),
])
def test_matrix_of_every_format_passes(journal, values, matrix):
    _check(journal, values, matrix)


def test_no_numbers_printed_is_said_in_words(journal):
    settings, write = journal
    page = parse_page(write("n.md", "```python\nprint('none here')\n```\n\n<!-- journal:expected-math -->\n\n"
                                    "$$\n\\begin{bmatrix} 1 & 2 \\end{bmatrix}\n$$\n"), settings)
    # Numbers printed outside a tensor are never compared; a shape mistake is named at the matrix's first row.
    with pytest.raises(BlockError, match=r"docs/n\.md:8: the matrix is 1x2 but the block at line 1 printed no tensor"):
        run_chain(page, page.steps, ChainResult())


def test_mismatch_names_the_number_and_the_hint(journal):
    with pytest.raises(BlockError, match=r"number 2 of the matrix is \\infty|number 2 of the matrix is inf") as info:
        _check(journal, "[[0., -float('inf')]]", r"0. & \infty")
    first = str(info.value).split("\n")[0]
    assert first.startswith("docs/m.md:10: number 2 of the matrix is inf but the block at line 1 printed -inf")  # the row's line
    assert "make update-outputs" in first


@pytest.mark.parametrize("values, matrix, rewritten", [
    # same count, one value differs: only that number changes, in its TeX form
    ("[[0.5, float('nan')]]", r"0.5 & 7", [r"0.5 & \mathrm{nan}"]),
    ("[[True], [False]]", r"\mathrm{True} \\ 1", [r"\mathrm{True} \\ \mathrm{False}"]),
])
def test_update_rewrites_whenever_the_check_fails(journal, values, matrix, rewritten):
    updates: list[OutputMismatch] = []
    page = _check(journal, values, matrix, updates)
    (u,) = updates
    assert u.new_lines[2:-2] == rewritten
    # written back, the page passes
    settings, _ = journal
    lines = (settings.root / page.path).read_text(encoding="utf-8").split("\n")
    lines[u.first_line - 1 : u.first_line - 1 + len(u.old_lines)] = u.new_lines
    (settings.root / page.path).write_text("\n".join(lines), encoding="utf-8")
    again = parse_page(settings.root / page.path, settings)
    run_chain(again, again.steps, ChainResult())


# -- what is new is filled whole; a mismatch names its exact line ----------------------


@pytest.mark.parametrize("matrix, rewritten, numbers", [
    # all zeros (written for the tool to fill): every number written as printed, the zeros too, the layout kept
    (r"0 & 0 \\" + "\n0 & 0", [r"1.0000 & 0.0000 \\", "0.5000 & 0.5000"], 4),
    # one wrong number: only it; the right 0 is kept as written
    (r"1.0000 & 0 \\" + "\n0.5000 & 0.5001", [r"1.0000 & 0 \\", "0.5000 & 0.5000"], 1),
], ids=["placeholder filled whole", "one wrong number"])
def test_a_matrix_update_writes_what_differs_in_its_layout(journal, matrix, rewritten, numbers):
    updates: list[OutputMismatch] = []
    _check(journal, "[[1.0, 0.0], [0.5, 0.5]]", matrix, updates)
    (u,) = updates
    assert u.new_lines[2:-2] == rewritten
    assert (u.kind, u.numbers) == ("matrix", numbers)


OUTPUT_PAGE = """\
```python
print("a\\nb\\nc")
```

<!--pytest-codeblocks:expected-output-->
```text
{shown}
```
"""


def test_an_empty_output_fence_is_filled_whole(journal):
    settings, write = journal
    page = parse_page(write("o.md", OUTPUT_PAGE.replace("{shown}\n", "")), settings)
    updates: list[OutputMismatch] = []
    run_chain(page, page.steps, ChainResult(), updates)
    (u,) = updates
    assert (u.first_line, u.old_lines, u.new_lines, u.kind) == (7, [], ["a", "b", "c"], "output")


@pytest.mark.parametrize("shown, line", [
    ("a\nB\nc", 8),  # the second line of the fence (the fence itself is line 6)
    ("a\nb", 9),  # a line missing: where it should be (the closing fence)
    ("x\nb\nc", 7),
])
def test_an_output_mismatch_names_the_first_differing_line_of_the_fence(journal, shown, line):
    settings, write = journal
    page = parse_page(write("o.md", OUTPUT_PAGE.format(shown=shown)), settings)
    with pytest.raises(BlockError) as info:
        run_chain(page, page.steps, ChainResult())
    assert str(info.value).startswith(f"docs/o.md:{line}: the expected output differs from what the block at line 1 printed")


def test_updating_a_mismatch_it_cannot_write_back_fails(journal):
    """Two matrices of numbers shown, one printed tensor: a check compares one matrix with one
    tensor, so the update run fails at the second matrix instead of passing with the page unchanged."""
    settings, write = journal
    text = PAGE.format(values="[[1, 2, 3]]", matrix=r"1 \end{bmatrix} \begin{bmatrix} 2")
    page = parse_page(write("u.md", text), settings)
    updates: list[OutputMismatch] = []
    with pytest.raises(BlockError, match=r"docs/u\.md:10: the formula .* holds 2 matrices of numbers"):
        run_chain(page, page.steps, ChainResult(), updates)
    assert updates == []


def test_rewrites_are_reported_page_by_page_in_line_order(tmp_path):
    """Each page once, in the order the pages ran, its lines ascending, with what was written."""
    (tmp_path / "b.md").write_text("x\n\n0\n", encoding="utf-8")
    (tmp_path / "a.md").write_text("```text\n```\n\n$$ 0 $$\n\n```text\n```\n", encoding="utf-8")
    updates = [
        OutputMismatch(Origin("b.md", max(3, 1)), "", "b.md", 3, ["0"], ["1"], "matrix", 1),
        OutputMismatch(Origin("a.md", max(7, 1)), "", "a.md", 7, [], ["8"], "output"),
        OutputMismatch(Origin("a.md", max(4, 1)), "", "a.md", 4, ["$$ 0 $$"], ["$$ 0.5 $$"], "matrix", 1),
        OutputMismatch(Origin("a.md", max(2, 1)), "", "a.md", 2, [], ["7"], "output"),
        OutputMismatch(Origin("a.md", max(0, 1)), "", "a.md", 0, [], [], "output"),  # nothing to write: not reported
    ]
    done = apply_updates(tmp_path, updates)
    assert [page.summary() for page in done] == ["b.md: 1 matrix number (line 3)",
                                                 "a.md: 2 outputs (lines 2, 8), 1 matrix number (line 5)"]  # lines of the page as rewritten
    assert (tmp_path / "a.md").read_text(encoding="utf-8") == "```text\n7\n```\n\n$$ 0.5 $$\n\n```text\n8\n```\n"
