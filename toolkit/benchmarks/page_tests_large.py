"""8. The page tests of a large journal: a synthetic journal (1,000 entries with code in a
full run, 100 in --quick), its page doc-tests (docs/) in one job, one process, as
`make test` collects them (no path named, so passed page results may be reused).

8a. The first run, nothing recorded: its wall time against the ten minutes one CI job
    should stay under; each page's time (the sum of its tests' times, from a JUnit
    report) names the slowest pages.
8b. After a one-entry edit (a sentence appended to one synthetic entry, a new one before
    every run): the page tests with the reuse of passed page results
    (core/record/inputs.py: only the edited page runs) and without it (`FRESH=1`: every
    page runs, nothing reused), interleaved. The goal is row 10's for a whole `make test`
    after an edit: whether it needs the reuse at this size is the FRESH=1 figure.
"""

from __future__ import annotations

import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from benchmarks import common, synthetic
from benchmarks.rows import Row
from benchmarks.suite_cost import EDIT_GOAL

JOB_LIMIT = 600.0  # seconds: one CI job's page tests should stay under this
# No path named and testpaths narrowed to docs/: pytest takes its default paths, as in `make test`,
# which is when the page tests reuse passed page results (pagetest/state.py, record).
PYTEST = ["-m", "pytest", "-o", "testpaths=docs", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:xdist"]
# Test records a copy of the benchmark's project may carry (the real entries' runs of row 5).
RECORDS = ("record.sqlite",)


def make_project(base: Path, dest: Path, entries: int) -> Path:
    """The synthetic journal (``synthetic.make_project``) as mkdocs.yml, with no test record."""
    project = synthetic.make_project(base, dest, entries)
    shutil.copy2(project / "mkdocs.bench-synthetic.yml", project / "mkdocs.yml")
    for name in RECORDS:
        path = project / ".cache" / name
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    return project


def run_page_tests(project: Path, report: Path | None = None, **env: str) -> tuple[float, str]:
    """(wall seconds, output) of one run of the page tests; a failure raises."""
    cmd = [common.PYTHON, *PYTEST, *([f"--junitxml={report}"] if report else [])]
    run_env = {k: v for k, v in common.ENV.items() if k not in ("CI", "FRESH")} | env
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=project, env=run_env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise common.BenchError("page tests of the synthetic journal failed:\n" + "\n".join(proc.stdout.splitlines()[-15:]))
    return wall, proc.stdout


def page_times(report: Path) -> dict[str, float]:
    """page -> seconds of its tests, from a JUnit report."""
    times: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).getroot().iter("testcase"):
        # JUnit names a test's file as a dotted class name: docs/blog/x.md -> docs.blog.x.md
        times[case.get("classname", "")] += float(case.get("time") or 0)
    return dict(times)


def edited_entry(project: Path) -> Path:
    """The synthetic entry the edits go to (the newest)."""
    return max((project / "docs" / "blog" / "posts").glob("*-synthetic-*.md"))


def _closing(output: str) -> str:
    lines = [ln for ln in output.strip().splitlines() if ln.strip()]
    return lines[-1].strip("= ") if lines else ""


def measure(base: Path, out: Path, entries: int, repeats: int = 1) -> list[Row]:
    project = make_project(base, out / f"page-tests-{entries}", entries)
    first, first_out = run_page_tests(project, out / f"page-tests-{entries}.xml")
    times = page_times(out / f"page-tests-{entries}.xml")
    slowest = sorted(times.items(), key=lambda kv: -kv[1])[:3]
    entry = edited_entry(project)
    outputs: dict[str, str] = {}
    edits = iter(range(10**6))

    def after_edit(name: str, **env: str):
        def run() -> float:
            entry.write_text(entry.read_text(encoding="utf-8") + f"\nOne more sentence ({next(edits)}), for the benchmark.\n",
                             encoding="utf-8")
            wall, outputs[name] = run_page_tests(project, **env)
            return wall
        return run

    edit = common.interleaved({"reused": after_edit("reused"), "FRESH=1": after_edit("FRESH=1", FRESH="1")}, repeats)
    if "reused: the tests of" not in outputs["reused"]:
        raise common.BenchError("after a one-entry edit the page tests reused no passed page:\n" + outputs["reused"][-1500:])
    t_reused, t_fresh = common.median(edit["reused"]), common.median(edit["FRESH=1"])
    needs = "needs the reuse" if t_fresh > EDIT_GOAL else "holds without the reuse too"
    return [
        Row(f"8a. page tests of a {entries:,}-entry synthetic journal, first run (one job, one process)",
            f"{first:.0f} s", f"<= {JOB_LIMIT:.0f} s", first <= JOB_LIMIT,
            notes=[f"{len(times)} pages with tests; {first:.0f} s wall, {sum(times.values()):.0f} s in the tests themselves; "
                   f"{_closing(first_out)}",
                   "slowest pages: " + ", ".join(f"{name} {secs:.1f} s" for name, secs in slowest)]),
        Row(f"8b. page tests of {entries:,} entries after a one-entry edit: reused / FRESH=1",
            f"{t_reused:.1f} s / {t_fresh:.1f} s ({t_fresh / t_reused:.1f}x)",
            f"<= {EDIT_GOAL:.0f} s (row 10b)", t_reused <= EDIT_GOAL,
            notes=[f"min/median/max: reused {common.mmm(edit['reused'])} s, FRESH=1 {common.mmm(edit['FRESH=1'])} s "
                   f"(interleaved, {repeats} each; a sentence appended to {entry.name} before every run)",
                   f"reused: {_closing(outputs['reused'])}; FRESH=1: {_closing(outputs['FRESH=1'])}",
                   f"at {entries:,} entries the goal {needs} (FRESH=1: {t_fresh:.1f} s against {EDIT_GOAL:.0f} s)"]),
    ]
