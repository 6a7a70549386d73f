"""8. When the journal outgrows one runner: the page doc-tests of a synthetic
journal (1,000 entries with code in a full run), their total time on this
machine, against the ten minutes one CI job should stay under (past it, a
split of the page tests, with pytest-split, would pay).

The page tests run once, serially, with a JUnit report; each page's time is
the sum of its tests' times.
"""

from __future__ import annotations

import subprocess
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from benchmarks import common, synthetic
from benchmarks.rows import Row

JOB_LIMIT = 600.0  # seconds: one CI job's page tests should stay under this


def page_times(project: Path, report: Path) -> tuple[dict[str, float], float]:
    """(page -> seconds of its tests, wall time of the whole run)."""
    start = time.perf_counter()
    proc = subprocess.run([common.PYTHON, "-m", "pytest", "docs", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                           f"--junitxml={report}", "-o", "addopts="], cwd=project, env=common.ENV,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise common.BenchError("page tests of the synthetic journal failed:\n" + "\n".join(proc.stdout.splitlines()[-15:]))
    times: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).getroot().iter("testcase"):
        # JUnit names a test's file as a dotted class name: docs/blog/x.md -> docs.blog.x.md
        times[case.get("classname", "")] += float(case.get("time") or 0)
    return dict(times), wall


def measure(base: Path, out: Path, entries: int) -> Row:
    project = synthetic.make_project(base, out / f"shards-{entries}", entries)
    (project / "mkdocs.yml").write_text((project / "mkdocs.bench-synthetic.yml").read_text(encoding="utf-8"), encoding="utf-8")
    times, wall = page_times(project, out / f"shards-{entries}.xml")
    slowest = sorted(times.items(), key=lambda kv: -kv[1])[:3]
    notes = [f"{len(times)} pages with tests; serial run {wall:.0f} s wall, {sum(times.values()):.0f} s in the tests themselves",
             "slowest pages: " + ", ".join(f"{name} {secs:.1f} s" for name, secs in slowest)]
    return Row(
        f"8. page doc-tests of a {entries}-entry synthetic journal (serial, one job)",
        f"{wall:.0f} s in one job",
        f"one job <= {JOB_LIMIT:.0f} s", wall <= JOB_LIMIT,
        notes=notes,
    )
