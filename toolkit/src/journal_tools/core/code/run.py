"""Run a page's Python steps and report failures by page (and snippet) line: each fence is compiled under a
synthetic file name whose lines map back when a traceback is shown.

These runners run inside the sandbox's worker, so everything a block raises is its failure
(``KeyboardInterrupt`` and ``SystemExit`` too), and its output is kept up to ``limits.OUTPUT_LIMIT``.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import linecache
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from journal_tools.core.code import prose_numbers
from journal_tools.core.code.outputs import (
    OutputMismatch,
    check_math,
    check_output,
    matrix_numbers,
    printed_numbers,
    update_hint,
)
from journal_tools.core.code.parse import SHELL_LANGS, Page, Part, Step
from journal_tools.core.mistake import Mistake, Origin
from journal_tools.core.page.limits import BoundedOutput

SEED = 0

# The runners' own frames are left out of reports.
_RUNNER_FILES = {__file__, os.path.join(os.path.dirname(__file__), "notebook.py"),
                 os.path.join(os.path.dirname(__file__), "sandbox_child.py")}

# Synthetic file name -> the origin of each line of that compiled fence.
_ORIGINS: dict[str, list[Origin]] = {}


class BlockError(Mistake):
    """A step failed at ``origin``; ``problem``: exception line and mapped traceback (or mismatch, limit); ``cause``: what it raised."""

    def __init__(self, origin: Origin, problem: str, cause: BaseException | None = None, printed: str | None = None):
        self.cause = cause
        self.printed = printed  # what the step printed, when its output is what failed
        super().__init__(origin.path, origin.line, problem, origin.included_at)

    @property
    def report(self) -> str:
        """The whole report: ``path:line: problem``."""
        return str(self)


@dataclass
class StepResult:
    """How one step ended."""

    step: Step
    status: str  # "passed", "skipped", "xfailed"
    reason: str = ""
    stdout: str = ""
    numbers: int = 0  # numbers the page shows that equal what the step printed (after a rewrite: all it shows)
    shown: list[str] = field(default_factory=list)  # what each number in the text after its parts gives (core.code.prose_numbers)


@dataclass
class ChainResult:
    """The steps of one item, filled in as they finish."""

    results: list[StepResult] = field(default_factory=list)
    observed: dict = field(default_factory=dict)  # what the code read: {"files": {path: digest}, "folders": {...}} (core.code.observe)
    failed: Step | None = None  # the step that raised, ran past its limit or printed what the page does not show

    @property
    def executed_fences(self) -> int:
        """Fences run, the failing step's included (skipped steps not counted; a seed-dependent step ran and failed: counted once)."""
        ran = sum(len(r.step.parts) for r in self.results if r.status != "skipped")
        failed_apart = self.failed is not None and self.failed not in [r.step for r in self.results]
        return ran + (len(self.failed.parts) if failed_apart else 0)

    @property
    def numbers_checked(self) -> int:
        """Numbers compared with what passed steps printed or gave (expected outputs, checked matrices, numbers in the text)."""
        return sum(r.numbers for r in self.results if r.status == "passed")

    @property
    def shown(self) -> list[str | None]:
        """What each number in the text of the steps run gives, in page order (None: its step did not pass)."""
        counts = [sum(len(p.prose) for p in r.step.parts) for r in self.results]
        return [v for r, n in zip(self.results, counts) for v in (r.shown if len(r.shown) == n else [None] * n)]

    @property
    def xfailed(self) -> list[StepResult]:
        """Steps that raised as their xfail mark expected."""
        return [r for r in self.results if r.status == "xfailed"]

    @property
    def skipped(self) -> list[StepResult]:
        """Steps skipped with a written reason."""
        return [r for r in self.results if r.status == "skipped"]


def _numbers_checked(step: Step, printed: str, rewritten: set[str]) -> int:
    """The numbers of the step's expected output and matrix; those rewritten (``--update-outputs``) now show what the step printed."""
    total = 0
    if step.expected_output is not None:
        total += len(printed_numbers(printed if "output" in rewritten else step.expected_output))
    if step.math is not None:
        total += len(matrix_numbers(step.math.tex))  # rewritten or not: a rewrite keeps the matrix's shape
    return total


def reset_global_state(seed: int = SEED) -> None:
    """Same seeds and print options before every test, whatever ran before it."""
    random.seed(seed)
    try:
        import numpy

        numpy.random.seed(seed)
    except ImportError:  # numpy comes with torch here; a page without it needs no seed
        pass
    try:
        import torch
    except ImportError:
        return
    torch.manual_seed(seed)
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


def _compile(page: Page, part: Part):
    return compile_mapped(part.code, part.origins, part_origin(page, part))


