"""9. A journal of a thousand entries: `make serve` saves and warm builds.

9a. Save -> served page, on the real journal and on the real journal plus
    1,000 synthetic entries (`synthetic.entry`), the journal plugin on and
    the notebook plugin off in both (a constant cost, row 3): a prose edit of
    the 2025-07-27 entry, an edit of a snippet section it includes (until the
    page shows the edit with its blocks' results), and a new entry saved
    into docs/blog/posts/ (until the home page lists it). Goals: median at
    most 2 s and maximum at most 3 s at 1,000 entries; 1,000 entries at most
    1.5x the real journal. The peak resident memory of the serve process
    (and its code worker) at 1,000 entries is reported.
9b. `mkdocs build` of the 1,000-entry journal run again with nothing changed
    (the page cache in .cache/pages/ warm) against its first build: at most 25%.
9c. Row 5 (page doc-tests against the same code as plain scripts) on the
    1,000-entry journal, where pytest's fixed start-up cost is amortised:
    at most 1.2x.
"""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import replace
from pathlib import Path

from benchmarks import common, doctests, synthetic
from benchmarks.profiling import profile_build
from benchmarks.rows import Row
from benchmarks.serve_loop import ENTRY, SNIPPET, SNIPPET_ANCHOR, _get, _mmm, _until
from journal_tools.serve.port import serving

MEDIAN_GOAL, MAX_GOAL, SCALE_GOAL, WARM_GOAL = 2.0, 3.0, 1.5, 0.25


def _project(base: Path, dest: Path, n: int) -> Path:
    project = synthetic.make_project(base, dest, n)
    shutil.copy2(project / "mkdocs.bench-synthetic.yml", project / "mkdocs.yml")  # serve reads mkdocs.yml
    return project


def _head_time() -> str:
    import subprocess

    try:
        return subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=common.REPO, capture_output=True, text=True,
                              check=True).stdout.strip() or "1753574400"
    except (OSError, subprocess.CalledProcessError):
        return "1753574400"  # 2025-07-27, outside a checkout


def _peak_kb(port: int) -> int:
    """VmHWM of the `mkdocs serve` process on ``port`` and its children (the code worker), summed."""
    total = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            status = (proc / "status").read_text()
        except OSError:
            continue
        if f"127.0.0.1:{port}" in cmd or "journal_tools.serve.worker" in cmd:
            m = re.search(r"VmHWM:\s+(\d+) kB", status)
            total += int(m.group(1)) if m else 0
    return total


def saves(project: Path, repeats: int) -> tuple[dict[str, list[float]], int]:
    """Save -> page times for the three kinds of save, interleaved; and the serve peak memory (kB)."""
    # No SOURCE_DATE_EPOCH: the copy is no git checkout, and make serve pins one date for
    # the session there itself (journal_tools/build/reproducible.py), as an author's copy would see.
    env = dict(common.ENV)
    env.pop("SOURCE_DATE_EPOCH", None)
    with serving(project, project / "serve-incremental.log", env) as port:
        base = f"http://127.0.0.1:{port}/llm-journal/"
        _until(base, lambda html: True, limit=900)
        entry = base + re.search(r'href="(blog/2025/07/27/[^"]+)"', _get(base)).group(1)
        _until(entry, lambda html: "journal-run--ok" in html, limit=900)
        times: dict[str, list[float]] = {"prose": [], "snippet": [], "new entry": []}
        for n in range(repeats):
            page = project / ENTRY
            token = f"incrtoken{n}p"
            page.write_text(page.read_text(encoding="utf-8") + f"\n{token}\n", encoding="utf-8")
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
            time.sleep(1.0)  # let a background redraw or notebook rebuild (if any) pass before the next save
        peak = _peak_kb(port)
    return times, peak


def measure(base: Path, out: Path, n: int, repeats: int) -> list[Row]:
    small = _project(base, out / "incremental-0", 0)
    large = _project(base, out / f"incremental-{n}", n)
    real, _ = saves(small, repeats)
    big, peak = saves(large, repeats)
    rows = []
    for kind in ("prose", "snippet", "new entry"):
        s = sorted(big[kind])
        med, worst = s[len(s) // 2], s[-1]
        scale = med / sorted(real[kind])[len(real[kind]) // 2]
        rows.append(Row(
            f"9a. make serve, {n:,} entries: save -> page ({kind})",
            f"median {med:.2f} s, max {worst:.2f} s; {scale:.2f}x the real journal",
            f"median <= {MEDIAN_GOAL:g} s, max <= {MAX_GOAL:g} s, <= {SCALE_GOAL:g}x",
            med <= MEDIAN_GOAL and worst <= MAX_GOAL and scale <= SCALE_GOAL,
            notes=[f"min/median/max: {n:,} entries {_mmm(big[kind])} s; real journal {_mmm(real[kind])} s "
                   "(journal plugin on, notebook plugin off, interleaved kinds)"],
        ))
    rows.append(Row(f"9a. make serve, {n:,} entries: peak resident memory", f"{peak / 1024:.0f} MB",
                    notes=["VmHWM of the serve process plus its code worker"]))
    config = large / "mkdocs.yml"
    shutil.rmtree(large / ".cache" / "pages", ignore_errors=True)
    pinned = _head_time()  # as in a checkout (see saves)

    def build() -> float:
        shutil.rmtree(out / "site-incremental", ignore_errors=True)
        return common.timed([common.PYTHON, "-m", "mkdocs", "build", "-q", "-f", str(config), "-d", str(out / "site-incremental")],
                            cwd=large, env=dict(common.ENV, SOURCE_DATE_EPOCH=pinned))

    first = build()
    warm = [build() for _ in range(2)]
    ratio = common.median(warm) / first
    rows.append(Row(
        f"9b. build, {n:,} entries: unchanged rebuild / first build",
        f"{ratio:.0%} ({common.median(warm):.1f} s / {first:.1f} s)", f"<= {WARM_GOAL:.0%}", ratio <= WARM_GOAL,
        notes=[f"first build {first:.1f} s (page cache empty, figures cached), rebuilds {common.fmt_times(warm)} s"],
        profile=lambda: profile_build(large, config, out / "profile-incremental", focus=("journal_tools", "material", "mkdocs")),
    ))
    row5 = doctests.measure(large, out / "doctests-incremental", max(repeats - 1, 1))
    rows.append(replace(row5, measurement=f"9c. page doc-tests / same code as scripts, {n:,} entries"))
    return rows
