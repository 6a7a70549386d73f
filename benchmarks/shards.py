"""8. When the journal outgrows one runner: the page doc-tests of a synthetic
journal (1,000 entries with code in a full run), their total time on this
machine, and the split the Pages workflow would make (journal_tools.pagetest.shard)
simulated for 2, 4 and 8 jobs.

The page tests run once, serially, with a JUnit report; each page's time is
the sum of its tests' times. A shard's time is the sum over the pages the
split gives it (the same function CI's ``--shard I/N`` uses), so the figures
show both the balance of the split and whether one job would stay under the
ten minutes that ``PAGE_TEST_SHARDS`` is for.
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
    from journal_tools.pagetest import shard

    project = synthetic.make_project(base, out / f"shards-{entries}", entries)
    (project / "mkdocs.yml").write_text((project / "mkdocs.bench-synthetic.yml").read_text(encoding="utf-8"), encoding="utf-8")
    times, wall = page_times(project, out / f"shards-{entries}.xml")
    from journal_tools.compat import mkdocs_config

    settings = mkdocs_config.load(project / "mkdocs.yml")
    by_rel = {settings.rel(p): p for p in shard.pages(settings)}
    notes = [f"{len(by_rel)} pages, {len(times)} with tests; serial run {wall:.0f} s wall, "
             f"{sum(times.values()):.0f} s in the tests themselves"]
    worst = {}
    for n in (2, 4, 8):
        groups = shard.split(list(by_rel.values()), n)
        loads = [sum(times.get(settings.rel(p).replace("/", "."), 0.0) for p in g) for g in groups]
        worst[n] = max(loads)
        notes.append(f"{n} shards: " + " / ".join(f"{t:.0f}" for t in loads) + f" s (max {max(loads):.0f} s)")
    return Row(
        f"8. page doc-tests of a {entries}-entry synthetic journal (serial; per shard when split)",
        f"{wall:.0f} s in one job; {worst[4]:.0f} s max of 4 shards",
        f"one job <= {JOB_LIMIT:.0f} s, else shard", wall <= JOB_LIMIT or worst[4] <= JOB_LIMIT,
        notes=notes,
    )