def compile_mapped(code: str, origins: list[Origin], origin: Origin):
    """Compile ``code`` whose line k was written at ``origins[k - 1]``, so tracebacks name those lines; SyntaxError becomes BlockError."""
    name = synthetic_name(origin)
    _ORIGINS[name] = origins
    source_lines = code.splitlines(keepends=True)
    linecache.cache[name] = (len(code), None, source_lines, name)
    try:
        return compile(code, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        at = _map(name, exc.lineno or 1) or origin
        raise BlockError(at, f"SyntaxError: {exc.msg}\n    {(exc.text or '').rstrip()}") from None


def synthetic_name(origin: Origin) -> str:
    """The file name code first written at ``origin`` is compiled under (as tracebacks and faulthandler dumps show it)."""
    return f"<page {origin.path}:{origin.line}>"


def part_origin(page: Page, part: Part) -> Origin:
    """Where the first code line of ``part`` was written."""
    return part.origins[0] if part.origins else Origin(page.path, part.fence.start + 1)


def _map(filename: str, lineno: int) -> Origin | None:
    origins = _ORIGINS.get(filename)
    if origins and 1 <= lineno <= len(origins):
        return origins[lineno - 1]
    return None


def format_exception(exc: BaseException) -> tuple[Origin | None, str]:
    """A traceback whose page frames name the page (or snippet) line, this runner's frames dropped."""
    te = traceback.TracebackException.from_exception(exc)
    failing = None
    for part in _chain(te):
        frames = []
        for fs in part.stack:
            if fs.filename in _RUNNER_FILES:
                continue
            o = _map(fs.filename, fs.lineno)
            if o is not None:
                failing = o if part is te else failing
                frames.append(traceback.FrameSummary(o.describe(), fs.lineno, fs.name, line=fs.line))
            else:
                frames.append(fs)
        part.stack = traceback.StackSummary.from_list(frames)
    text = "".join(te.format())
    # FrameSummary shows 'File "path:line (included at ...)", line N': keep the mapped name only.
    text = _tidy(text)
    return failing, text


def exception_line(exc: BaseException) -> str:
    """The exception line as Python prints it, ``Did you mean`` included (``str(exc)`` lacks it, and ``traceback`` before 3.12)."""
    te = traceback.TracebackException.from_exception(exc)
    line = "".join(te.format_exception_only()).strip("\n")
    if "Did you mean" in line or not isinstance(exc, (NameError, AttributeError, ImportError)):
        return line
    shown = io.StringIO()
    with contextlib.redirect_stderr(shown):
        sys.__excepthook__(type(exc), exc, exc.__traceback__)
    first = line.split("\n", 1)[0]
    m = re.search(re.escape(first) + r"(\. Did you mean: .*\?)$", shown.getvalue(), re.MULTILINE)
    return line.replace(first, first + m.group(1), 1) if m else line


def _chain(te):
    seen = []
    while te is not None and te not in seen:
        seen.append(te)
        te = te.__cause__ or te.__context__
    return seen


def _tidy(text: str) -> str:
    return re.sub(r'File "([^"]+:\d+(?: \(included at [^)]*\))?)", line \d+, in', r"\1, in", text)


def _skip_reason(step: Step, namespace: dict) -> str | None:
    """Why ``step`` is skipped, or None; a string skipif condition is evaluated here against the page's namespace, as pytest would."""
    if step.importorskip:
        try:
            __import__(step.importorskip)
        except ImportError:
            return f"needs {step.importorskip}, which is not installed"
    skip = step.mark("skip")
    if skip is not None:
        return skip.kwargs.get("reason") or (skip.args[0] if skip.args else "")
    skipif = step.mark("skipif")
    if skipif is not None:
        condition = skipif.args[0] if skipif.args else skipif.kwargs.get("condition")
        if isinstance(condition, str):
            condition = eval(condition, {"sys": sys, "os": os, "platform": platform, **namespace})
        if condition:
            return skipif.kwargs.get("reason", "")
    return None


def run_chain(page: Page, steps: list[Step], result: ChainResult, update: list | None = None,
              on_step: Callable[[int], None] | None = None, seed: int = SEED) -> ChainResult:
    """Run steps in one namespace in a fresh temporary folder, filling ``result``. ``update``: collects mismatches instead of failing;
    ``on_step(i)`` before step ``i``."""
    reset_global_state(seed)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    with fresh_folder():
        for i, step in enumerate(steps):
            if on_step is not None:
                on_step(i)
            result.results.append(_run_step(page, step, namespace, update))
    return result


@contextlib.contextmanager
def fresh_folder():
    """The working folder of every page's code (blocks, notebook cells, figures; a notebook page's kernel gets one too): a new empty one.

    Not the page's own folder (Jupyter Book's and Quarto's choice): each entry's downloads run alone in an empty folder, so code
    that read a file beside its page would pass here and fail there; a journal file is read through a snippet module's
    ``__file__`` (toolkit/DECISIONS.md)."""
    old_cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="pagetest-") as tmp:
        os.chdir(tmp)
        try:
            yield Path(tmp)
        finally:
            os.chdir(old_cwd)


