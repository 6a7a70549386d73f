"""`make bench`: the journal's benchmark table.

    python toolkit/benchmarks/run.py [--quick] [--no-profile] [--only 1,2,...] [--keep]

Prints one table (measurement | figure | goal | met?). Every ratio is measured
within this one run, on a copy of the project in a temporary folder: the two
compared variants are interleaved and repeated, and medians are compared, so
the figures hold on a noisy machine. Where a goal is missed, the measured
command is run again under cProfile and the top functions are printed.

--quick: smaller synthetic journal (10 and 100 entries), one repeat, no
profiling: a smoke test that the benchmarks run (about a minute and a half).
It leaves out 10 (`make test` twice and `make test-toolkit` on a fresh copy)
unless --only names it; then it makes one round of them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

# Run as a script (`make bench`), so its own folder is on sys.path, not toolkit/ that
# holds the `benchmarks` package; journal_tools is the package installed into .venv.
TOOLKIT = Path(__file__).resolve().parents[1]
if str(TOOLKIT) not in sys.path:
    sys.path.insert(0, str(TOOLKIT))
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

from benchmarks import (  # noqa: E402
    common,
    doctests,
    math_formulas,
    notebook_build,
    page_tests_large,
    page_weight,
    plugin_build,
    serve_floor,
    serve_hang,
    serve_loop,
    suite_cost,
    synthetic,
)
from benchmarks.rows import Row, table  # noqa: E402

FULL = dict(repeats=3, warm_repeats=3, sizes=(100, 1000), size_repeats=(2, 2), test_repeats=3, serve_repeats=5, page_test_entries=1000, page_test_repeats=3,
            floor_entries=1000, floor_repeats=2, floor_saves=4, hang_repeats=3, suite_repeats=3)
QUICK = dict(repeats=1, warm_repeats=1, sizes=(10, 100), size_repeats=(1, 1), test_repeats=1, serve_repeats=2, page_test_entries=100, page_test_repeats=1,
             floor_entries=100, floor_repeats=1, floor_saves=1, hang_repeats=1, suite_repeats=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="toolkit/benchmarks/run.py", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one repeat, no profiling")
    parser.add_argument("--no-profile", action="store_true", help="do not profile missed goals")
    parser.add_argument("--only", default="", help="comma-separated measurement numbers (1-11)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (builds, profiles)")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    # Row 10 runs make test twice and make test-toolkit: not part of a quick smoke run.
    only = {int(x) for x in args.only.split(",") if x.strip()} or set(range(1, 12)) - ({10} if args.quick else set())
    profiling = not (args.quick or args.no_profile)

    started = time.perf_counter()
    out = common.workdir()
    project = common.snapshot(out / "project")
    print(f"benchmarks: project copied to {project}; {'quick' if args.quick else 'full'} run", flush=True)
    rows: list[Row] = []
    durations: dict[str, float] = {}

    def step(n: int, label: str, fn):
        if n not in only:
            return None
        t0 = time.perf_counter()
        print(f"  {n}. {label} ...", flush=True)
        try:
            result = fn()
        except common.BenchError as exc:
            rows.append(Row(f"{n}. {label}", "FAILED", notes=[str(exc)]))
            result = None
        durations[f"{n}. {label}"] = time.perf_counter() - t0
        return result

    plain_site = None
    r = step(1, "journal plugin vs plain Material", lambda: plugin_build.measure(project, out, plan["repeats"]))
    if r:
        rows.append(r[0])
        plain_site = r[1]
    if 2 in only:
        if plain_site is None:  # measurement 1 not run: one plain build for the formulas
            plain_site = out / "site-plain"
            common.timed_build(project, plugin_build.configs(project)[1], plain_site)
        rows += step(2, "math per formula", lambda: math_formulas.measure(plain_site, project)) or []
    full_site = None
    r = step(3, "warm rebuild, notebook", lambda: notebook_build.measure(project, out, plan["warm_repeats"]))
    if r:
        rows.append(r[0])
        full_site = r[1]
    rows += step(4, "synthetic journal", lambda: synthetic.measure(project, out, plan["sizes"], plan["size_repeats"])) or []
    r = step(5, "page doc-tests vs scripts", lambda: doctests.measure(project, out, plan["test_repeats"]))
    if r:
        rows.append(r)
    if 6 in only:
        if full_site is None:  # no notebook plugin, or 3 not run: one build of mkdocs.yml as is
            full_site = out / "site-full"
            common.timed_build(project, project / "mkdocs.yml", full_site)
        rows += step(6, "page weight", lambda: page_weight.measure(full_site)) or []
    r = step(7, "make serve: save to reload", lambda: serve_loop.measure(project, plan["serve_repeats"]))
    if r:
        rows.append(r)
    rows += step(8, "page tests of a large journal: first run, then after one entry edit with and without reuse",
                 lambda: page_tests_large.measure(project, out, plan["page_test_entries"], plan["page_test_repeats"])) or []
    rows += step(9, "make serve beside plain Material: first answer, saves, the window",
                 lambda: serve_floor.measure(project, out, plan["floor_entries"], plan["floor_repeats"], plan["floor_saves"])) or []
    rows += step(10, "make test fresh, after one entry edit; CI=true make test-toolkit",
                 lambda: suite_cost.measure(out, plan["suite_repeats"])) or []
    r = step(11, "make serve: save the fix of a hung block", lambda: serve_hang.measure(project, plan["hang_repeats"]))
    if r:
        rows.append(r)

    print()
    print(table(rows))
    print()
    for row in rows:
        if row.notes:
            print(f"{row.measurement}:")
            for note in row.notes:
                print(f"  {note}")
    missed = [r for r in rows if r.met is False]
    if missed and profiling:
        print("\nWhere the time goes (cProfile of the missed measurements):")
        for row in missed:
            if row.profile is None:
                continue
            print(f"\n{row.measurement}")
            for line in row.profile():
                print(f"  {line}")
    elif missed:
        print(f"\n{len(missed)} goal(s) missed; run without --quick/--no-profile for a cProfile summary.")
    print("\nmeasurement durations: " + ", ".join(f"{k.split('.')[0]}: {v:.0f} s" for k, v in durations.items()))
    print(f"benchmarks: total {time.perf_counter() - started:.0f} s")
    if args.keep:
        print(f"kept {out}")
    else:
        shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
