"""Notebook pages that come out the same at every build: cell ids from each cell's position, type and source
(nbformat's are random), and stdout streams merged after execution (nbconvert merges before), by wrapping
mkdocs-jupyter's ``SubCell`` (it has no setting for either).
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
    """Make mkdocs-jupyter's conversion give stable ids and merged streams (idempotent)."""
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
