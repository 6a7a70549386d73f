"""journal_tools/mkdocs_plugin/nbids.py: cell ids from the cells, streams merged after execution."""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from journal_tools.mkdocs_plugin import nbids


def notebook():
    return new_notebook(cells=[new_markdown_cell("# Title"), new_code_cell("print(1)"), new_code_cell("print(1)")])


def test_ids_come_from_position_type_and_source():
    a, b = notebook(), notebook()
    assert [c.id for c in a.cells] != [c.id for c in b.cells]  # nbformat: random
    nbids.stable_ids(a)
    nbids.stable_ids(b)
    assert [c.id for c in a.cells] == [c.id for c in b.cells]
    assert len({c.id for c in a.cells}) == 3  # same source, other position: other id
    assert all(len(c.id) == 8 and int(c.id, 16) >= 0 for c in a.cells)
    nbformat.validate(a)


def test_installed_subcell_merges_split_stdout_and_sets_ids():
    import mkdocs_jupyter.nbconvert2 as nbconvert2

    nbids.install()
    nbids.install()  # idempotent: wrapped once
    assert nbconvert2.SubCell.journal_stable and not getattr(nbconvert2.SubCell.__mro__[1], "journal_stable", False)
    nb = notebook()
    nb.cells[1].outputs = [new_output("stream", name="stdout", text="tensor([1,\n"),
                           new_output("stream", name="stdout", text="        2])\n"),
                           new_output("stream", name="stderr", text="warning\n")]
    out, _ = nbconvert2.SubCell().preprocess(nb, {})
    assert [(o.name, o.text) for o in out.cells[1].outputs] == [("stdout", "tensor([1,\n        2])\n"),
                                                                ("stderr", "warning\n")]
    assert [c.id for c in out.cells] == [nbids.cell_id(i, c) for i, c in enumerate(out.cells)]
