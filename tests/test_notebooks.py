"""Every notebook page (docs/notebooks/*.py, jupytext percent scripts) runs.

Each script is executed cell by cell in one namespace, with the notebook's
folder as the working directory (as Jupyter would), so that a failure names
the script, the cell and the line. The build executes them again through
mkdocs-jupyter; this test is the fast, readable one.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "docs" / "notebooks").glob("*.py"))


def code_cells(path: Path):
    """(first line number, source) of each code cell of a percent script."""
    import jupytext

    lines = path.read_text(encoding="utf-8").split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("# %%")]
    notebook = jupytext.read(path)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    # Map each code cell to the line of its source in the script.
    out, search_from = [], 0
    for cell in code:
        first = next((ln for ln in cell.source.split("\n") if ln.strip()), "")
        lineno = next((i + 1 for i in range(search_from, len(lines)) if lines[i] == first), None)
        if lineno is None:
            lineno = (starts[0] + 2) if starts else 1
        else:
            search_from = lineno
        out.append((lineno, cell.source))
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(path.parent)
    namespace = {"__name__": "__main__"}
    for lineno, source in code_cells(path):
        # Compile with the script's line numbers, so tracebacks point into it.
        code = compile("\n" * (lineno - 1) + source, str(path), "exec")
        try:
            exec(code, namespace)
        except Exception as exc:
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
            where = f"{path.name}:{frames[-1].lineno}" if frames else f"{path.name}:{lineno}"
            pytest.fail(
                f"{where}: {type(exc).__name__}: {exc}\n(cell starting at line {lineno})\n"
                + "".join(traceback.format_exception(exc)[-6:]),
                pytrace=False,
            )


def test_there_are_notebooks():
    assert NOTEBOOKS, "no docs/notebooks/*.py found"
    for path in NOTEBOOKS:
        assert os.path.getsize(path) > 0
