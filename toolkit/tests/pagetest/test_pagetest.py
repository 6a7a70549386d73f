"""The page doc-test plugin: one fault (or feature) planted in a copy of the fixture journal, pytest
run on it in-process (pytester), and the outcome and report text read as a person reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixture_journal import FIXTURE, fixture_project

pytestmark = pytest.mark.slow  # each test runs a pytest session on the fixture journal


pytest_plugins = ["pytester"]


def _preload_site_modules() -> None:
    """Import what mkdocs.yml loads before pytester snapshots sys.modules: pytester drops modules first
    imported in a run, so mkdocs would reject its cached plugins and torch reload its C extension."""
    import numpy  # noqa: F401  (torch and numpy cannot be imported twice in one process)
    import torch  # noqa: F401
    import torch.nn.functional  # noqa: F401

    from journal_tools.compat import mkdocs_config

    mkdocs_config.load(FIXTURE / "mkdocs.yml").markdown()


_preload_site_modules()
ENTRY = "docs/blog/posts/2025-07-27-fixture-entry.md"
ENTRY_NAME = Path(ENTRY).name
NOTEBOOK = "docs/notebooks/fixture_notebook.py"


@pytest.fixture
def site(pytester):
    fixture_project(pytester.path)
    return pytester


def run(site, *paths, extra=()):
    return site.runpytest_inprocess(*(paths or (ENTRY,)), "-p", "no:randomly", "-p", "no:cacheprovider", *extra)


def append(site, text: str, page: str = ENTRY) -> None:
    path = site.path / page
    path.write_text(path.read_text(encoding="utf-8") + "\n" + text, encoding="utf-8")


def replace(site, old: str, new: str, path: str = ENTRY) -> None:
    file = site.path / path
    text = file.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def failed_with(result, *needles: str) -> str:
    out = result.stdout.str()
    assert result.ret == 1, out
    for needle in needles:
        assert needle in out, f"{needle!r} not in:\n{out}"
    return out


def test_entry_passes_and_counts_every_block(site):
    result = run(site)
    result.assert_outcomes(passed=3)
    text = (site.path / ENTRY).read_text(encoding="utf-8")
    fences = text.count("```python") + text.count("```py\n")
    result.stdout.fnmatch_lines([f"executed {fences} of {fences} code blocks on 1 pages"])


def test_block_that_raises_names_page_line_and_type(site):
    append(site, '```python\nx = 1\nraise ValueError("planted")\n```\n')
    lines = (site.path / ENTRY).read_text(encoding="utf-8").split("\n")
    line = lines.index('raise ValueError("planted")') + 1
    failed_with(result := run(site), f"{ENTRY}:{line}: ValueError: planted", "Traceback")
    assert "raise ValueError" in result.stdout.str()


# One planted block each: the page test must fail on it, naming the entry and what went wrong.
PLANTED_FAILURES = {
    "titled fence is run": ('```python title="planted.py"\n1 / 0\n```\n', ("ZeroDivisionError",)),
    "py fence is run": ("```py\nassert 1 == 2, 'planted assert'\n```\n", ("AssertionError: planted assert",)),
    "fence in admonition is run": ('!!! note "Inside"\n    ```python\n    raise KeyError("in admonition")\n    ```\n', ("KeyError",)),
    "missing snippet include fails": ('```python\n--8<-- "no_such_file.py"\n```\n', ("no_such_file.py", "could not be found")),
    "include escaping snippets dir fails": ('```python\n--8<-- "../mkdocs.yml"\n```\n', ("../mkdocs.yml",)),
    "malformed display formula fails": ("$$\n\\frac{a}{\n$$\n", ("bad TeX",)),
}


@pytest.mark.parametrize("planted, needles", PLANTED_FAILURES.values(), ids=PLANTED_FAILURES.keys())
def test_planted_block_fails_naming_the_entry(site, planted, needles):
    append(site, planted)
    failed_with(run(site), ENTRY_NAME, *needles)


def test_changed_digit_in_expected_output_fails(site):
    replace(site, "[[0.2689, 0.7311],", "[[0.2689, 0.7312],")
    lines = (site.path / ENTRY).read_text(encoding="utf-8").split("\n")
    line = lines.index("tensor([[0.2689, 0.7312],") + 1  # the line inside the fence, not the fence
    out = failed_with(run(site), f"{ENTRY}:{line}: the expected output differs", "0.7312",
                      "number 2 is 0.7312 on the page, printed 0.7311")
    assert f"run `make update-outputs PAGE={ENTRY}`" in out


@pytest.mark.parametrize("old, new, needles", [
    ("0.2689 & 0.7311", "0.2689 & 0.7318", ("is 0.7318 but the block", "printed 0.7311", "make update-outputs")),
    # the code side changing, not the page: other scores print other weights
    ("[[0.0, 1.0], [2.0, 2.0]]", "[[0.0, 1.5], [2.0, 2.0]]", ("expected output differs",)),
], ids=["digit of the latex matrix", "output of the code"])
def test_a_changed_matrix_digit_or_code_output_fails(site, old, new, needles):
    replace(site, old, new)
    failed_with(run(site), ENTRY_NAME, *needles)


def test_update_outputs_rewrites_page_and_then_passes(site):
    original = (site.path / ENTRY).read_text(encoding="utf-8")
    replace(site, "[[0.2689, 0.7311],", "[[0.2689, 0.7312],")
    replace(site, "0.2689 & 0.7311", "0.2689 & 0.7318")
    result = run(site, extra=["--update-outputs"])
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([f"  rewrote {ENTRY}: 1 output (line 31), 1 matrix number (line 37)"])
    assert (site.path / ENTRY).read_text(encoding="utf-8") == original
    run(site).assert_outcomes(passed=3)


def test_update_outputs_fills_what_is_new_and_only_on_the_page_named(site):
    """An empty output fence and an all-zero matrix are filled whole; another page that
    differs is left alone when one page is named (make update-outputs PAGE=...)."""
    original = (site.path / ENTRY).read_text(encoding="utf-8")
    replace(site, "tensor([[0.2689, 0.7311],\n        [0.5000, 0.5000]])\n", "")
    replace(site, "0.2689 & 0.7311 \\\\\n0.5000 & 0.5000", "0 & 0 \\\\\n0 & 0")
    append(site, "```python\nprint(1)\n```\n\n<!--pytest-codeblocks:expected-output-->\n```text\n2\n```\n", page="docs/index.md")
    other = (site.path / "docs/index.md").read_text(encoding="utf-8")
    result = run(site, ENTRY, extra=["--update-outputs"])
    result.stdout.fnmatch_lines([f"  rewrote {ENTRY}: 1 output (line 31), 4 matrix numbers (line 37)"])
    assert (site.path / ENTRY).read_text(encoding="utf-8") == original
    assert (site.path / "docs/index.md").read_text(encoding="utf-8") == other


NEW_AUTHOR = """\
```python
import torch
context_vecs = torch.arange(24.).reshape(2, 6, 2) / 8
print(context_vecs[0])
print("shape:", context_vecs.shape)
```

