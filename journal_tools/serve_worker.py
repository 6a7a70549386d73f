"""The warm worker that runs pages' code while ``make serve`` runs.

    PYTHONPATH=snippets python -m journal_tools.serve_worker

Started once by the plugin when MkDocs serves (``journal_tools.serve``); it
imports PyTorch once and then, for each request (a JSON line on stdin naming
a config file and a page), reads the page with the page tests' own parser and
runs its blocks exactly as ``make test`` does (``pagetest.run``): one chain per
block, or the whole page with ``doctest: page``. It answers one JSON line:

    {"page": ..., "ran": N, "seconds": t, "failures": [{"where", "line", "message", "report"}]}

Snippet modules imported by an earlier run are forgotten before each page, so
an edited snippet is imported afresh. Answers go to the process's original
stdout; page code that prints is captured by the runner, and anything else it
writes lands on stderr, never in the protocol.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

__all__ = ["draw_figures", "main", "run_page"]


def _forget_snippets(dirs) -> None:
    prefixes = tuple(os.path.join(str(d), "") for d in dirs)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if path and os.path.abspath(path).startswith(prefixes):
            del sys.modules[name]


def run_page(config_file: str, page_path: str) -> dict:
    """Run every block of one page; the outcome as a JSON-ready dict."""
    from journal_tools.frontmatter import FrontMatterError
    from journal_tools.includes import IncludeError
    from journal_tools.pagetest.parse import PageError, parse_page
    from journal_tools.pagetest.run import BlockError, ChainResult, run_chain
    from journal_tools.settings import Settings

    start = time.perf_counter()
    settings = Settings.load(config_file)
    _forget_snippets(settings.snippet_dirs)
    out = {"page": page_path, "ran": 0, "failures": []}
    try:
        page = parse_page(Path(page_path), settings)
    except (PageError, IncludeError, FrontMatterError) as exc:
        where, _, message = str(exc).partition(": ")
        out["failures"].append({"where": where, "line": _line(where), "message": message, "report": str(exc)})
        return out | {"seconds": time.perf_counter() - start}
    chains = [page.steps] if page.mode == "page" else [[s] for s in page.steps]
    for steps in chains:
        if not steps:
            continue
        result = ChainResult()
        try:
            run_chain(page, steps, result)
        except BlockError as exc:
            fence_line = page.where(steps[len(result.results)].parts[0].fence.start).line
            where, _, rest = exc.report.partition(": ")
            message = rest.split("\n", 1)[0]
            out["failures"].append({"where": where, "line": fence_line, "message": message, "report": exc.report})
        out["ran"] += result.executed_fences
    return out | {"seconds": time.perf_counter() - start}


def draw_figures(config_file: str, targets: list[str]) -> dict[str, str]:
    """Each figure target's SVG (or ``error: ...``), as ``journal_tools.figure_worker`` draws it."""
    from journal_tools.figure_worker import call
    from journal_tools.settings import Settings

    _forget_snippets(Settings.load(config_file).snippet_dirs)
    return {t: call(t) for t in targets}


def _line(where: str) -> int | None:
    tail = where.rpartition(":")[2]
    return int(tail) if tail.isdigit() else None


def main() -> int:
    """Answer run requests until stdin closes."""
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # stray prints of page code never reach the protocol
    import torch  # noqa: F401  (the point of a warm worker: imported once)

    protocol.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        if "figures" in request:  # build-time figures, drawn with PyTorch already imported
            protocol.write(json.dumps(draw_figures(request["config"], request["figures"])) + "\n")
            continue
        try:
            answer = run_page(request["config"], request["page"])
        except Exception as exc:  # a bug here must not kill the worker: report it on the page
            answer = {"page": request["page"], "ran": 0, "seconds": 0.0, "failures": [
                {"where": request["page"], "line": None, "message": f"{type(exc).__name__}: {exc}", "report": repr(exc)}]}
        protocol.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
