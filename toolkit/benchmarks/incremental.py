"""9. The author's loop at any journal size: `make serve` on the real journal and with 1,000 entries more.

The real journal and the real journal plus 1,000 synthetic entries
(`synthetic.entry`), the journal plugin on and the notebook plugin off in both
(a constant cost, row 3), `make serve`'s recent window at its default (30
entries; journal_tools/serve/window.py):

9a. `make serve` answers its first request (from starting the command until
    the home page answers): at most 8 s at 1,000 entries, and at most 1.5x
    the real journal.
9b. Save -> served page: a prose edit of the 2025-07-27 entry, an edit of a
    snippet section it includes (until the page shows the edit with its
    blocks' results), and a new entry saved into docs/blog/posts/ (until the
    home page lists it). Goals at both sizes: median at most 1.5 s, maximum
    at most 2 s. The peak resident memory of the serve process (and its code
    worker) is reported.
9c. Row 5 (page doc-tests against the same code as plain scripts) on the
    1,000-entry journal, where pytest's fixed start-up cost is amortised:
    at most 1.2x.

A missed save goal is profiled: one serve rebuild after a prose save, under
cProfile (``profile_save``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path

from benchmarks import common, doctests, synthetic
from benchmarks.profiling import summarise
from benchmarks.rows import Row
from benchmarks.serve_loop import ENTRY, SNIPPET, SNIPPET_ANCHOR, _get, _mmm, _until
from journal_tools.serve.port import serving

FIRST_GOAL, FIRST_SCALE = 8.0, 1.5
MEDIAN_GOAL, MAX_GOAL = 1.5, 2.0
KINDS = ("prose", "snippet", "new entry")


def _project(base: Path, dest: Path, n: int) -> Path:
    project = synthetic.make_project(base, dest, n)
    shutil.copy2(project / "mkdocs.bench-synthetic.yml", project / "mkdocs.yml")  # serve reads mkdocs.yml
    return project


def _env() -> dict:
    # No SOURCE_DATE_EPOCH: the copy is no git checkout, and make serve pins one date for
    # the session there itself (journal_tools/mkdocs_plugin/build_date.py), as an author's copy would see.
    env = dict(common.ENV)
    env.pop("SOURCE_DATE_EPOCH", None)
    return env


def _peak_kb(port: int) -> int:
    """VmHWM of the `mkdocs serve` process on ``port`` and of every process under it (the code
    worker and its spare, the forkserver they come from), summed."""
    parents, peaks, roots = {}, {}, set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            status = (proc / "status").read_text()
        except OSError:
            continue
        pid = int(proc.name)
        parents[pid] = int(re.search(r"PPid:\s+(\d+)", status).group(1))
        m = re.search(r"VmHWM:\s+(\d+) kB", status)
        peaks[pid] = int(m.group(1)) if m else 0
        if f"127.0.0.1:{port}" in cmd and "serve" in cmd:
            roots.add(pid)

    def under_serve(pid: int) -> bool:
        while pid > 1:
            if pid in roots:
                return True
            pid = parents.get(pid, 0)
        return False

    return sum(kb for pid, kb in peaks.items() if under_serve(pid))


def first_request(project: Path) -> float:
    """Seconds from starting `mkdocs serve` until its home page answers."""
    start = time.perf_counter()
    with serving(project, project / "serve-first.log", _env()) as port:
        _until(f"http://127.0.0.1:{port}/llm-journal/", lambda html: True, limit=900)
        return time.perf_counter() - start


def _entry_url(base: str) -> str:
    return base + re.search(r'href="(blog/2025/07/27/[^"]+)"', _get(base)).group(1)


def _save_prose(project: Path, token: str) -> None:
    page = project / ENTRY
    page.write_text(page.read_text(encoding="utf-8") + f"\n{token}\n", encoding="utf-8")


def saves(project: Path, repeats: int) -> tuple[dict[str, list[float]], int]:
    """Save -> page times for the three kinds of save, interleaved; and the serve peak memory (kB)."""
    with serving(project, project / "serve-saves.log", _env()) as port:
        base = f"http://127.0.0.1:{port}/llm-journal/"
        _until(base, lambda html: True, limit=900)
        entry = _entry_url(base)
        _until(entry, lambda html: "journal-run--ok" in html, limit=900)
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}
        for n in range(repeats):
            token = f"incrtoken{n}p"
            _save_prose(project, token)
            times["prose"].append(_until(entry, lambda html, t=token: t in html and "code blocks ran" in html))

            snippet = project / SNIPPET
            token = f"incrtoken{n}s"
            snippet.write_text(snippet.read_text(encoding="utf-8").replace(SNIPPET_ANCHOR, f"# {token}\n{SNIPPET_ANCHOR}", 1),
                               encoding="utf-8")
            times["snippet"].append(_until(entry, lambda html, t=token: t in html and "code blocks ran" in html))

            title = f"Incremental benchmark entry {n}"
            (project / "docs" / "blog" / "posts" / f"2026-11-{10 + n:02d}-incremental-{n}.md").write_text(
                f"---\ndate: 2026-11-{10 + n:02d}\ncategories:\n  - Study notes\nauthors:\n  - author\n---\n\n# {title}\n\n"
                "A new entry.\n\n<!-- more -->\n\nIts body.\n", encoding="utf-8")
            times["new entry"].append(_until(base, lambda html, t=title: t in html))
            time.sleep(1.0)  # let a background figure redraw (a snippet changed) pass before the next save
        peak = _peak_kb(port)
    return times, peak


# A serve rebuild, as `mkdocs serve` makes it (its plugin instances kept from build to build, the
# config read again), after a prose save, under cProfile: the first build is not profiled.
_PROFILED_SAVE = """
import cProfile, sys, tempfile
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config