<!-- journal:expected-math -->

$$
Z = \\begin{bmatrix}
{rows}
\\end{bmatrix}
$$
"""


def test_update_outputs_fills_a_matrix_from_its_tensor_not_the_shape_printed_after_it(site):
    """A new author's block: a 6x2 tensor, then its shape. The 6x2 zeros get the
    tensor's 12 numbers, not 15 with a ragged row; a seventh row fails at the matrix naming both
    shapes, and the update refuses it, leaving the page as it was."""
    append(site, NEW_AUTHOR.replace("{rows}", " \\\\\n".join(["0 & 0"] * 6)))
    result = run(site, extra=["--update-outputs"])
    result.assert_outcomes(passed=3)  # the page (doctest: page), its render and its figures
    lines = (site.path / ENTRY).read_text(encoding="utf-8").split("\n")
    formula = lines.index("Z = \\begin{bmatrix}")  # 0-based: the $$ line is this, 1-based
    result.stdout.fnmatch_lines([f"  rewrote {ENTRY}: 12 matrix numbers (line {formula})"])
    assert lines[formula + 1 : formula + 7] == ["0.0000 & 0.1250 \\\\", "0.2500 & 0.3750 \\\\", "0.5000 & 0.6250 \\\\",
                                                "0.7500 & 0.8750 \\\\", "1.0000 & 1.1250 \\\\", "1.2500 & 1.3750"]
    replace(site, "1.2500 & 1.3750\n", "1.2500 & 1.3750 \\\\\n2 & 6\n")
    planted = (site.path / ENTRY).read_text(encoding="utf-8")
    failed_with(run(site, extra=["--update-outputs"]), f"{ENTRY}:{formula + 2}: the matrix is 7x2 but the tensor the block "
                f"at line {formula - 9} printed is 6x2")
    assert (site.path / ENTRY).read_text(encoding="utf-8") == planted


def test_failure_inside_snippet_names_snippet_line(site):
    path = site.path / "snippets/weights.py"
    text = path.read_text(encoding="utf-8")
    needle = "    return exps / exps.sum(dim=-1, keepdim=True)  # one row of weights per query\n"
    assert needle in text
    path.write_text(text.replace(needle, "    raise RuntimeError('planted in snippet')\n" + needle, 1))
    line = text[: text.index(needle)].count("\n") + 1
    failed_with(run(site), f"snippets/weights.py:{line} (included at {ENTRY}:", "RuntimeError: planted in snippet")


def test_notebook_page_runs_its_cells_and_names_the_failing_line(site):
    result = run(site, NOTEBOOK)
    result.assert_outcomes(passed=2)  # render (the Markdown cells' math) and notebook (the code cells)
    result.stdout.fnmatch_lines(["executed 2 of 2 code blocks on 1 pages"])
    replace(site, "print(weights.sum().item())", "print(weight.sum().item())", path=NOTEBOOK)
    lines = (site.path / NOTEBOOK).read_text(encoding="utf-8").split("\n")
    line = lines.index("print(weight.sum().item())") + 1
    out = failed_with(run(site, NOTEBOOK), f"{NOTEBOOK}:{line}: NameError: name 'weight' is not defined. Did you mean: 'weights'?")
    assert "executed 2 of 2 code blocks" in out  # the first cell ran, and so did the failing one


def test_notebook_markdown_math_is_checked(site):
    replace(site, "# Weights $w_{ij}$", "# Weights $w_{ij$", path=NOTEBOOK)
    lines = (site.path / NOTEBOOK).read_text(encoding="utf-8").split("\n")
    line = next(n for n, text in enumerate(lines, 1) if "$w_{ij$" in text)
    failed_with(run(site, NOTEBOOK), f"{NOTEBOOK}:{line}: bad TeX in formula 'w_{{ij': Expected closing token")


def test_tilde_python_fence_is_run_and_pycon_is_refused(site):
    append(site, "~~~python\nraise ValueError('tilde fence ran')\n~~~\n")
    failed_with(run(site), ENTRY_NAME, "ValueError: tilde fence ran")
    append(site, "```pycon\n>>> print('never run')\n```\n", page="docs/index.md")
    failed_with(run(site, "docs/index.md"), "docs/index.md", "a reader sees", "the tests run")


PLAIN_PAGE = """\
# Plain page

