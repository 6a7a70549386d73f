"""Runaway blocks (PROBES): a block that hangs, crashes its process, or raises what would end a
run is ONE failed test at `docs/...:N:`, and the run goes on, in `make check` and in serve's
CodeRunner. Each probe page has `timeout: 2`; the fixture pages after them must still pass.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.serve import code_runner, error_pages
from journal_tools.serve import state as serve
from journal_tools.testing.site import ENV, once_per_session

from fixture_journal import fixture_project, junit_outcomes

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

ENTRY = "docs/blog/posts/2025-07-27-fixture-entry.md"
NOTEBOOK = "docs/notebooks/fixture_notebook.py"
GUARD_SECONDS = 300  # far above what the run takes (about 15 s): only a stall reaches it
LIMIT = 2
# name: (the block after `print("started")`, the line of the probe it fails at, its first line after `path:N: `)
PROBES = {
    "loop": ("while True: pass\n", 9, f"the block ran past {LIMIT} s (limit: timeout in docs/probe-loop.md:2)"),
    "sleep": ("import time\ntime.sleep(10**6)\n", 10, f"the block ran past {LIMIT} s (limit: timeout in docs/probe-sleep.md:2)"),
    "os-exit": ("import os\nos._exit(1)\n", 10, "the block called os._exit(1), which ends the process running it"),
    "keyboard-interrupt": ("raise KeyboardInterrupt\n", 9, "KeyboardInterrupt"),
    "sys-exit": ("import sys\nsys.exit(0)\n", 10, "SystemExit: 0"),
    "segfault": ("import ctypes\nctypes.string_at(0)\n", 10,
                 "the block crashed the process running it (SIGSEGV: Segmentation fault)"),
    "input": ("input()\n", 9, "OSError: page code cannot read from stdin"),
    "recursion": ("def f():\n    return f()\n\n\nf()\n", 10, "RecursionError: maximum recursion depth exceeded"),
}
PROBE_TEXT = '---\ntimeout: {limit}\n---\n\n# Probe: {name}\n\n```python\nprint("started")\n{code}```\n'


def probe_path(name: str) -> str:
    return f"docs/probe-{name}.md"


def write_probes(root: Path, limit: float = LIMIT) -> list[str]:
    for name, (code, _, _) in PROBES.items():
        (root / probe_path(name)).write_text(PROBE_TEXT.format(limit=limit, name=name, code=code), encoding="utf-8")
    return [probe_path(name) for name in PROBES]


@pytest.fixture(scope="session")
def check_run(tmp_path_factory) -> dict:
    """The probes, then the fixture entry and notebook, in one pytest session run as `make check` runs one."""
    def run(shared: Path) -> dict:
        root = fixture_project(shared / "project")
        env = {k: v for k, v in ENV.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
        command = [sys.executable, "-m", "pytest", *write_probes(root), ENTRY, NOTEBOOK, "-p", "no:randomly",
                   "-p", "no:cacheprovider", f"--junitxml={shared / 'report.xml'}"]
        try:
            proc = subprocess.run(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, timeout=GUARD_SECONDS)
        except subprocess.TimeoutExpired as exc:
            return {"stalled": True, "output": (exc.stdout or b"")[-3000:].decode(errors="replace")}
        failed, errors, total = junit_outcomes(shared / "report.xml")
        return {"stalled": False, "returncode": proc.returncode, "output": proc.stdout[-6000:],
                "failed": failed, "errors": errors, "total": total}

    return once_per_session(tmp_path_factory, "limits-check", run)[1]


@pytest.mark.parametrize("name", PROBES)
def test_make_check_fails_the_block_once_naming_its_line(check_run, name):
    assert not check_run["stalled"], f"the page tests stalled for {GUARD_SECONDS} s:\n{check_run['output']}"
    assert check_run["errors"] == [], check_run["output"]
    page = probe_path(name)
    mine = [first for test, first in check_run["failed"] if test.startswith(page.replace("/", ".", 1) + "::")]
    _, line, says = PROBES[name]
    assert mine == [mine[0]] and mine[0].startswith(f"{page}:{line}: {says}"), (mine, check_run["output"])


def test_make_check_goes_on_after_every_case(check_run):
    assert not check_run["stalled"], check_run["output"]
    assert check_run["returncode"] == 1, check_run["output"]  # failures, not an interrupted (2) or crashed session
    assert len(check_run["failed"]) == len(PROBES), check_run["output"]
    # each probe's render check, the entry's three tests (render, page, figures) and the notebook's two ran and passed
    assert check_run["total"] == 2 * len(PROBES) + 5, check_run["output"]


@pytest.fixture(scope="session")
def serve_run(tmp_path_factory) -> dict:
    """The probes, then the fixture entry, through make serve's code runner, in one queue."""
    def run(shared: Path) -> dict:
        root = fixture_project(shared / "project")
        pages = [root / p for p in [*write_probes(root), ENTRY]]
        runner = code_runner.CodeRunner(mkdocs_config.load(root / "mkdocs.yml"))
        try:
            futures = runner.run(pages)
            return {str(p.relative_to(root)): futures[p].result(timeout=GUARD_SECONDS) for p in pages}
        finally:
            runner.close()

    return once_per_session(tmp_path_factory, "limits-serve", run)[1]


