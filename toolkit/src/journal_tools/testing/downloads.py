"""Run an entry's downloads as a reader would and compare what they print with the page
(journal_tools/mkdocs_plugin/downloads.py makes them; checks/downloads.py and
toolkit/tests/mkdocs_plugin/test_download_files.py use this).

- ``<entry>.py`` is copied alone into an empty folder and runs there in a fresh
  interpreter that sees only the distributions its ``# Needs:`` header names and
  what they require (``testing/isolated_python.py``: ``python -I -S``), its top-level
  statements in order in one ``__main__`` namespace, as ``python <entry>.py`` runs
  them; what each page block's statements print is kept apart (RUNNER), so each
  checked output is compared with the block it belongs to;
- ``<entry>.ipynb`` is not run again: it is jupytext's notebook of that ``.py``, cell for
  cell (``downloads.notebook``), which checks/downloads.py compares byte for byte.

The comparison is the page tests' own (``core.outputs.check_output`` and
``check_math``). A failure names the download's file and line (the checked-output
comment) and the page's file:line.

:func:`check_downloads` is a journal's whole test of one entry's downloads (checks/downloads.py
calls it). One mistake on the page is one failure: when the first
block the downloads go wrong at fails its own page test, re-asked here in-process with the page
tests' own code (:func:`failing_page_test`: the page parsed, that test's steps run in a worker as
journal_tools.pagetest runs them), the download test skips naming that test; it fails with that
test's first line when that test is not in this run (``pytest mkdocs.yml -k downloads``). Nothing
is shared between test processes, so this holds under pytest-xdist in any order.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from journal_tools.core.code.outputs import OutputMismatch, check_math, check_output, update_hint
from journal_tools.core.code.parse import Page, Step, parse_page
from journal_tools.mkdocs_plugin.downloads import Download, Placed
from journal_tools.testing import isolated_python

RUNNER = r'''
import ast, contextlib, io, json, signal, sys, traceback

path, ranges_file, out_file, seconds = sys.argv[1:5]
ranges = json.load(open(ranges_file, encoding="utf-8"))


def stop(signum, frame):  # a page block's time limit, as its page test has it
    raise TimeoutError(f"the block ran past {float(seconds):g} s, its time limit")


signal.signal(signal.SIGALRM, stop)
block = None
tree = ast.parse(open(path, encoding="utf-8").read(), path)
namespace = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
printed = [""] * len(ranges)
result = {"printed": printed, "error": None}


def owner(line):
    return next((i for i, (start, stop) in enumerate(ranges) if start <= line < stop), None)


for node in tree.body:
    index = owner(node.lineno)
    out = io.StringIO() if index is not None else sys.stdout
    if index != block:
        block = index
        signal.setitimer(signal.ITIMER_REAL, float(seconds) if index is not None else 0)
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


@dataclass(frozen=True)
class Problem:
    """One way a download fails: where in it (``downloads/<entry>.py:N``), the page line (None: it did not run), and what."""

    where: str
    page_line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


_NEEDS = re.compile(r"^# Needs: (?P<pins>.*?) \(pip install ", re.MULTILINE)


def needed(script: str) -> list[str]:
    """The distributions the script's ``# Needs:`` header names (none: Python alone)."""
    m = _NEEDS.search(script)
    return [] if m is None else [pin.split("==")[0].strip() for pin in m["pins"].split(",")]


def script_problems(script: Path, download: Download, page: Page, timeout: float = 600) -> list[Problem]:
    """Run the .py alone in an empty folder, in a fresh process seeing only its header's names, each block under the page's block limit
    (``timeout``: the whole run's); a message per output not reproduced."""
    shown = f"{script.parent.name}/{script.name}"  # downloads/<entry>.py, as the site serves it
    with tempfile.TemporaryDirectory(prefix="download-") as tmp, \
            tempfile.TemporaryDirectory(prefix="download-run-") as run_dir:
        alone = Path(tmp, script.name)
        shutil.copyfile(script, alone)
        ranges, out = Path(run_dir, "ranges.json"), Path(run_dir, "result.json")
        ranges.write_text(json.dumps([[p.lines.start, p.lines.stop] for p in download.placed]), encoding="utf-8")
        try:
            sites = Path(run_dir, "site-packages")
            isolated_python.only(needed(alone.read_text(encoding="utf-8")), sites)
        except importlib.metadata.PackageNotFoundError as exc:
            return [Problem(f"{shown}:1", None, f"the header names a distribution not installed here: {exc}")]
        run = subprocess.run([*isolated_python.command(sites, RUNNER), str(alone), str(ranges), str(out), str(page.limit.seconds)],
                             cwd=tmp, capture_output=True, text=True, timeout=timeout)
        if not out.is_file():
            return [Problem(f"{shown}:1", None, f"the script did not run to the end (exit {run.returncode}):\n{run.stderr[-3000:]}")]
        result = json.loads(out.read_text(encoding="utf-8"))
    lines = download.script.split("\n")
    problems = _compare(page, download.placed, result["printed"],
                        lambda placed: f"{shown}:{_comment_line(lines, placed)}")
    if result["error"] is not None:
        err = result["error"]
        line = download.placed[err["block"]].step.origin.line if err["block"] is not None else None
        at = f" (the block at {page.path}:{line})" if line is not None else ""
        problems.append(Problem(f"{shown}:{err['line']}", line, f"the script raised{at}:\n{err['report']}"))
    return problems


