"""The child process that draws build-time figures (``core.code.figures``).

    PYTHONPATH=snippets python -m journal_tools.core.code.figure_child [JOURNAL_ROOT [SECONDS]] < targets.json

Reads ``module.function`` targets as JSON; writes ``{target: [svg or "error: ...", what it read]}``. A figure function
running past SECONDS (the block limit) is stopped, naming the line it was running.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import sys
import traceback

from journal_tools.core.code import observe

__all__ = ["call"]

_TOOLKIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # journal_tools/: never the line to name


def call(target: str) -> str:
    """The SVG drawn by ``target``, or ``error: <why>``: in a fresh empty folder, every generator seeded, as a page's blocks run."""
    with _as_a_page():
        return _call(target)


@contextlib.contextmanager
def _as_a_page():
    """A page's start: a fresh empty folder, every generator seeded (core/code/run.py), before the figure function's time starts."""
    from journal_tools.core.code.run import fresh_folder, reset_global_state

    with fresh_folder():
        reset_global_state()
        yield


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
        got = repr(svg.lstrip()[:24]) if isinstance(svg, str) else f"a {type(svg).__name__}"
        return (f"error: {target}() must return SVG text that starts with <svg (this starts with {got}; matplotlib's "
                "savefig(format='svg') writes an <?xml ...?> line and a DOCTYPE first: keep the text from <svg on)")
    if "aria-label=" not in svg.split(">", 1)[0]:
        return (f'error: {target}() returned an <svg> tag without aria-label: write aria-label="<what the figure shows>" on it '
                '(role="img" too), the name screen readers give the figure')
    return svg.strip()


class _TooLong(BaseException):  # not an Exception: a figure function's own ``except Exception`` must not swallow it
    pass


def observed_calls(targets: list[str], root: str | None, seconds: float = 0) -> dict[str, list]:
    """{target: [svg or error, what drawing it read inside ``root``]}, each stopped past ``seconds`` (0: never); a module an earlier
    target imported counts for every later one."""
    def stop(signum, frame):
        raise _TooLong(f"{seconds:g}")

    signal.signal(signal.SIGALRM, stop)
    out = {}
    for target in targets:
        observe.start(root)
        with _as_a_page():
            signal.setitimer(signal.ITIMER_REAL, seconds)
            try:
                svg = _call(target)
            except _TooLong as exc:
                ours = [f for f in traceback.extract_tb(exc.__traceback__)
                        if not f.filename.startswith((_TOOLKIT, sys.prefix, sys.base_prefix)) and "site-packages" not in f.filename]
                # named from the journal's root, where the build runs
                at = f", stopped at {os.path.relpath(ours[-1].filename, root or None)}:{ours[-1].lineno}" if ours else ""
                svg = f"error: {target}() ran past {exc} s, the block limit{at}"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        out[target] = [svg, observe.finish()]
    return out


def main() -> int:
    """Draw every target read from stdin; print the JSON result."""
    targets = json.load(sys.stdin)
    args = sys.argv[1:]
    json.dump(observed_calls(targets, (args[0] if args else "") or None, float(args[1]) if len(args) > 1 else 0), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