def _run_step(page: Page, step: Step, namespace: dict, update) -> StepResult:
    reason = _skip_reason(step, namespace)
    if reason is not None:
        return StepResult(step, "skipped", reason)
    xfail = step.mark("xfail")
    shown: list[tuple[prose_numbers.ProseNumber, str]] = []
    try:
        printed = _run_shell(step) if step.lang in SHELL_LANGS else _run_python(page, step, namespace, shown)
    except BlockError as exc:
        if xfail is not None and _expected_failure(xfail, exc.cause):
            return StepResult(step, "xfailed", xfail.kwargs.get("reason", ""))
        raise
    if xfail is not None:  # strict: a block marked xfail that passes is a failure
        raise BlockError(step.origin, f"marked xfail ({xfail.kwargs.get('reason')}) but ran without error")
    rewritten, found = set(), []
    for check in (check_output, check_math):
        try:
            check(page, step, printed)
        except OutputMismatch as mismatch:
            found.append(mismatch)
    for mismatch in found + prose_numbers.mismatches(page, shown, update_hint(page.path)):
        # Updating, a mismatch is written back; one that cannot be (an output from an included
        # file, a matrix the printed rows do not fit) fails as it would without updating.
        if update is None or not mismatch.can_rewrite:
            raise BlockError(mismatch.origin, mismatch.problem, printed=printed) from None
        update.append(mismatch)
        rewritten.add(mismatch.kind)
    numbers = _numbers_checked(step, printed, rewritten) + sum(n.checked for n, _ in shown)
    return StepResult(step, "passed", stdout=printed, numbers=numbers, shown=[v for _, v in shown])


def _expected_failure(xfail, exc: BaseException | None) -> bool:
    raises = xfail.kwargs.get("raises")
    return not raises or isinstance(exc, raises)


def _run_python(page: Page, step: Step, namespace: dict, shown: list) -> str:
    """Run the step's parts, each followed by the numbers in the text after it (``shown``: each number with what it gives)."""
    codes = [(part, _compile(page, part)) for part in step.parts]
    out = BoundedOutput()
    try:
        with contextlib.redirect_stdout(out):
            for part, code in codes:
                exec(code, namespace)
                shown += [(number, number_text(number, namespace)) for number in part.prose]
    except BlockError:
        raise
    except BaseException as exc:  # KeyboardInterrupt and SystemExit too: one failed block, never the end of the run
        origin, report = format_exception(exc)
        origin = origin or step.origin
        printed = out.getvalue()
        if printed:
            report = f"--- printed before the error ---\n{printed}\n{report}"
        raise BlockError(origin, f"{exception_line(exc)}\n{report}", cause=exc) from None
    return out.getvalue()


def number_text(number: prose_numbers.ProseNumber, namespace: dict) -> str:
    """What a number's field gives; what it raises (an unknown name, a bad format) is a BlockError at the number."""
    try:
        return prose_numbers.evaluate(number, namespace)
    except Exception as exc:
        raise BlockError(number.origin, f"{exception_line(exc)}\n  in the number {{={number.field}}} of the text, after "
                                        "the code above it ran", cause=exc) from None


def _run_shell(step: Step) -> str:
    """Run a sh/bash step as one script in the current (the page's temporary) folder."""
    executable = "/bin/bash" if step.lang == "bash" else None
    with subprocess.Popen(step.code, shell=True, executable=executable, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        stdout, stderr = _read_bounded(proc)
        returncode = proc.wait()
    if returncode != 0:
        err = stderr.strip() or stdout.strip()
        error = subprocess.CalledProcessError(returncode, step.lang, stdout, stderr)
        raise BlockError(step.origin, f"the {step.lang} block exited with status "
                                      f"{returncode}\n{err}", cause=error)
    return stdout


def _read_bounded(proc: subprocess.Popen) -> tuple[str, str]:
    """The process's stdout and stderr, each drained (one in a thread) into a buffer cut at the output limit."""
    outputs = (BoundedOutput(), BoundedOutput())

    def drain(pipe, into: BoundedOutput) -> None:
        for chunk in iter(lambda: pipe.read(65536), ""):
            into.write(chunk)

    err_thread = threading.Thread(target=drain, args=(proc.stderr, outputs[1]), daemon=True)
    err_thread.start()
    drain(proc.stdout, outputs[0])
    err_thread.join()
    return outputs[0].getvalue(), outputs[1].getvalue()
