"""9. `make serve` beside plain Material, in the same run: the first answer, every save, the window.

"Plain Material" is the same `mkdocs.yml` without the journal's two plugins and
its math and citation extensions (row 1's plain config, `plugin_build.configs`);
mkdocs-jupyter is left out of both (a constant cost, row 3). Each variant runs
as `make serve` does (`mkdocs serve --livereload --watch snippets`), its
sessions alternating with the other's. The journals:

- the window's own entries: the two real entries and the most recent synthetic
  ones (`synthetic.entry`), as many as the window serves (10, 20, 30);
- the same two real entries with 1,000 synthetic ones (``entries``), served
  with `make serve POSTS=10|20|30`: its window holds exactly the entries above.

Rows:

9a. The first answer (from starting `mkdocs serve` until the home page answers)
    on 30 entries: journal / plain at most 1.5x; and with 1,000 entries, against
    plain Material serving the default window's entries.
    Each configuration is started once before, unmeasured (its caches warm).
9b. Each save (a prose edit of the 2025-07-27 entry, an edit of a snippet
    section it includes, a new entry in docs/blog/posts/), from writing the file
    until the served page holds the edit (the journal: and its code's outcome;
    a new entry: the home page lists it), at 30 entries: journal / plain at most
    1.10x, for each kind.
9c. The same saves at 1,000 entries (the default window) against plain Material
    serving the window's entries (at most 1.10x), and against the journal of the
    window's entries alone (at most 1.1x: the window costs nothing); a new entry
    no slower than a prose save.
9d. The window's table: at 1,000 entries, the median save for windows of 10, 20
    and 30 beside plain Material serving the same entries; the default
    (``window.DEFAULT``) must be the largest window whose saves cost at most 1.2x
    those of a window of 10.
9e. What each save cost beyond its one rebuild: the rebuilds the journal's serve
    log counts (its one line per save, ``serve/save_log.py``), those asked for by
    background work (a figure redrawn after a snippet edit), and the peak memory.
9f. Row 5 (page doc-tests against the same code as plain scripts) on the
    1,000-entry journal, where pytest's fixed start-up cost is amortised: at most 1.2x.

Between two saves every variant waits ``SETTLE`` seconds, and the journal until
its log is quiet, so that no save is measured behind the background rebuild of
the one before. A missed save goal is profiled: one serve rebuild after a prose
save (``profile_save``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from benchmarks import common, doctests, synthetic
from benchmarks.plugin_build import configs
from benchmarks.profiling import summarise
from benchmarks.rows import Row
from benchmarks.serve_loop import ENTRY, SNIPPET, SNIPPET_ANCHOR, _get, _until
from journal_tools.serve import window

FIRST_GOAL = 1.5  # first answer, journal / plain Material
SAVE_GOAL = 1.10  # each save, journal / plain Material on the same served entries
WINDOW_GOAL = 1.1  # each save at 1,000 entries / the journal of the window's entries alone
WINDOW_TABLE_GOAL = 1.2  # the default window: the largest whose saves cost at most this times a window of 10's
WINDOWS = (10, 20, 30)
SMALL = 30  # the 30-entry journal of rows 9a-9b (served whole: POSTS=30)
KINDS = ("prose", "snippet", "new entry")
SETTLE = 2.0  # seconds between saves (and, for the journal, a snippet save's background rebuild first)


@dataclass
class Variant:
    """One configuration `make serve` runs: a project, a config file, a window, journal or plain."""

    name: str
    project: Path
    config: Path
    posts: int | None = None  # JOURNAL_POSTS; None: the default window
    journal: bool = True
    firsts: list[float] = field(default_factory=list)
    saves: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    text_seen: list[float] = field(default_factory=list)  # journal: save -> the edit shown (before its code's outcome)
    background: list[float] = field(default_factory=list)  # journal: snippet save -> its figure's rebuild done
    logs: list[Path] = field(default_factory=list)
    peak_kb: int = 0

    def env(self) -> dict:
        # No SOURCE_DATE_EPOCH: the copy is no git checkout, and make serve pins one date for
        # the session there itself (journal_tools/mkdocs_plugin/build_date.py), as an author's copy would see.
        env = {k: v for k, v in common.ENV.items() if k != "SOURCE_DATE_EPOCH"}
        env[window.ENV] = str(self.posts or "")
        return env


def _serve(variant: Variant, log: Path) -> tuple[subprocess.Popen, str]:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out = open(log, "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-f", str(variant.config), "-a", f"127.0.0.1:{port}",
                             "--livereload", "--watch", "snippets"], cwd=variant.project, env=variant.env(),
                            stdout=out, stderr=subprocess.STDOUT)
    proc.log_file = out
    return proc, f"http://127.0.0.1:{port}/llm-journal/"


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    proc.log_file.close()


def first_answer(variant: Variant, log: Path) -> float:
    """Seconds from starting `mkdocs serve` until its home page answers."""
    start = time.perf_counter()
    proc, base = _serve(variant, log)
    try:
        _until(base, lambda html: True, limit=900)
        return time.perf_counter() - start
    finally:
        _stop(proc)


_DONE = re.compile(r"(?:first build|rebuild \d+) done in")


def _quiet(log: Path, journal: bool) -> None:
    """Wait ``SETTLE`` s; the journal also until its log has had no new save line for 1 s."""
    time.sleep(SETTLE)
    if not journal:
        return
    deadline = time.monotonic() + 60
    seen = len(_DONE.findall(log.read_text(errors="replace")))
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = len(_DONE.findall(log.read_text(errors="replace")))
        if now == seen:
            return
        seen = now


_ASKED = re.compile(r"rebuild \d+ done in [^\n]*asked for by")


def _asked(log: Path) -> int:
    """Rebuilds so far that background work asked for (the journal's serve log)."""
    return len(_ASKED.findall(log.read_text(errors="replace")))


def _second_rebuild(log: Path, before: int, limit: float = 60) -> float:
    """When (``perf_counter``) the log shows a rebuild asked for by background work after the
    ``before``-th: so the next save is not measured behind it."""
    deadline = time.monotonic() + limit
    while _asked(log) <= before:
        if time.monotonic() > deadline:
            raise common.BenchError(f"no background rebuild within {limit:.0f} s of a snippet save ({log})")
        time.sleep(0.05)
    return time.perf_counter()


def saves(variant: Variant, repeats: int, log: Path, n: int) -> None:
    """``repeats`` saves of each kind, interleaved, in one `mkdocs serve` of ``variant``."""
    proc, base = _serve(variant, log)
    variant.logs.append(log)
    posts = variant.project / "docs" / "blog" / "posts"
    try:
        _until(base, lambda html: True, limit=900)
        entry = base + re.search(r'href="(blog/2025/07/27/[^"]+)"', _get(base)).group(1)
        if variant.journal:
            _until(entry, lambda html: "code blocks ran" in html, limit=900)
        _quiet(log, variant.journal)

        def shown(token: str):
            if not variant.journal:
                return lambda html: token in html
            return lambda html: token in html and "code blocks ran" in html

        for k in range(repeats):
            token = f"floortoken{time.time_ns()}"
            page = variant.project / ENTRY
            page.write_text(page.read_text(encoding="utf-8") + f"\n{token}\n", encoding="utf-8")
            saved = time.perf_counter()
            if variant.journal:  # the edit first, then its code's outcome (the status line, added per request)
                variant.text_seen.append(_until(entry, lambda html, t=token: t in html))
            _until(entry, shown(token))
            variant.saves["prose"].append(time.perf_counter() - saved)
            _quiet(log, variant.journal)

            token = f"floortoken{time.time_ns()}"
            snippet = variant.project / SNIPPET
            asked = _asked(log)
            snippet.write_text(snippet.read_text(encoding="utf-8").replace(SNIPPET_ANCHOR, f"# {token}\n{SNIPPET_ANCHOR}", 1),
                               encoding="utf-8")
            saved = time.perf_counter()
            variant.saves["snippet"].append(_until(entry, shown(token)))
            if variant.journal:  # the entry's figure is redrawn after the rebuild and shown by a second one
                variant.background.append(_second_rebuild(log, asked) - saved)
            _quiet(log, variant.journal)

            title = f"A new entry {time.time_ns()}"
            (posts / f"2026-11-{10 + k:02d}-floor-new-{n}-{k}.md").write_text(
                f"---\ndate: 2026-11-{10 + k:02d}\ncategories:\n  - Study notes\nauthors:\n  - author\n---\n\n# {title}\n\n"
                "A new entry.\n\n<!-- more -->\n\nIts body.\n", encoding="utf-8")
            variant.saves["new entry"].append(_until(base, lambda html, t=title: t in html))
            _quiet(log, variant.journal)
        if variant.journal:
            variant.peak_kb = max(variant.peak_kb, _peak_kb(proc.pid))
    finally:
        _stop(proc)
        for new in posts.glob(f"2026-11-*-floor-new-{n}-*.md"):  # the next session starts from the same journal
            new.unlink()


def _peak_kb(root: int) -> int:
    """VmHWM of the `mkdocs serve` process ``root`` and of every process under it (the code
    worker, the forkserver it comes from), summed."""
    parents, peaks = {}, {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            status = (proc / "status").read_text()
        except OSError:
            continue
        parents[int(proc.name)] = int(re.search(r"PPid:\s+(\d+)", status).group(1))
        m = re.search(r"VmHWM:\s+(\d+) kB", status)
        peaks[int(proc.name)] = int(m.group(1)) if m else 0

    def under(pid: int) -> bool:
        while pid > 1:
            if pid == root:
                return True
            pid = parents.get(pid, 0)
        return False

    return sum(kb for pid, kb in peaks.items() if under(pid))


def rebuilds(variant: Variant) -> tuple[int, int]:
    """(rebuilds, of them asked for by background work) in the journal's serve logs."""
    text = "".join(log.read_text(errors="replace") for log in variant.logs)
    return len(re.findall(r"rebuild \d+ (?:done in|failed;)", text)), len(re.findall(r"rebuild \d+ done in [^\n]*asked for by", text))


def _window_project(base: Path, dest: Path, n: int, size: int) -> Path:
    """The two real entries and the ``size - 2`` most recent synthetic ones of an ``n``-entry journal."""
    project = synthetic.make_project(base, dest, 0)
    posts = project / "docs" / "blog" / "posts"
    for i in range(n - (size - 2), n):
        name, text = synthetic.entry(i)
        (posts / name).write_text(text, encoding="utf-8")
    return project


def _mmm(xs: list[float]) -> str:
    s = sorted(xs)
    return f"{s[0]:.2f} / {common.median(s):.2f} / {s[-1]:.2f}"


def _all(v: Variant) -> list[float]:
    return [t for kind in KINDS for t in v.saves[kind]]


# One serve rebuild after a prose save, as `mkdocs serve` makes it (plugin instances kept from build
# to build, the config read again), under cProfile: the first build is not profiled.
_PROFILED_SAVE = """
import cProfile, sys, tempfile
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config

site = tempfile.mkdtemp()
config = load_config(sys.argv[3], site_dir=site)
config.plugins.on_startup(command="serve", dirty=False)
build(config)
entry = Path(sys.argv[1])
entry.write_text(entry.read_text(encoding="utf-8") + "\\nprofiletoken\\n", encoding="utf-8")
config = load_config(sys.argv[3], site_dir=site)
cProfile.run("build(config)", sys.argv[2])
config.plugins.on_shutdown()
"""


def profile_save(variant: Variant, prof: Path) -> list[str]:
    """cProfile of one serve rebuild after a prose save of the entry (``_PROFILED_SAVE``)."""
    prof.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([common.PYTHON, "-c", _PROFILED_SAVE, str(variant.project / ENTRY), str(prof), str(variant.config)],
                          cwd=variant.project, env=variant.env(), capture_output=True, text=True)
    if not prof.exists():
        return [f"profiling failed (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-800:]}"]
    return [f"one serve rebuild after a prose save ({variant.name})",
            *summarise(prof, focus=("journal_tools", "material", "mkdocs"))]


def measure(base: Path, out: Path, n: int, repeats: int, save_repeats: int) -> list[Row]:
    """Rows 9a-9e: ``n`` synthetic entries for the large journal; ``repeats`` rounds of sessions."""
    big = synthetic.make_project(base, out / f"serve-floor-{n}", n)
    big_journal, _ = configs(big)
    plain, alone, large = {}, {}, {}
    for size in WINDOWS:
        small = _window_project(base, out / f"serve-floor-window-{size}", n, size)
        journal_cfg, plain_cfg = configs(small)
        plain[size] = Variant(f"plain Material, the {size} entries", small, plain_cfg, journal=False)
        large[size] = Variant(f"journal, {n:,} entries, POSTS={size}", big, big_journal, posts=size)
        if size in (SMALL, window.DEFAULT):
            alone[size] = Variant(f"journal, the {size} entries alone", small, journal_cfg, posts=size)
    d, s = window.DEFAULT, SMALL
    # 9a: the first answer, each configuration started once before (caches warm), then alternating.
    firsts = [plain[s], alone[s], plain[d], large[d]]
    for v in firsts:
        first_answer(v, out / "warm-up.log")
    for r in range(max(repeats, 2)):
        for v in firsts if r % 2 == 0 else reversed(firsts):
            v.firsts.append(first_answer(v, out / "first.log"))
    # 9b-9d: save sessions, alternating.
    sessions = [v for size in WINDOWS for v in (plain[size], large[size])] + list(alone.values())
    for r in range(repeats):
        for i, v in enumerate(sessions if r % 2 == 0 else list(reversed(sessions))):
            saves(v, save_repeats, out / f"saves-{r}-{i}.log", n)
    return [*_first_rows(plain, alone[s], large[d], n), *_save_rows(plain[s], alone[s], f"{s} entries", out),
            *_window_rows(plain[d], alone[d], large[d], n, out), *_table_rows(plain, large, n),
            _cost_row(alone[d], large[d], n),
            replace(doctests.measure(big, out / "doctests-floor", max(repeats - 1, 1)),
                    measurement=f"9f. page doc-tests / same code as scripts, {n:,} entries")]


def _first_rows(plain: dict[int, Variant], alone: Variant, large: Variant, n: int) -> list[Row]:
    small, big = plain[SMALL], plain[window.DEFAULT]
    p, j, pb, jb = (common.median(v.firsts) for v in (small, alone, big, large))
    return [Row(f"9a. make serve, first answer: journal / plain Material, {SMALL} entries; {n:,} entries (window {window.DEFAULT})",
                f"{j / p:.2f}x ({j:.2f} s / {p:.2f} s); {jb / pb:.2f}x ({jb:.2f} s / {pb:.2f} s)",
                f"<= {FIRST_GOAL:g}x", j / p <= FIRST_GOAL and jb / pb <= FIRST_GOAL,
                notes=[f"min/median/max: {SMALL} entries: plain {_mmm(small.firsts)} s, journal {_mmm(alone.firsts)} s; "
                       f"{n:,} entries {_mmm(large.firsts)} s, plain on its window {_mmm(big.firsts)} s "
                       "(each started once before, unmeasured)"])]


def _save_rows(plain: Variant, journal: Variant, label: str, out: Path) -> list[Row]:
    rows = []
    for kind in KINDS:
        p, j = common.median(plain.saves[kind]), common.median(journal.saves[kind])
        met = j / p <= SAVE_GOAL
        rows.append(Row(f"9b. make serve, save ({kind}): journal / plain Material, {label}",
                        f"{j / p:.2f}x ({j:.2f} s / {p:.2f} s)", f"<= {SAVE_GOAL:.2f}x", met,
                        notes=[f"min/median/max: journal {_mmm(journal.saves[kind])} s, plain {_mmm(plain.saves[kind])} s"
                               + (f"; the edit itself shown after {_mmm(journal.text_seen)} s, its code's outcome with it"
                                  if kind == "prose" and journal.text_seen else "")],
                        profile=None if met or kind != "prose" else (lambda: profile_save(journal, out / "profile-save"))))
    return rows


def _window_rows(plain: Variant, alone: Variant, large: Variant, n: int, out: Path) -> list[Row]:
    rows = []
    for kind in KINDS:
        p, a, big = (common.median(v.saves[kind]) for v in (plain, alone, large))
        rows.append(Row(f"9c. make serve, save ({kind}), {n:,} entries: / plain Material on the window; / the window alone",
                        f"{big / p:.2f}x; {big / a:.2f}x ({big:.2f} s / {p:.2f} s / {a:.2f} s)",
                        f"<= {SAVE_GOAL:.2f}x; <= {WINDOW_GOAL:g}x", big / p <= SAVE_GOAL and big / a <= WINDOW_GOAL,
                        notes=[f"min/median/max: {n:,} entries {_mmm(large.saves[kind])} s, window alone "
                               f"{_mmm(alone.saves[kind])} s, plain {_mmm(plain.saves[kind])} s"]))
    new, prose = common.median(large.saves["new entry"]), common.median(large.saves["prose"])
    rows.append(Row(f"9c. make serve, {n:,} entries: a new entry / a prose save", f"{new / prose:.2f}x ({new:.2f} s / {prose:.2f} s)",
                    "<= 1.00x", new <= prose))
    return rows


def _table_rows(plain: dict[int, Variant], large: dict[int, Variant], n: int) -> list[Row]:
    base = common.median(_all(large[WINDOWS[0]]))
    rows, fits = [], []
    for size in WINDOWS:
        j, p = common.median(_all(large[size])), common.median(_all(plain[size]))
        if j / base <= WINDOW_TABLE_GOAL:
            fits.append(size)
        rows.append(Row(f"9d. window {size}: save at {n:,} entries (all kinds) / window 10's; / plain Material, same entries",
                        f"{j / base:.2f}x; {j / p:.2f}x ({j:.2f} s; plain {p:.2f} s)", "-", None,
                        notes=[f"min/median/max: journal {_mmm(_all(large[size]))} s, plain {_mmm(_all(plain[size]))} s"]))
    chosen = max(fits) if fits else WINDOWS[0]
    rows.append(Row("9d. the default window: the largest whose saves cost <= 1.2x window 10's",
                    f"measured {chosen}; window.DEFAULT = {window.DEFAULT}", f"= {chosen}", chosen == window.DEFAULT))
    return rows


def _cost_row(alone: Variant, large: Variant, n: int) -> Row:
    counted = [rebuilds(v) for v in (alone, large)]
    saved = [sum(len(v.saves[k]) for k in KINDS) for v in (alone, large)]
    return Row("9e. make serve: rebuilds per save; asked for by background work; peak memory",
               f"{counted[0][0] - counted[0][1]} for {saved[0]} saves, +{counted[0][1]} in the background "
               f"(window alone); {counted[1][0] - counted[1][1]} for {saved[1]}, +{counted[1][1]} ({n:,} entries); "
               f"{large.peak_kb / 1024:.0f} MB",
               notes=["rebuilds: the journal's own line per save (serve/save_log.py); background: the entry's figure "
                      f"redrawn after a snippet edit, shown by its own rebuild {_mmm(alone.background + large.background)} s "
                      "after the save (the page shows its last drawing until then); memory: VmHWM of the serve process "
                      "and every process under it"])
