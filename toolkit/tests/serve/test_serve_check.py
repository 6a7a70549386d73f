"""`make serve` reports a busy port in one line before building (journal_tools/serve/port.py),
and `make check PAGE=...` runs one page's tests."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from journal_tools.serve import port as serve_check

ROOT = Path(__file__).resolve().parents[3]


def _listening() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def test_busy_port_is_one_line_naming_a_free_one():
    with _listening() as sock:
        port = sock.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "journal_tools.serve.port", "127.0.0.1", str(port)],
                              capture_output=True, text=True)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    prefix = f"port {port} on 127.0.0.1 is in use: make serve PORT="
    assert lines[0].startswith(prefix), lines[0]
    suggested = int(lines[0][len(prefix):])
    assert suggested > port and serve_check.address_problem("127.0.0.1", suggested) is None


def test_free_port_passes_silently():
    with _listening() as sock:
        port = sock.getsockname()[1]
    proc = subprocess.run([sys.executable, "-m", "journal_tools.serve.port", "127.0.0.1", str(port)],
                          capture_output=True, text=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


@pytest.mark.parametrize("args", [[], ["127.0.0.1"], ["127.0.0.1", "http"], ["127.0.0.1", "70000"]])
def test_bad_arguments(args):
    assert serve_check.main(args) == 2


def test_unknown_host_is_one_line():
    problem = serve_check.address_problem("no-such-host.invalid", 8000)
    assert problem and "\n" not in problem and "no-such-host.invalid:8000" in problem


@pytest.fixture
def make():
    path = shutil.which("make")
    if path is None:
        pytest.skip("make is not installed: the Makefile recipes cannot be read with make -n")
    return path


def test_serve_checks_the_port_before_mkdocs_serve(make):
    out = subprocess.run([make, "-n", "serve", "PORT=8001"], cwd=ROOT, capture_output=True, text=True).stdout
    lines = out.splitlines()
    check = next(i for i, ln in enumerate(lines) if "journal_tools.serve.port 127.0.0.1 8001" in ln)
    serve = next(i for i, ln in enumerate(lines) if "mkdocs serve --dev-addr 127.0.0.1:8001" in ln)
    assert check < serve


def test_check_runs_the_page_tests_of_one_page(make):
    out = subprocess.run([make, "-n", "check", "PAGE=docs/index.md"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "-m pytest docs/index.md -p no:randomly" in out
    # -o: never (re)install .venv from inside a test, whatever the stamps' dates
    keep = ["-o", "setup", "-o", ".venv/.installed", "-o", ".cache/fonts/.installed"]
    usage = subprocess.run([make, *keep, "check"], cwd=ROOT, capture_output=True, text=True)
    assert usage.returncode != 0 and "usage: make check PAGE=" in usage.stderr
