"""The child process that draws build-time figures (``core.code.figures``).

    PYTHONPATH=snippets python -m journal_tools.core.code.figure_child [JOURNAL_ROOT] < targets.json

Reads ``module.function`` targets as JSON; writes ``{target: [svg or "error: ...", what it read]}``.
"""

from __future__ import annotations

import importlib
import json
import sys

from journal_tools.core.code import observe

__all__ = ["call"]


def call(target: str) -> str:
    """The SVG drawn by ``target``, or ``error: <why>``: in a fresh empty folder, every generator seeded, as a page's blocks run."""
    from journal_tools.core.code.run import fresh_folder, reset_global_state

    with fresh_folder():
        reset_global_state()
        return _call(target)


def _call(target: str) -> str:
    module_name, _, func_name = target.rpartition(".")
    if not module_name:
        return f"error: {target!r} is not module.function"
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        return f"error: cannot import {module_name!r} from the snippet folders: {exc}"
    except Exception as exc:  # a snippet that raises on import: name it, keep the process alive
        return f"error: importing {module_name!r} raised {type(exc).__name__}: {exc}"
    func = getattr(module, func_name, None)
    if not callable(func):
        return f"error: {module_name} has no function {func_name!r}"
    try:
        svg = func()
    except Exception as exc:  # the page names the culprit; the traceback is in the page tests
        return f"error: {target}() raised {type(exc).__name__}: {exc}"
    if not isinstance(svg, str) or not svg.lstrip().startswith("<svg"):
        return f"error: {target}() must return SVG text starting with <svg"
    if "aria-label=" not in svg.split(">", 1)[0]:
        return f"error: {target}() returned an SVG without aria-label (its accessible name)"
    return svg.strip()


def observed_calls(targets: list[str], root: str | None) -> dict[str, list]:
    """{target: [svg or error, what drawing it read inside ``root``]}; a module an earlier target imported counts for every later one."""
    out = {}
    for target in targets:
        observe.start(root)
        svg = call(target)
        out[target] = [svg, observe.finish()]
    return out


def main() -> int:
    """Draw every target read from stdin; print the JSON result."""
    targets = json.load(sys.stdin)
    json.dump(observed_calls(targets, sys.argv[1] if len(sys.argv) > 1 else None), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