```python
import os
import sys

assert __name__ == "__main__"
assert os.getcwd() != {root!r}
open("scratch.txt", "w").write("a temp dir per test")
value = 41
```

<!--pytest-codeblocks:cont-->
```python
value += 1
print(value)
```

<!--pytest-codeblocks:expected-output-->
```text
42
```

```python
assert "value" not in globals(), "a new block starts a fresh namespace"
```
"""


def test_block_mode_namespaces_cwd_and_main(site):
    (site.path / "docs/plain.md").write_text(PLAIN_PAGE.format(root=str(site.path)))
    result = run(site, "docs/plain.md")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["executed 3 of 3 code blocks on 1 pages"])
    assert not (site.path / "docs/scratch.txt").exists()


def test_skip_needs_a_reason_and_is_reported(site):
    page = "```python\nx = 1\n```\n\n<!--pytest.mark.skip(reason='shows an API that needs a GPU')-->\n```python\nimport torch\ntorch.zeros(1, device='cuda')\n```\n"
    (site.path / "docs/skips.md").write_text(page)
    result = run(site, "docs/skips.md")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["*1 skipped with a written reason*", "*needs a GPU*"])
    (site.path / "docs/skips.md").write_text(page.replace("(reason='shows an API that needs a GPU')", ""))
    failed_with(run(site, "docs/skips.md"), "skips.md:", "needs a written reason")


def test_mark_above_cont_block_is_refused(site):
    page = "```python\nx = 1\n```\n\n<!--pytest.mark.xfail(reason='r')-->\n<!--pytest-codeblocks:cont-->\n```python\nx += 1\n```\n"
    (site.path / "docs/cont.md").write_text(page)
    failed_with(run(site, "docs/cont.md"), "docs/cont.md:5", "put it above the first block")


def test_xfail_block_must_raise(site):
    page = "<!--pytest.mark.xfail(reason='shows the error a shape mismatch gives')-->\n```python\nimport torch\ntorch.ones(2, 3) @ torch.ones(2, 3)\n```\n"
    (site.path / "docs/xfail.md").write_text(page)
    run(site, "docs/xfail.md").assert_outcomes(passed=1, xfailed=1)
    (site.path / "docs/xfail.md").write_text(page.replace("torch.ones(2, 3) @ torch.ones(2, 3)", "torch.ones(2, 3) @ torch.ones(3, 2)"))
    failed_with(run(site, "docs/xfail.md"), "xfail.md:", "ran without error")


def test_every_differing_output_of_a_chain_is_named_in_its_one_failure(site):
    """As make serve shows them: a differing output does not stop the page's chain (doctest: page), so both are named, first first."""
    append(site, "```python\nprint(1)\n```\n\n<!--pytest-codeblocks:expected-output-->\n\n```text\n9\n```\n\n"
                 "```python\nprint(2)\n```\n\n<!--pytest-codeblocks:expected-output-->\n\n"
                 "```text\n8\n```\n")
    lines = (site.path / ENTRY).read_text(encoding="utf-8").split("\n")
    first, second = lines.index("9") + 1, lines.index("8") + 1
    result = run(site)
    out = failed_with(result, f"{ENTRY}:{first}: the expected output differs", "1 more in the same run:",
                      f"{ENTRY}:{second}: the expected output differs")
    assert out.index(f"{ENTRY}:{first}:") < out.index(f"{ENTRY}:{second}:")
    result.assert_outcomes(passed=2, failed=1)  # one chain, one failure
