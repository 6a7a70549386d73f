"""10. What the test commands cost an author, on a fresh clone-like copy of the journal:

10a. `make test` on a fresh copy after set-up, nothing recorded (every page test,
     render check, browser and download check runs): at most 90 s wall.
10b. `make test` again after a one-entry prose edit (a sentence appended to the newest
     entry): the passed results of unchanged pages are reused. At most 20 s wall.
10c. `CI=true make test-toolkit`: the toolkit's own suite as CI runs it (a fresh copy:
     nothing recorded, Chromium and the math font required). At most 150 s wall.

Each round makes a new copy: the files git would commit from the work tree as it is
(tracked, and untracked but not ignored), made a one-commit git repository, plus
.cache/fonts (what `make setup` installs; nothing else of .cache/, so no build cache
and no test record). The copy runs the make targets themselves (lint included in
`make test`) with the project's own .venv (VENV=...; its journal_tools is the editable
install of this work tree's toolkit/src, the same code as the copy's), so the figures
are what the commands pay on this machine. Rounds: 10a, 10b, 10c in one copy; a
full run makes three rounds, --quick (only with --only 10) one.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

from benchmarks import common
from benchmarks.rows import Row

FRESH_GOAL = 90.0    # seconds wall: `make test` on a fresh copy after set-up
EDIT_GOAL = 20.0     # seconds wall: `make test` after a one-entry prose edit
TOOLKIT_GOAL = 150.0  # seconds wall: `CI=true make test-toolkit`
SET_UP = [".cache/fonts"]  # what `make setup` leaves in a clone besides .venv (shared here)
REUSE_LINES = re.compile(r"^reused: .*$", re.M)


def clone_files(repo: Path = common.REPO) -> list[str]:
    """The files a commit of ``repo``'s work tree would hold (tracked, and untracked but not ignored)."""
    proc = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repo,
                          capture_output=True, text=True, check=True)
    return sorted(name for name in proc.stdout.split("\0") if name and (repo / name).is_file())


def copy_repository(dest: Path, repo: Path = common.REPO) -> Path:
    """A fresh clone-like copy of ``repo`` after set-up (``clone_files`` and ``SET_UP``) as a one-commit repository."""
    for name in clone_files(repo):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target)  # mtimes kept: make sees the set-up stamp as up to date
    for name in SET_UP:
        if (repo / name).is_dir():
            shutil.copytree(repo / name, dest / name, symlinks=True)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "commit.gpgsign=false", "-c", "user.name=bench", "-c", "user.email=b@b",
                                                 "commit", "-q", "-m", "bench snapshot"]):
        subprocess.run(["git", *args], cwd=dest, check=True, capture_output=True)
    return dest


def make_command(target: str) -> list[str]:
    """`make <target>` with the project's .venv."""
    return ["make", target, f"VENV={common.REPO / '.venv'}"]


def set_up(project: Path) -> None:
    """Set-up is done (`make -q setup`): else the copy's `make` would install into the shared .venv,
    and point its editable journal_tools at the copy."""
    proc = subprocess.run(["make", "-q", "setup", f"VENV={common.REPO / '.venv'}"], cwd=project, capture_output=True, text=True)
    if proc.returncode != 0:
        raise common.BenchError(f"set-up of {common.REPO / '.venv'} is not up to date: run `make setup` first (as `make bench` does)")


def make(project: Path, target: str, **env: str) -> tuple[float, str]:
    """(wall seconds, output) of `make <target>` in ``project``; a failure raises."""
    run_env = {k: v for k, v in common.ENV.items() if k not in ("CI", "FRESH", "MAKEFLAGS", "MAKELEVEL")} | env
    start = time.perf_counter()
    proc = subprocess.run(make_command(target), cwd=project, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.strip().splitlines()[-15:])
        raise common.BenchError(f"`make {target}` {env or ''} failed in the copy (exit {proc.returncode}):\n{tail}")
    return elapsed, proc.stdout


def edit_entry(project: Path, n: int = 0) -> Path:
    """A prose edit of the newest entry: one sentence appended."""
    entry = max((project / "docs" / "blog" / "posts").glob("*.md"))
    entry.write_text(entry.read_text(encoding="utf-8") + f"\nOne more sentence ({n}), for the benchmark.\n", encoding="utf-8")
    return entry


def slowest(output: str, n: int = 5) -> list[str]:
    """pytest's slowest-durations lines (its --durations report), the first ``n``."""
    return [line.strip() for line in output.splitlines() if re.match(r"^\d+\.\d+s (setup|call|teardown) ", line)][:n]


def closing(output: str) -> str:
    """pytest's last line: what ran."""
    lines = [ln for ln in output.strip().splitlines() if ln.strip()]
    return lines[-1].strip("= ") if lines else ""


RUNS = (("fresh", "make test, fresh copy after set-up", FRESH_GOAL),
        ("edit", "make test after a one-entry prose edit", EDIT_GOAL),
        ("toolkit", "CI=true make test-toolkit", TOOLKIT_GOAL))


def measure(out: Path, repeats: int = 1) -> list[Row]:
    times: dict[str, list[float]] = {key: [] for key, _, _ in RUNS}
    outputs: dict[str, str] = {}
    for n in range(repeats):
        project = copy_repository(out / f"suite-copy-{n}")
        set_up(project)
        wall, outputs["fresh"] = make(project, "test")
        times["fresh"].append(wall)
        edit_entry(project, n)
        wall, outputs["edit"] = make(project, "test")
        times["edit"].append(wall)
        wall, outputs["toolkit"] = make(project, "test-toolkit", CI="true")
        times["toolkit"].append(wall)
        shutil.rmtree(project, ignore_errors=True)
    rows = []
    for (key, label, goal), letter in zip(RUNS, "abc"):
        t = times[key]
        notes = [f"min/median/max {common.mmm(t)} s ({len(t)} run{'s' if len(t) > 1 else ''}, each in a new copy); "
                 f"last run: {closing(outputs[key])}",
                 *(f"last run: {line}" for line in REUSE_LINES.findall(outputs[key])),
                 "slowest of the last run: " + "; ".join(slowest(outputs[key], 8))]
        if key == "edit" and not REUSE_LINES.search(outputs[key]):
            notes.append("WARNING: after the edit `make test` reused nothing")
        rows.append(Row(f"10{letter}. {label}", f"median {common.median(t):.0f} s (min/median/max {common.mmm(t, 0)} s)",
                        f"<= {goal:.0f} s wall", common.median(t) <= goal, notes=notes))
    return rows
