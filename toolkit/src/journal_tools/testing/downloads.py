"""Run an entry's downloads as a reader would and compare what they print with the page
(journal_tools/mkdocs_plugin/downloads.py makes them; tests/test_downloads.py and
toolkit/tests/unit/test_download_files.py use this).

- ``<entry>.py`` runs in a fresh interpreter, its top-level statements in order in
  one ``__main__`` namespace, as ``python <entry>.py`` runs them; what each
  page block's statements print is kept apart (RUNNER), so each checked output is
  compared with the block it belongs to;
- ``<entry>.ipynb`` runs with nbclient in a fresh kernel; each block's cells'
  printed output is compared the same way.

The comparison is the page tests' own (``core.outputs.check_output`` and
``check_math``). A failure names the download's file and line (the checked-output
comment, or the notebook cell's line in the .ipynb) and the page's file:line.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from journal_tools.core.outputs import OutputMismatch, check_math, check_output, update_hint
from journal_tools.core.parse import Page
from journal_tools.mkdocs_plugin.downloads import Download, Placed

RUNNER = r'''
import ast, contextlib, io, json, sys, traceback

path, ranges_file, out_file = sys.argv[1:4]
ranges = json.load(open(ranges_file, encoding="utf-8"))
tree = ast.parse(open(path, encoding="utf-8").read(), path)
namespace = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
printed = [""] * len(ranges)
result = {"printed": printed, "error": None}


def owner(line):
    return next((i for i, (start, stop) in enumerate(ranges) if start <= line < stop), None)


for node in tree.body:
    index = owner(node.lineno)
    out = io.StringIO() if index is not None else sys.stdout
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(ast.Module([node], []), path, "exec"), namespace)
    except BaseException:
        frames = [f for f in traceback.extract_tb(sys.exc_info()[2]) if f.filename == path]
        result["error"] = {"line": frames[-1].lineno if frames else node.lineno, "block": index,
                           "report": traceback.format_exc()}
        break
    finally:
        if index is not None:
            printed[index] += out.getvalue()
json.dump(result, open(out_file, "w", encoding="utf-8"))
'''


class DownloadFailed(AssertionError):
    """A download printed other than the page shows, or failed; the message names both lines."""


def script_problems(script: Path, download: Download, page: Page, timeout: float = 600) -> list[str]:
    """Run the .py in a fresh process; one message per checked output it does not reproduce."""
    shown = f"{script.parent.name}/{script.name}"  # downloads/<entry>.py, as the site serves it
    with tempfile.TemporaryDirectory(prefix="download-") as tmp:
        ranges, out = Path(tmp, "ranges.json"), Path(tmp, "result.json")
        ranges.write_text(json.dumps([[p.lines.start, p.lines.stop] for p in download.placed]), encoding="utf-8")
        run = subprocess.run([sys.executable, "-c", RUNNER, str(script.resolve()), str(ranges), str(out)],
                             cwd=tmp, capture_output=True, text=True, timeout=timeout)
        if not out.is_file():
            return [f"{shown}:1: the script did not run to the end (exit {run.returncode}):\n{run.stderr[-3000:]}"]
        result = json.loads(out.read_text(encoding="utf-8"))
    lines = download.script.split("\n")
    problems = _compare(page, download.placed, result["printed"],
                        lambda placed: f"{shown}:{_comment_line(lines, placed)}")
    if result["error"] is not None:
        err = result["error"]
        at = f" (the block at {page.path}:{download.placed[err['block']].step.origin.line})" if err["block"] is not None else ""
        problems.append(f"{shown}:{err['line']}: the script raised{at}:\n{err['report']}")
    return problems


def notebook_problems(notebook: Path, download: Download, page: Page, timeout: float = 600) -> list[str]:
    """Run the .ipynb with nbclient in a fresh kernel; one message per checked output it does not reproduce."""
    import nbclient
    import nbformat

    shown = f"{notebook.parent.name}/{notebook.name}"

    nb = nbformat.reads(notebook.read_text(encoding="utf-8"), as_version=4)
    text_lines = notebook.read_text(encoding="utf-8").split("\n")
    problems = []
    with tempfile.TemporaryDirectory(prefix="download-") as tmp:
        client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": tmp}})
        try:
            client.execute()
        except nbclient.exceptions.CellExecutionError as exc:
            failed = next((c for c in nb.cells if c.cell_type == "code" and any(
                o.get("output_type") == "error" for o in c.get("outputs", []))), None)
            where = _cell_line(text_lines, failed.id) if failed is not None else 1
            problems.append(f"{shown}:{where}: cell {failed.id if failed is not None else '?'} raised:\n{exc}")
    printed_by_cell = {c.id: "".join(o.get("text", "") for o in c.get("outputs", [])
                                     if o.get("output_type") == "stream" and o.get("name") == "stdout")
                       for c in nb.cells if c.cell_type == "code"}
    printed = ["".join(printed_by_cell.get(i, "") for i in p.cells) for p in download.placed]
    return _compare(page, download.placed, printed,
                    lambda placed: f"{shown}:{_cell_line(text_lines, placed.cells[-1])}") + problems


def _compare(page: Page, placed: list[Placed], printed: list[str], where) -> list[str]:
    problems = []
    for p, out in zip(placed, printed):
        if not p.lines:  # not run (a skipped block): nothing to compare
            continue
        for check in (check_output, check_math):
            try:
                check(page, p.step, out)
            except OutputMismatch as mismatch:
                first, _, rest = mismatch.problem.replace(f"; {update_hint(page.path)}", "").partition("\n")
                problems.append(f"{where(p)}: the download printed other output than the page shows at "
                                f"{mismatch.origin.describe()} ({first})\n{rest}")
    return problems


def _comment_line(lines: list[str], placed: Placed) -> int:
    """The script line of the block's checked-output comment (else its first line)."""
    for n in placed.lines:
        if lines[n - 1].startswith(("# Prints (checked", "# The matrix at line")):
            return n
    return placed.lines.start


def _cell_line(text_lines: list[str], cell_id: str) -> int:
    """The .ipynb line of the cell's ``"id"``: where an editor shows the cell in the file."""
    needle = f'"id": "{cell_id}"'
    return next((n for n, line in enumerate(text_lines, 1) if needle in line), 1)
