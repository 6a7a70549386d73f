"""Run page code in a worker process the test run (or ``make serve``) outlives, since a hang, ``os._exit`` or a
segfault cannot be stopped or caught in the process running it.

The worker announces each unit (block chain, cell, figure); past its time limit the parent takes its stack
(faulthandler, SIGUSR1), kills its process group and reports the line; a dead worker is reported at the
unit (at faulthandler's line when there is one). Workers fork from a forkserver that imported PyTorch once
(tens of ms); one serves a pytest process, snippet modules forgotten per request. No stdin; stderr comes
back cut at the limit. POSIX only. Why no library: DECISIONS.md (smaller choices).
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import linecache
import multiprocessing

# The forkserver is a singleton of this module: imported with the sandbox, so a pytest run
# inside a test (pytester, which forgets the modules a run imported) reuses it.
import multiprocessing.forkserver  # noqa: F401
import os
import re
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from journal_tools.core.code import sandbox_child
from journal_tools.core.mistake import Origin
from journal_tools.core.page.limits import Limit

__all__ = ["Aborted", "Sandbox", "Stopped", "Unit", "stopped_at"]

START_SECONDS = 300.0  # a first start imports PyTorch in the forkserver: slow on a loaded machine
DUMP_SECONDS = 2.0  # how long a worker past its limit gets to write its stack before it is killed
# Imported once by the forkserver, so every worker forked from it has them.
PRELOAD = ["journal_tools.core.code.sandbox_child", "journal_tools.core.code.run", "journal_tools.core.code.seed_check", "numpy", "torch"]
_HERE = Path(__file__).resolve().parent
# The runners' own frames are left out of the stacks shown.
_RUNNER_FILES = {str(_HERE / "sandbox_child.py"), str(_HERE / "run.py"), str(_HERE / "notebook.py")}
# Never a journal line, even where the toolkit sits inside the journal (its own repository, an editable install):
# os._exit's stack ends in the worker's own handler.
_TOOLKIT = _HERE.parent.parent


@dataclass
class Unit:
    """One thing a request runs under the clock: a ``block``, a ``cell``, a ``figure``."""

    kind: str
    origin: Origin | None = None  # its first line, named when the stack says nothing better
    hint: str = ""  # how to raise its limit


class Stopped(Exception):
    """The worker was stopped past the limit (``hung``), or died, while running ``units[index]``."""

    def __init__(self, index: int, reason: str, dump: str, hung: bool = False):
        super().__init__(reason)
        self.index, self.reason, self.dump, self.hung = index, reason, dump, hung


class Aborted(Exception):
    """The request was abandoned (its ``cancelled()`` said so): nobody wants its result any more."""


class Sandbox:
    """One worker process for page code, replaced (forked anew from the forkserver) when it dies or hangs."""

    def __init__(self):
        self._lock = threading.Lock()
        self._worker: _Worker | None = None

    # -- what the page tests and make serve call ------------------------------------

    def run_chain(self, page, steps, result, update: list | None = None, *, snippet_dirs=(), cancelled=None,
                  root: Path | None = None, seed_check: bool = True) -> None:
        """``core.run.run_chain`` in the worker; a block that fails, runs past the limit or ends the worker is a BlockError at its line
        (``cancelled``, ``root``: :meth:`call`)."""
        from journal_tools.core.code.run import BlockError, part_origin, synthetic_name

        sources = {synthetic_name(part_origin(page, part)): (part.origins, part.code.splitlines())
                   for step in page.steps for part in step.parts}
        hint = "A page sets its own limit in its front matter: timeout: <seconds>"
        units = [Unit("block", part_origin(page, step.parts[0]), hint) for step in steps]
        try:  # updates are returned, the worker writes no page
            done, updates, error, failed = self.call(sandbox_child.chain, (page, steps, update is not None, seed_check), page.limit, units,
                                             snippet_dirs, on_progress=result.results.extend, cancelled=cancelled,
                                             root=root, observed=result.observed)
        except Stopped as stop:
            result.failed = steps[stop.index]
            raise BlockError(*_located(stop, units[stop.index], sources, root)) from None
        result.results.extend(done)
        if update is not None:
            update.extend(updates)
        if error is not None:
            result.failed = steps[failed]
            raise BlockError(*error)

    def run_notebook(self, nb, ran: list, *, snippet_dirs=(), root: Path | None = None,
                     observed: dict | None = None) -> list:
        """``core.notebook.run_notebook`` in the worker, each cell under the notebook's limit (``root``, ``observed``: :meth:`call`);
        each number in the text with what it gives."""
        from journal_tools.core.code.notebook import cell_origins
        from journal_tools.core.code.run import BlockError, synthetic_name

        cells = nb.code_cells
        origins = [cell_origins(nb, cell) for cell in cells]
        sources = {synthetic_name(o[0]): (o, cell.source.splitlines()) for o, cell in zip(origins, cells)}
        hint = "A notebook sets its own limit in its metadata: execution: timeout: <seconds>"
        units = [Unit("cell", o[0], hint) for o in origins]

        def progress(finished: int) -> None:
            ran[:] = cells[:finished]

        try:
            count, error, shown = self.call(sandbox_child.notebook, (nb,), nb.limit, units, snippet_dirs,
                                            on_progress=progress, root=root, observed=observed)
        except Stopped as stop:
            del ran[stop.index:]
            raise BlockError(*_located(stop, units[stop.index], sources, root)) from None
        ran[:] = cells[:count]
        if error is not None:
            raise BlockError(*error)
        return shown

    def call(self, fn, args: tuple, limit: Limit, units: list[Unit], snippet_dirs=(), on_progress=None, cancelled=None,
             root: Path | None = None, observed: dict | None = None):
        """``fn(progress, *args)`` in the worker; ``progress`` restarts the clock, ``root``: reads go to ``observed``. Raises Stopped,
        Aborted or RuntimeError."""
        env = _environment(snippet_dirs, root)
        with self._lock:
            worker = self._send(fn, args, env)
            status, value, stderr, seen = self._serve(worker, limit, units, on_progress, cancelled or (lambda: False))
        if observed is not None and seen is not None:
            observed.update(seen)
        if stderr:
            sys.stderr.write(stderr)
        if status == "bug":
            raise RuntimeError(f"the page-code worker failed:\n{value}")
        return value

    def start(self) -> None:
        """Start the worker now (the first start imports PyTorch: about 2 s)."""
        with self._lock:
            self._ready()

    def start_in_background(self) -> None:
        """Start the worker in a thread, so the first request finds it ready."""

        def start():
            with contextlib.suppress(Exception):  # the first request reports it
                self.start()

        threading.Thread(target=start, daemon=True, name="journal-sandbox-start").start()

    def close(self) -> None:
        """Stop the worker, a block running now included."""
        if self._worker is not None:
            self._worker.kill()  # so a request running now ends, and releases the lock
        with self._lock:
            if self._worker is not None:
                self._worker.close()
                self._worker = None

    # -- the clock --------------------------------------------------------------

    def _ready(self) -> _Worker:
        worker = self._worker
        if worker is None or not worker.process.is_alive():
            if worker is not None:
                worker.close()
            worker = _Worker(_context())
            worker.wait_ready()
            self._worker = worker
        return worker

    def _send(self, fn, args, env) -> _Worker:
        """Send the request; a worker that died since its last request (a thread a block left behind may end it) is replaced once."""
        worker = self._ready()
        try:
            worker.conn.send((fn, args, env))
        except OSError:
            self._discard(worker)
            worker = self._ready()
            worker.conn.send((fn, args, env))
        return worker

    def _serve(self, worker: _Worker, limit: Limit, units: list[Unit], on_progress, cancelled):
        index = 0
        deadline = time.monotonic() + limit.seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                dump = worker.stack()
                self._discard(worker)
                raise Stopped(index, limit.ran_past(units[index].kind), dump, hung=True)
            if cancelled():
                self._discard(worker)
                raise Aborted()
            try:
                if not worker.conn.poll(min(remaining, 0.1)):
                    continue
                message = worker.conn.recv()
            except (EOFError, OSError):
                raise self._died(worker, index, units) from None
            if message[0] == "start":
                index, deadline = message[1], time.monotonic() + limit.seconds
                if on_progress is not None and message[2] is not None:
                    on_progress(message[2])
            else:  # ("done", (status, value), stderr, what the code read)
                return (*message[1], message[2], message[3])

    def _died(self, worker: _Worker, index: int, units: list[Unit]) -> Exception:
        worker.process.join(5)
        code, dump = worker.process.exitcode, worker.dumped()
        self._discard(worker)
        what = units[index].kind
        if dump.startswith("os._exit("):
            reason = f"the {what} called {dump.splitlines()[0]}, which ends the process running it"
        elif code is not None and code < 0:
            sig = signal.Signals(-code)
            reason = f"the {what} crashed the process running it ({sig.name}: {signal.strsignal(sig)})"
        else:
            reason = f"the {what} ended the process running it (exit status {code})"
        return Stopped(index, reason, dump)

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        worker.close()
        if self._worker is worker:
            self._worker = None


def _environment(snippet_dirs, root: Path | None = None) -> dict:
    """The caller's import path (snippet folders first, as PYTHONPATH), environment, working folder and observed folder, per request."""
    dirs = [str(d) for d in snippet_dirs]
    try:
        cwd = os.getcwd()
    except OSError:  # a removed folder (a finished test's): the worker picks its own
        cwd = ""
    return {"path": list(dict.fromkeys([*dirs, *sys.path])), "environ": dict(os.environ), "cwd": cwd, "forget": dirs,
            "observe": str(root) if root is not None else None}


