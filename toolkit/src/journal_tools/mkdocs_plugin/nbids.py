"""Notebook pages that come out the same at every build.

Two things made the notebook page (and its .ipynb download) differ between
two builds of the same tree:

1. Cell ids. jupytext reads the percent script into nbformat cells, and
   nbformat gives each a random id (``uuid4().hex[:8]``): ``id="cell-id=…"``
   on the page, ``"id": "…"`` in the download. :func:`cell_id` derives the id
   from the cell's position, type and source instead (8 hex digits of a
   SHA-256, the form nbformat uses), so an unchanged cell keeps its id and
   page and download agree.
2. Split stream outputs. The kernel sends a cell's stdout in one or several
   messages depending on timing; nbconvert merges adjacent streams
   (CoalesceStreamsPreprocessor) *before* executing, not after, so the same
   text came out as one <pre> or two. The merge is repeated after execution.

Both happen in the notebook, before it becomes HTML: :func:`install` wraps
mkdocs-jupyter's ``SubCell`` preprocessor, which its ``nb2html`` runs after
execution (``journal_tools.compat.jupyter.replace_subcell``).
The .ipynb written next to the page (``notebooks.write_ipynb``) takes the
same ids. toolkit/tests/sites/test_reproducible.py
compares two builds byte for byte.

Written here because mkdocs-jupyter has no setting for either.
"""

from __future__ import annotations

import hashlib

from journal_tools.compat import jupyter

__all__ = ["cell_id", "stable_ids", "install"]


def cell_id(index: int, cell) -> str:
    """A cell's id from its 0-based position, type and source."""
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(source)
    digest = hashlib.sha256(f"{index}\0{cell.get('cell_type', '')}\0{source}".encode()).hexdigest()
    return digest[:8]


def stable_ids(nb) -> None:
    """Replace every cell id of ``nb`` (an nbformat NotebookNode) in place."""
    for index, cell in enumerate(nb.cells):
        if "id" in cell:
            cell["id"] = cell_id(index, cell)


def _coalesce_streams(nb) -> None:
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor

    merge = CoalesceStreamsPreprocessor()
    for index, cell in enumerate(nb.cells):
        merge.preprocess_cell(cell, {}, index)


def install() -> None:
    """Make mkdocs-jupyter's conversion give stable ids and merged streams
    (idempotent)."""
    def stable_subcell(original):
        class StableSubCell(original):
            journal_stable = True

            def preprocess(self, nb, resources):
                nb, resources = super().preprocess(nb, resources)
                _coalesce_streams(nb)
                stable_ids(nb)
                return nb, resources

        StableSubCell.__name__ = original.__name__
        return StableSubCell

    jupyter.replace_subcell(stable_subcell)
