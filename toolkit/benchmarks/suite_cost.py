"""10. What `make test` costs: a full run as CI makes it (`CI=true make test`: every
test, browser tests included, nothing reused), then `make test` after editing
one entry (the toolkit's result and the browser checks of unchanged pages
reused: tests/toolkit_reuse.py, tests/browser_reuse.py).

Both run `make test` itself (lint included) in a fresh copy of the whole
project made a one-commit git repository, with the project's own .venv
(VENV=...), so the figures are what `make test` pays on this machine. The copy
keeps the build caches of .cache/ but no test record, so the full run comes
first and the edit run reuses what it recorded. The edit appends a sentence to
the newest entry. Both runs print their closing line, their reuse lines and
their slowest tests. Not in --quick: the two runs take several minutes.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

from benchmarks import common
from benchmarks.rows import Row

EDIT_GOAL = 30.0   # seconds wall: `make test` after one entry edit
FULL_GOAL = 180.0  # seconds wall: `CI=true make test`
# Test records stay behind (the toolkit's and the browser checks' test-results/, the page tests' page-runs/,
# the render checks', the badge's verified.json): an edit the work tree's own runs already made would be reused.
_IGNORE = shutil.ignore_patterns(".venv", ".git", "site", ".pytest_cache", "__pycache__", "*.pyc", ".ruff_cache", "test-results",
                                 "page-runs", "render-checks", "verified.json")
REUSED = re.compile(r"^toolkit: .* inputs unchanged; FRESH=1 re-runs them$", re.M)
REUSE_LINES = re.compile(r"^(?:toolkit|reused): .*$", re.M)


def copy_repository(dest: Path) -> Path:
    """The whole work tree (not .venv, .git, site/, test records) as a one-commit repository."""
    shutil.copytree(common.REPO, dest, ignore=_IGNORE, symlinks=True)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "commit.gpgsign=false", "-c", "user.name=bench", "-c", "user.email=b@b",
                                                 "commit", "-q", "-m", "bench snapshot"]):
        subprocess.run(["git", *args], cwd=dest, check=True, capture_output=True)
    return dest


def make_test(project: Path, **env: str) -> tuple[float, str]:
    """(wall seconds, output) of `make test` in ``project``; a failure raises."""
    run_env = {k: v for k, v in common.ENV.items() if k not in ("CI", "FRESH", "MAKEFLAGS", "MAKELEVEL")} | env
    cmd = ["make", "test", f"VENV={common.REPO / '.venv'}"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=project, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.strip().splitlines()[-15:])
        raise common.BenchError(f"`make test` {env or ''} failed in the copy (exit {proc.returncode}):\n{tail}")
    return elapsed, proc.stdout


def slowest(output: str, n: int = 5) -> list[str]:
    """pytest's slowest-durations lines (its --durations report), the first ``n``."""
    return [line.strip() for line in output.splitlines() if re.match(r"^\d+\.\d+s (setup|call|teardown) ", line)][:n]


def measure(out: Path) -> Row:
    project = copy_repository(out / "reuse-project")
    full, full_out = make_test(project, CI="true")
    entry = max((project / "docs" / "blog" / "posts").glob("*.md"))
    entry.write_text(entry.read_text(encoding="utf-8") + "\nOne more sentence, for the benchmark.\n", encoding="utf-8")
    edit, edit_out = make_test(project)
    if not REUSED.search(edit_out):
        raise common.BenchError("after an entry edit `make test` did not reuse the toolkit's result:\n"
                                + "\n".join(edit_out.strip().splitlines()[-8:]))

    def closing(output: str) -> str:  # pytest's last line: what ran
        return output.strip().splitlines()[-1].strip("= ")

    notes = [f"CI=true: {full:.1f} s wall, {closing(full_out)}",
             "slowest with CI=true: " + "; ".join(slowest(full_out, 10)),
             f"after the edit: {edit:.1f} s wall, {closing(edit_out)}",
             *(f"after the edit: {line}" for line in REUSE_LINES.findall(edit_out)),
             "slowest after the edit: " + "; ".join(slowest(edit_out, 10))]
    return Row(
        "10. make test after one entry edit / CI=true make test (fresh copy)",
        f"{edit:.0f} s / {full:.0f} s wall",
        f"<= {EDIT_GOAL:.0f} s / <= {FULL_GOAL:.0f} s",
        edit <= EDIT_GOAL and full <= FULL_GOAL,
        notes=notes,
    )