def _context():
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)  # only the first start of the forkserver reads it
    return context


@contextlib.contextmanager
def _main_not_rerun():
    """While a worker starts, ``__main__`` looks like a ``-m`` module, so multiprocessing does not re-run the parent's script."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = main.__dict__.get("__spec__")
    main.__spec__ = importlib.machinery.ModuleSpec("__main__", None)
    try:
        yield
    finally:
        main.__spec__ = saved


class _Worker:
    """The parent's handle on one worker process."""

    def __init__(self, context):
        fd, self.dump_path = tempfile.mkstemp(prefix="journal-worker-", suffix=".stack")
        os.close(fd)
        self.conn, child = context.Pipe()
        self.process = context.Process(target=sandbox_child.main, args=(child, self.dump_path, os.getpid()),
                                       name="journal-page-code", daemon=True)
        with _main_not_rerun():
            self.process.start()
        child.close()

    def wait_ready(self) -> None:
        try:
            if self.conn.poll(START_SECONDS):
                self.conn.recv()
                return
            problem = f"did not start within {START_SECONDS:g} s"
        except (EOFError, OSError):
            self.process.join(5)
            problem = f"exited while starting (exit status {self.process.exitcode})"
        self.kill()
        self.close()
        raise RuntimeError(f"the page-code worker process {problem}")

    def stack(self) -> str:
        """What faulthandler writes when asked for the worker's stacks (SIGUSR1)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGUSR1)
            deadline, size = time.monotonic() + DUMP_SECONDS, -1
            while time.monotonic() < deadline:  # written at once by a C handler: done when it stops growing
                time.sleep(0.05)
                now = os.path.getsize(self.dump_path)
                if now and now == size:
                    break
                size = now
        return self.dumped()

    def dumped(self) -> str:
        try:
            return Path(self.dump_path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def kill(self) -> None:
        """Kill the worker and every process of its group (a shell block's children)."""
        pid = self.process.pid
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.process.kill()
        self.process.join(5)

    def close(self) -> None:
        """Let the worker end (its connection closes), else kill it; remove its stack file."""
        self.conn.close()
        self.process.join(2)
        if self.process.is_alive():
            self.kill()
        with contextlib.suppress(OSError):
            os.unlink(self.dump_path)


# -- the located report ---------------------------------------------------------

_STACK_HEAD = re.compile(r"^.*\(most recent call first\):$", re.MULTILINE)
_FRAME = re.compile(r'^\s*File "(?P<file>.*)", line (?P<line>\d+) in (?P<name>.*)$')


def _threads(dump: str) -> list[list[tuple[str, int, str]]]:
    """Each thread's frames in a faulthandler dump, most recent call last."""
    stacks = []
    for block in _STACK_HEAD.split(dump)[1:]:
        frames = [(m["file"], int(m["line"]), m["name"]) for m in map(_FRAME.match, block.splitlines()) if m]
        stacks.append(frames[::-1])
    return stacks


def stopped_at(stop: Stopped, root: Path | None) -> Origin | None:
    """Where a stopped request was: its innermost frame in a file of the journal at ``root`` (a snippet function's loop, say), never
    the toolkit's own; None when no such frame ran."""
    package = _HERE.parent.parent
    for stack in _threads(stop.dump) if root is not None else ():
        paths = [(Path(f), line) for f, line, _ in stack if Path(f).is_absolute()]
        inside = [(p, line) for p, line in paths if Path(root) in p.parents and package not in p.parents and "site-packages" not in p.parts]
        if inside:
            return Origin(inside[-1][0].relative_to(root).as_posix(), inside[-1][1])
    return None


def _located(stop: Stopped, unit: Unit, sources: dict, root: Path | None = None) -> tuple[Origin, str]:
    """(origin, problem) for a stopped unit: the innermost journal frame (a page line, or a file of the journal at ``root``, a snippet
    module's loop say) names the line; the stack shown starts at the outermost page frame, journal files named from the root."""
    def origin_of(file: str, line: int) -> Origin | None:
        origins = sources.get(file, ((),))[0]
        if 1 <= line <= len(origins):
            return origins[line - 1]
        path = Path(file)
        if root is not None and path.is_absolute() and root in path.parents and "site-packages" not in path.parts \
                and _TOOLKIT not in path.parents:
            return Origin(path.relative_to(root).as_posix(), line)
        return None

    stack = next((s for s in _threads(stop.dump) if any(f in sources for f, _, _ in s)), [])
    page_frames = [i for i, (f, _, _) in enumerate(stack) if f in sources]
    journal_frames = [i for i, (f, line, _) in enumerate(stack) if origin_of(f, line)]
    origin = origin_of(*stack[journal_frames[-1]][:2]) if journal_frames else None
    origin = origin or unit.origin
    report = stop.reason
    if page_frames:
        report += f"\nStack when {'it was stopped' if stop.hung else 'the process ended'} (most recent call last):"
        for file, line, name in stack[page_frames[0]:]:
            if file in _RUNNER_FILES:
                continue
            mapped = origin_of(file, line)
            code = sources[file][1][line - 1] if file in sources and mapped else linecache.getline(file, line)
            where = f"{mapped.describe()}, in {name}" if mapped else f'File "{file}", line {line}, in {name}'
            report += f"\n  {where}\n    {code.strip()}"
    if stop.hung:
        report += f"\nIt was stopped there; the run goes on in a new process. {unit.hint}"
    else:
        report += "\nThe run goes on in a new process."
    return origin, report
