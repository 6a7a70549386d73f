"""The worker process of ``core.code.sandbox``: serves one ``(fn, args, env)`` request at a time as
``fn(progress, *args)``, and answers ``("done", (status, value), stderr, what the code read)``.

Set-up: its own process group, ended with its parent, faulthandler dumping to a file the parent reads (on a
crash, on SIGUSR1, before ``os._exit``), no stdin.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
import traceback

from journal_tools.core.code import observe
from journal_tools.core.page.limits import BoundedOutput

__all__ = ["chain", "main", "notebook"]

_DUMP = None  # the worker's stack file, open for faulthandler as long as the process lives
_SNIPPET_DIRS: set[str] = set()  # every snippet folder a request named: their modules are never kept for the next run


def main(conn, dump_path: str, parent: int) -> None:
    """Serve requests until the parent (process ``parent``) closes the connection or ends."""
    _set_up(dump_path, parent)
    conn.send(("ready", os.getpid()))
    while True:
        try:
            request = conn.recv_bytes()
        except (EOFError, OSError):
            return
        stderr = BoundedOutput()
        try:
            fn, args, env = pickle.loads(request)
        except Exception:  # e.g. a function of the caller's __main__, which the worker does not run
            conn.send(("done", ("bug", traceback.format_exc()), "", None))
            continue
        _prepare(env)
        observe.start(env.get("observe"))

        def progress(index: int, value=None) -> None:
            conn.send(("start", index, value))

        try:
            with contextlib.redirect_stderr(stderr):
                answer = ("ok", fn(progress, *args))
        except BaseException:  # noqa: BLE001 - a bug of the runner: reported, the worker goes on
            answer = ("bug", traceback.format_exc())
        observed = observe.finish()
        try:
            conn.send(("done", answer, stderr.getvalue(), observed))
        except Exception:  # an answer that does not pickle
            conn.send(("done", ("bug", traceback.format_exc()), stderr.getvalue(), observed))


class _NoInput(io.TextIOBase):
    """``sys.stdin`` of page code: reading it fails at once, naming why."""

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> str:
        raise OSError("page code cannot read from stdin: the page tests and make serve give it no input")

    readline = read


def _set_up(dump_path: str, parent: int) -> None:
    global _DUMP
    os.setpgrp()  # its own process group: the parent kills a shell block's children with it
    _end_with(parent)
    _DUMP = open(dump_path, "w", encoding="utf-8")  # noqa: SIM115 - open for the process's lifetime
    faulthandler.enable(_DUMP, all_threads=True)  # a crash writes the stack it happened on
    faulthandler.register(signal.SIGUSR1, _DUMP, all_threads=True)  # the parent asks, past the limit
    real_exit = os._exit

    def exit_with_stack(status):
        # os._exit skips every handler: say where it was called from, then exit as asked.
        _DUMP.write(f"os._exit({status})\n")
        _DUMP.flush()
        faulthandler.dump_traceback(_DUMP, all_threads=False)
        real_exit(status)

    os._exit = exit_with_stack
    sys.stdin = _NoInput()


def _end_with(parent: int) -> None:
    """End the worker once its parent is gone (PR_SET_PDEATHSIG follows the forkserver, which outlives it): a thread looks once a second."""
    real_exit = os._exit

    def watch() -> None:
        while True:
            time.sleep(1)
            try:
                os.kill(parent, 0)
            except (ProcessLookupError, PermissionError):  # gone (its number may be someone else's now)
                real_exit(1)

    threading.Thread(target=watch, daemon=True, name="journal-worker-watch").start()


def _prepare(env: dict) -> None:
    """The caller's import path, environment and folder; no snippet module of an earlier request."""
    sys.path[:] = env["path"]
    if dict(os.environ) != env["environ"]:
        os.environ.clear()
        os.environ.update(env["environ"])
    try:
        os.chdir(env["cwd"] or tempfile.gettempdir())
    except OSError:
        os.chdir(tempfile.gettempdir())
    _SNIPPET_DIRS.update(env["forget"])
    _forget_snippets()


def _forget_snippets() -> None:
    """Drop every module imported from a snippet folder: the next import runs its code again."""
    prefixes = tuple(os.path.join(d, "") for d in _SNIPPET_DIRS)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if prefixes and path and os.path.abspath(path).startswith(prefixes):
            del sys.modules[name]


def chain(progress, page, steps, updating: bool, seed_check: bool = True):
    """Run one chain (again from another seed, the seed check, unless ``seed_check`` is off): (step results, updates, BlockError
    arguments or None, the failing step's index), printed output included so ``make serve`` tells an empty fence from a failure."""
    from journal_tools.core.code.run import BlockError, ChainResult, run_chain
    from journal_tools.core.code.seed_check import run_checked

    result, updates, sent = ChainResult(), [] if updating else None, 0

    def on_step(index: int) -> None:
        nonlocal sent
        progress(index, result.results[sent:])  # what finished so far, counted even if this one hangs
        sent = len(result.results)

    try:
        if seed_check:
            run_checked(page, steps, result, updates, on_step, forget=_forget_snippets)
        else:
            run_chain(page, steps, result, updates, on_step)
    except BlockError as exc:
        # the step that failed: the one after the last that ran, or one that ran, printing what another seed does not
        failed = steps.index(result.failed) if result.failed is not None else len(result.results)
        return result.results[sent:], updates, (exc.origin, exc.problem, None, exc.printed), failed
    return result.results[sent:], updates, None, None


def notebook(progress, nb):
    """In the worker: run a notebook's code cells; (cells that ran, (origin, report) or None, [(number in the text, its value)])."""
    from journal_tools.core.code.notebook import run_notebook
    from journal_tools.core.code.run import BlockError

    ran: list = []
    shown: list = []
    try:
        run_notebook(nb, ran, lambda index: progress(index, index), shown)  # index cells finished
    except BlockError as exc:
        return len(ran), (exc.origin, exc.problem), shown
    return len(ran), None, shown