def _compare(page: Page, placed: list[Placed], printed: list[str], where) -> list[Problem]:
    problems = []
    for p, out in zip(placed, printed):
        if not p.lines:  # not run (a skipped block): nothing to compare
            continue
        for check in (check_output, check_math):
            try:
                check(page, p.step, out)
            except OutputMismatch as mismatch:
                first, _, rest = mismatch.problem.replace(f"; {update_hint(page.path)}", "").partition("\n")
                line = mismatch.line if mismatch.path == page.path else p.step.origin.line
                problems.append(Problem(where(p), line, f"the download printed other output than the page shows at "
                                                        f"{mismatch.origin.describe()} ({first})\n{rest}"))
    return problems


def _comment_line(lines: list[str], placed: Placed) -> int:
    """The script line of the block's checked-output comment (else its first line)."""
    for n in placed.lines:
        if lines[n - 1].startswith(("# Prints (checked", "# The matrix at line")):
            return n
    return placed.lines.start


# ---------------------------------------------------------------------------
# A journal's test of one entry's downloads, and the page test that reports its failure


def made_for(built, name: str, data_files=None) -> tuple[Download, Page]:
    """``downloads.make``'s downloads for entry ``name`` of the session build (given the files read as the build was), and its page."""
    from journal_tools.compat import mkdocs_config
    from journal_tools.core.record import code_reads
    from journal_tools.core.record.inputs import Record
    from journal_tools.mkdocs_plugin import downloads

    settings = mkdocs_config.load(built.project / "mkdocs.yml")
    src = settings.blog.posts_dir / name
    if data_files is None:
        data_files = code_reads.files_read(Record(built.project), src, settings)
    return downloads.make(src, settings, data_files), parse_page(src, settings)


RUN_KIND = "download run"  # the record's kind: an entry's .py download that ran and printed every checked output, under its code


def run_key(script: str, page: Page) -> str:
    """What running the download and comparing depends on: its code without comment lines (the page's prose is comments there; the data
    files it carries are code), the page's code and checked outputs (``core.judge.chain_key``: the environment too), the toolkit."""
    from journal_tools.core.judge import chain_key
    from journal_tools.testing.site import TOOLKIT, tree_digest

    code = "\n".join(line for line in script.split("\n") if line.strip() and not line.lstrip().startswith("#"))
    return hashlib.sha256("\0".join([code, chain_key(page, page.steps), tree_digest(TOOLKIT)]).encode()).hexdigest()


def check_downloads(built, request, name: str) -> None:
    """Entry ``name``'s script prints every checked output (its notebook holds the same cells); reused while its code, its data and what
    it is compared with are unchanged, so a prose edit runs nothing. A failure the page's own test causes skips naming it, or fails with
    its first line when it is not in this run."""
    import pytest

    from journal_tools.core.record.inputs import Inputs, Record
    from journal_tools.testing.page_check_reuse import PROPERTY, ROOT
    from journal_tools.testing.site import in_this_run

    made, page = made_for(built, name)
    script = built.site / "downloads" / f"{name[:-3]}.py"
    record, key = Record(ROOT), run_key(script.read_text(encoding="utf-8"), page)
    if record.find(RUN_KIND, name, key) is not None:
        request.node.user_properties.append((PROPERTY, f"downloads/{script.name}"))
        print(f"\n{name}: downloads reused (their code, data and checked outputs are unchanged)")
        return
    problems = script_problems(script, made, page)
    if problems:
        cause = failing_page_test(problems, page, built.project)
        if cause is not None and in_this_run(request.session, cause[0]):
            pytest.skip(f"{cause[0]} fails: the page's own test reports it ({cause[1]})")
        if cause is not None:
            pytest.fail(f"{cause[1]}\n(the downloads fail because the page's own test does; {cause[0]}, which "
                        "reports it, is not in this run)\n\n" + "\n".join(map(str, problems)), pytrace=False)
        pytest.fail("\n".join(map(str, problems)), pytrace=False)
    record.passed(RUN_KIND, name, key, Inputs())


def first_failing_block(problems: list[Problem], page: Page) -> Step | None:
    """The page block where the downloads first go wrong (earliest page line named); what follows runs after it: no new cause."""
    named = [p.page_line for p in problems if p.page_line is not None]
    if not named:
        return None
    first = min(named)
    before = [step for step in page.steps if step.origin.line <= first]
    return before[-1] if before else None


def failing_page_test(problems: list[Problem], page: Page, project: Path) -> tuple[str, str] | None:
    """(node id, first report line) of the page test failing where the downloads first go wrong, as the judge finds it now in
    ``project`` (reused when that chain passed); None when it passes."""
    from journal_tools.compat import mkdocs_config
    from journal_tools.core import judge
    from journal_tools.core.code.sandbox import Sandbox
    from journal_tools.core.record.inputs import Record

    step = first_failing_block(problems, page)
    if step is None:
        return None
    settings = mkdocs_config.load(project / "mkdocs.yml")
    try:
        fresh = parse_page(project / page.path, settings)
    except Exception as exc:  # the page test cannot read it either: its ::page test says why
        return judge.node_id(page.path, judge.PAGE), str(exc).split("\n", 1)[0]
    test = next((t for t in judge.chain_tests(fresh) if any(s.origin.line == step.origin.line for s in t.steps)), None)
    if test is None:
        return None
    sandbox = Sandbox()
    try:
        verdict = judge.judge_chain(sandbox, Record(project), fresh, test, settings)
    finally:
        sandbox.close()
    if not verdict.failures:
        return None
    return judge.node_id(page.path, test.name), str(verdict.failures[0][0]).strip().split("\n", 1)[0]
