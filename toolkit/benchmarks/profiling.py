"""cProfile a measured command and summarise where the time goes."""

from __future__ import annotations

import io
import pstats
import subprocess
from pathlib import Path

from benchmarks import common


def _short(filename: str) -> str:
    for marker in ("site-packages/", "journal-bench-", "/lib/python"):
        if marker in filename:
            tail = filename.split(marker, 1)[1]
            return tail.split("/", 1)[1] if marker == "journal-bench-" and "/" in tail else tail
    return filename


def summarise(prof: Path, *, focus: tuple[str, ...] = (), top: int = 12) -> list[str]:
    stats = pstats.Stats(str(prof), stream=io.StringIO())
    total = stats.total_tt
    entries = []
    for (filename, line, func), (cc, nc, tt, ct, callers) in stats.stats.items():
        entries.append((_short(filename), line, func, nc, tt, ct))
    lines = [f"profile {prof} (total {total:.1f} s of profiled CPU time)"]

    def show(title, rows, key):
        lines.append(f"  {title}:")
        for f, ln, fn, nc, tt, ct in rows[:top]:
            lines.append(f"    {key(tt, ct):6.2f} s  {nc:>8} calls  {fn}  ({f}:{ln})")

    show("top by own time", sorted(entries, key=lambda e: -e[4]), lambda tt, ct: tt)
    skip = ("<frozen", "{built-in", "<string>", "~")
    cum = [e for e in sorted(entries, key=lambda e: -e[5]) if not e[0].startswith(skip)]
    if focus:
        mine = [e for e in cum if any(f"{name}/" in e[0] or e[0].startswith(name) for name in focus)]
        show(f"top by cumulative time in {', '.join(focus)}", mine, lambda tt, ct: ct)
    imports = [e for e in cum if e[2] == "<module>" and "/" in e[0] and not e[0].endswith("__main__.py")]
    show("slowest module imports (cumulative, nested imports included)", imports, lambda tt, ct: ct)
    return lines


def profile_cmd(args: list[str], *, cwd: Path, prof: Path, focus: tuple[str, ...] = ()) -> list[str]:
    prof.parent.mkdir(parents=True, exist_ok=True)
    cmd = [common.PYTHON, "-m", "cProfile", "-o", str(prof), *args]
    proc = subprocess.run(cmd, cwd=cwd, env=common.ENV, capture_output=True, text=True)
    if not prof.exists():
        return [f"profiling failed (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-500:]}"]
    return summarise(prof, focus=focus)


def profile_build(project: Path, config_file: Path, out: Path, *, focus: tuple[str, ...] = ()) -> list[str]:
    return profile_cmd(
        ["-m", "mkdocs", "build", "-q", "-f", str(config_file), "-d", str(out / "site")],
        cwd=project, prof=out / "build.prof", focus=focus,
    )