@pytest.mark.parametrize("name", PROBES)
def test_make_serve_shows_the_failure_panel_naming_the_line(serve_run, name):
    page = probe_path(name)
    _, line, says = PROBES[name]
    (failure,) = serve_run[page]["failures"]
    assert failure["where"] == f"{page}:{line}" and failure["message"].startswith(says), failure
    assert failure["line"] == 7  # the panel's link: the block's fence
    assert failure["report"].startswith(f"{page}:{line}: {says}")


def test_make_serve_runs_the_next_page_after_every_case(serve_run):
    entry = serve_run[ENTRY]
    assert entry["failures"] == [] and entry["ran"] == 2, entry


def test_a_loop_in_a_snippet_module_is_named_at_its_own_line(tmp_path):
    """A page calls a snippet function that never returns: the failure names the loop's line in the snippet, and the stack the
    page line that called it (make serve's runner; the page tests' worker is the same sandbox)."""
    root = fixture_project(tmp_path / "project")
    (root / "snippets" / "spin.py").write_text("def spin():\n    n = 0\n    while True:\n        n += 1\n", encoding="utf-8")
    page = root / "docs" / "spin.md"
    page.write_text(f"---\ntimeout: {LIMIT}\n---\n\n# Spin\n\n```python\nfrom spin import spin\nspin()\n```\n", encoding="utf-8")
    runner = code_runner.CodeRunner(mkdocs_config.load(root / "mkdocs.yml"))
    try:
        outcome = runner.run([page])[page].result(timeout=GUARD_SECONDS)
    finally:
        runner.close()
    (failure,) = outcome["failures"]
    assert failure["where"] in ("snippets/spin.py:3", "snippets/spin.py:4"), failure
    assert failure["message"].startswith(f"the block ran past {LIMIT} s"), failure
    assert "docs/spin.md:9, in <module>" in failure["report"] and str(root) not in failure["report"], failure["report"]


def test_os_exit_is_named_at_its_block_where_the_toolkit_sits_inside_the_journal(journal):
    """This repository holds the journal and the toolkit, installed editable: the worker's own os._exit handler is then a file of
    the journal root, and must not be taken for the journal line that exited (it was: `toolkit/src/.../sandbox_child.py:89`)."""
    from journal_tools.core.code import sandbox_child
    from journal_tools.core.code.parse import parse_page
    from journal_tools.core.code.run import BlockError, ChainResult
    from journal_tools.core.code.sandbox import Sandbox

    root = Path(sandbox_child.__file__).resolve().parents[3]  # src/ of the editable install, as `make setup` makes it
    assert "site-packages" not in root.parts, "the toolkit is not installed editable here: this case cannot arise"
    settings, write = journal
    code, line, says = PROBES["os-exit"]
    page = parse_page(write("exits.md", PROBE_TEXT.format(limit=LIMIT, name="os-exit", code=code)), settings)
    box = Sandbox()
    try:
        with pytest.raises(BlockError) as info:
            box.run_chain(page, page.steps, ChainResult(), root=root)
    finally:
        box.close()
    assert str(info.value).startswith(f"docs/exits.md:{line}: {says}"), str(info.value)


