"""An entry's downloads behave as its page tests (mkdocs_plugin/downloads.py): blocks run afresh
with their cont blocks, imported snippets written in, skipped blocks not run, checked outputs
printed, and the same sources give the same bytes.
"""

from __future__ import annotations

import jupytext
import nbformat
import pytest

from journal_tools.core.code.parse import parse_page
from journal_tools.core.code.run import ChainResult
from journal_tools.core.code.seed_check import run_checked
from journal_tools.mkdocs_plugin.downloads import make
from journal_tools.testing.downloads import script_problems

pytest.importorskip("torch", reason="the downloads' start state is PyTorch's")

PAGE = '''\
# Blocks on their own

Each block is a test of its own.

```python
import torch
from demo import x as two

torch.set_printoptions(precision=2)
print(torch.tensor([1 / 3]), two)
```

<!--pytest-codeblocks:expected-output-->

```text
tensor([0.33]) 2
```

The next block starts afresh: default print options, no `two`.

```python
import torch

print(torch.tensor([1 / 3]), "two" in globals())
```

<!--pytest-codeblocks:expected-output-->

```text
tensor([0.3333]) False
```

A block and its continuation share their names:

```python
y = 3
```

<!--pytest-codeblocks:cont-->

```python
print(y * 2)
```

<!--pytest-codeblocks:expected-output-->

```text
6
```

<!--pytest.mark.skip(reason="shown, not run")-->

```python
raise SystemExit("never run")
```
'''


@pytest.fixture
def block_page(journal, tmp_path, monkeypatch):
    settings, write = journal
    (settings.root / "snippets" / "demo.py").write_text("x = 2\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(settings.root / "snippets"))  # as the page tests' worker has it
    monkeypatch.delitem(__import__("sys").modules, "demo", raising=False)
    path = write("blocks.md", PAGE)
    page = parse_page(path, settings)
    for step in page.steps:  # the page passes its own tests
        run_checked(page, [step], ChainResult())
    made = make(path, settings)
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "blocks.py").write_text(made.script, encoding="utf-8")
    (tmp_path / "downloads" / "blocks.ipynb").write_text(made.notebook, encoding="utf-8")
    return made, page, tmp_path / "downloads", (path, settings)


def test_script_runs_each_block_as_its_test_does(block_page):
    made, page, folder, _ = block_page
    assert "snippet_module('demo'" in made.script
    assert '# raise SystemExit("never run")' in made.script
    assert script_problems(folder / "blocks.py", made, page) == []


def test_the_notebook_is_the_script_s_cells_and_prints_as_it_does(block_page, run_notebook):
    """Made from the .py by jupytext (the journal's checks run the .py only): the same text cell for cell, the header
    and its Needs: line first; run once here in a kernel, each block's cell prints what its page block checks."""
    made, page, folder, _ = block_page
    nb = nbformat.reads(made.notebook, as_version=4)
    nbformat.validate(nb)  # the build writes it unchecked
    nb.metadata["jupytext"] = {"notebook_metadata_filter": "-all"}  # as jupytext reads a script with no header
    assert jupytext.writes(nb, fmt="py:percent") == made.script
    assert nb.cells[0].cell_type == "markdown" and "Needs: torch==" in nb.cells[0].source
    printed = {cell.source.split("\n")[0]: "".join(o.get("text", "") for o in cell.outputs)
               for cell in run_notebook(folder / "blocks.ipynb").cells if cell.cell_type == "code"}
    assert printed["# docs/blocks.md, line 5"] == "tensor([0.33]) 2\n"
    assert printed["# docs/blocks.md, line 21"] == "tensor([0.3333]) False\n"
    assert printed["# docs/blocks.md, line 35"] == "6\n"



def test_a_wrong_output_names_the_download_line_and_the_page_line(block_page):
    made, page, folder, _ = block_page
    script = folder / "blocks.py"
    script.write_text(made.script.replace("print(y * 2)", "print(y * 3)"), encoding="utf-8")
    (problem,) = script_problems(script, made, page)
    line = made.script.split("\n").index("# Prints (checked by the page tests, line 47):") + 1
    # The page's side names the first differing line inside the output fence (the fence opens at 47).
    assert (problem.where, problem.page_line) == (f"downloads/blocks.py:{line}", 48)
    assert problem.message.startswith("the download printed other output than the page shows at docs/blocks.md:48 ")


def test_same_sources_same_bytes(block_page):
    made, _, _, (path, settings) = block_page
    again = make(path, settings)
    assert (again.script, again.notebook) == (made.script, made.notebook)


def test_start_state_is_the_page_tests_own():
    """start_state() in the downloads leaves random, NumPy and PyTorch as reset_global_state() does."""
    import random

    import numpy
    import torch

    from journal_tools.core.code.run import reset_global_state
    from journal_tools.mkdocs_plugin.downloads import start_state

    def state():
        return (random.getstate(), numpy.random.get_state()[1].tolist(), torch.get_rng_state().tolist(),
                str(torch.tensor([1 / 3, 12345.678])), torch.get_default_dtype())

    reset_global_state()
    tests = state()
    random.seed(7), numpy.random.seed(7), torch.manual_seed(7), torch.set_printoptions(precision=2)
    namespace = {"random": random, "numpy": numpy, "torch": torch}
    exec(start_state(("numpy", "torch")) + "\nstart_state()\n", namespace)
    assert state() == tests


def test_the_download_run_is_kept_under_its_code_not_its_prose(block_page):
    """A prose edit leaves the key of the download's run as it was (nothing runs again); code or a checked output changes it."""
    from journal_tools.testing.downloads import run_key

    made, page, _, (path, settings) = block_page
    text = path.read_text(encoding="utf-8")
    key = run_key(made.script, page)

    def key_after(new: str) -> str:
        path.write_text(new, encoding="utf-8")
        return run_key(make(path, settings).script, parse_page(path, settings))

    assert key_after(text.replace("Each block is a test of its own.", "Each block, a test of its own:\n\nmore prose.")) == key
    assert key_after(text.replace("y = 3", "y = 4")) != key
    assert key_after(text.replace("tensor([0.33]) 2", "tensor([0.34]) 2")) != key


EDITORS_PAGE = '''\
# With the editors' code

The author's block:

```python
print(1 + 1)
```

!!! note "Editor's note: the same, tidier"
    ```python
    print(sum([1, 1]))
    ```
'''


def test_the_editors_words_are_said_in_the_header_and_their_code_at_its_cell(journal, block_page):
    """A page with editors' words opens its downloads with the page's line about them; each cell of their code says
    so on its first line; a page with none says nothing of them."""
    settings, write = journal
    made = make(write("editors.md", EDITORS_PAGE), settings)
    header = made.script.split("\n# %%\n", 1)[0]
    assert "# On the page: Text marked \u201cEditor\u2019s note\u201d or \u201cEditors\u201d is by" in header
    assert "# docs/editors.md, line 5\n" in made.script  # the author's block: no mark
    assert "# docs/editors.md, line 10, the editors' code\n" in made.script
    assert "Editor" not in block_page[0].script  # a page without their words