site = tempfile.mkdtemp()
config = load_config("mkdocs.yml", site_dir=site)
config.plugins.on_startup(command="serve", dirty=False)
build(config)
entry = Path(sys.argv[1])
entry.write_text(entry.read_text(encoding="utf-8") + "\\nprofiletoken\\n", encoding="utf-8")
config = load_config("mkdocs.yml", site_dir=site)
cProfile.run("build(config)", sys.argv[2])
config.plugins.on_shutdown()
"""


def profile_save(project: Path, prof: Path) -> list[str]:
    """cProfile of one serve rebuild after a prose save of the entry (``_PROFILED_SAVE``)."""
    prof.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([common.PYTHON, "-c", _PROFILED_SAVE, str(project / ENTRY), str(prof)], cwd=project, env=_env(),
                          capture_output=True, text=True)
    if not prof.exists():
        return [f"profiling failed (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-800:]}"]
    return ["one serve rebuild after a prose save", *summarise(prof, focus=("journal_tools", "material", "mkdocs"))]


def _spread(values: list[float]) -> str:
    return f"median {common.median(values):.2f} s ({_mmm(values)})"


def measure(base: Path, out: Path, n: int, repeats: int) -> list[Row]:
    small = _project(base, out / "incremental-0", 0)
    large = _project(base, out / f"incremental-{n}", n)
    starts: dict[Path, list[float]] = {small: [], large: []}
    for _ in range(repeats):  # interleaved
        for project in (small, large):
            starts[project].append(first_request(project))
    first, scale = common.median(starts[large]), common.median(starts[large]) / common.median(starts[small])
    rows = [Row(
        f"9a. make serve, {n:,} entries: first request answered",
        f"{_spread(starts[large])}; {scale:.2f}x the real journal",
        f"<= {FIRST_GOAL:g} s, <= {FIRST_SCALE:g}x", first <= FIRST_GOAL and scale <= FIRST_SCALE,
        notes=[f"min/median/max: {n:,} entries {_mmm(starts[large])} s, real journal {_mmm(starts[small])} s "
               "(from starting mkdocs serve until the home page answers; .cache/ warm after the first start)"],
    )]
    real, real_peak = saves(small, repeats)
    big, big_peak = saves(large, repeats)
    profiled = False
    for kind in KINDS:
        met = all(common.median(t[kind]) <= MEDIAN_GOAL and max(t[kind]) <= MAX_GOAL for t in (real, big))
        profile = None if met or profiled else (lambda: profile_save(large, out / "profile-serve-save"))
        profiled = profiled or profile is not None
        rows.append(Row(
            f"9b. make serve: save -> page ({kind})",
            f"{n:,} entries {_spread(big[kind])}; real journal {_spread(real[kind])}",
            f"median <= {MEDIAN_GOAL:g} s, max <= {MAX_GOAL:g} s", met,
            notes=[f"min/median/max: {n:,} entries {_mmm(big[kind])} s; real journal {_mmm(real[kind])} s "
                   "(journal plugin on, notebook plugin off, the three kinds interleaved)"],
            profile=profile,  # the first missed save only: one session profiles them all
        ))
    rows.append(Row("9b. make serve: peak resident memory",
                    f"{n:,} entries {big_peak / 1024:.0f} MB; real journal {real_peak / 1024:.0f} MB",
                    notes=["VmHWM of the serve process plus every process under it (the code worker and its spare)"]))
    row5 = doctests.measure(large, out / "doctests-incremental", max(repeats - 1, 1))
    rows.append(replace(row5, measurement=f"9c. page doc-tests / same code as scripts, {n:,} entries"))
    return rows