def test_a_page_saved_again_stops_its_old_run(tmp_path):
    """A hang fixed before its (long) limit: the new code runs now, not after the old run's limit."""
    root = fixture_project(tmp_path / "project")
    (page,) = (root / p for p in write_probes(root, limit=600) if p.endswith("-loop.md"))
    runner = code_runner.CodeRunner(mkdocs_config.load(root / "mkdocs.yml"))
    try:
        old = runner.run([page])[page]
        _wait_until_running(runner, page)
        page.write_text(page.read_text(encoding="utf-8").replace("while True: pass", "print('fixed')"), encoding="utf-8")
        new = runner.run([page])[page].result(timeout=120)  # the old run, left alone, would take 600 s
        assert new["failures"] == [] and new["ran"] == 1, new
        assert old.result(timeout=5).get("superseded")
    finally:
        runner.close()


def _wait_until_running(runner: code_runner.CodeRunner, page: Path) -> None:
    deadline = time.monotonic() + 120
    while runner.running != page:
        assert time.monotonic() < deadline, "the page never started running"
        time.sleep(0.05)


def test_a_rebuild_asked_for_during_the_first_build_happens_once_serving_starts(tmp_path):
    """MkDocs hands the plugin its server only after the first build: a page whose code
    outlasted that build's wait still gets its rebuild."""
    root = fixture_project(tmp_path / "project")
    state = serve.ServeState(mkdocs_config.load(root / "mkdocs.yml"))
    state.rebuild_requests.ask()  # during the first build: no server yet
    server = _RebuildRecorder()
    error_pages.install_error_pages(server, state)
    assert server.asked.wait(10), "the rebuild asked for before the server was known never happened"


class _RebuildRecorder:
    """What RebuildRequests.ask (and install_error_pages) use of MkDocs' LiveReloadServer."""

    builder = _serve_request = staticmethod(lambda *args, **kwargs: None)
    app = None

    def get_app(self):  # wsgiref's WSGIServer: the request handler install_error_pages wraps
        return self.app

    def set_app(self, app):
        self.app = app

    def __init__(self):
        self._rebuild_cond = threading.Condition()
        self._want_rebuild = False
        self.asked = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self):
        with self._rebuild_cond:
            self._rebuild_cond.wait_for(lambda: self._want_rebuild)
        self.asked.set()


HANGING_PARENT = """\
import os, sys, threading, time
from journal_tools.core.page.limits import Limit
from journal_tools.core.code.sandbox import Sandbox, Unit
from hang import spin

if __name__ == "__main__":
    box = Sandbox()
    threading.Thread(target=box.call, args=(spin, (sys.argv[1],), Limit(600, "a long limit"), [Unit("block")]),
                     daemon=True).start()
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.05)
    os._exit(0)  # gone without stopping its worker (as `mkdocs serve` ended by a signal)
"""


def test_a_worker_ends_when_the_process_it_serves_is_gone(tmp_path):
    """The clock is the parent's: a block hanging in a worker whose parent died would run for good."""
    (tmp_path / "hang.py").write_text("import os\n\n\ndef spin(progress, path):\n    progress(0)\n"
                                      "    open(path + '.tmp', 'w').write(str(os.getpid()))\n"
                                      "    os.replace(path + '.tmp', path)\n    while True:\n        pass\n", encoding="utf-8")
    (tmp_path / "parent.py").write_text(HANGING_PARENT, encoding="utf-8")
    pid_file = tmp_path / "worker.pid"
    subprocess.run([sys.executable, str(tmp_path / "parent.py"), str(pid_file)], cwd=tmp_path, env=ENV, timeout=GUARD_SECONDS, check=True)
    worker = int(pid_file.read_text(encoding="utf-8"))
    deadline = time.monotonic() + 30
    while _running(worker):
        if time.monotonic() > deadline:
            os.kill(worker, 9)
            pytest.fail(f"the worker {worker} still ran its block 30 s after its parent was gone")
        time.sleep(0.2)


def _running(pid: int) -> bool:
    """Is ``pid`` a live process (not a zombie waiting to be reaped)?"""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
