"""3. Warm rebuild with notebook execution versus without (mkdocs-jupyter
``execute: false``), everything else as in mkdocs.yml (the journal plugin
included). Two rows: the notebook as configured (its cache hits on an
unchanged rebuild: the goal), and forced execution (cache off), so a cache
hit and a real execution are never mixed in one figure.

Each variant has its own mkdocs-jupyter cache folder: the plugin evicts every
cache entry a build did not use, so variants sharing one folder (as this
benchmark once did) evict each other's entries and every other "warm"
rebuild executed the notebook again.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from benchmarks import common
from benchmarks.profiling import profile_build
from benchmarks.rows import Row

GOAL = 1.2
PLUGIN = "mkdocs-jupyter"
WORKER = Path(__file__).with_name("warm_worker.py")  # the warm rebuilds run in one interpreter there


def configs(project: Path, config: dict) -> tuple[Path, Path, Path]:
    """The three variants' config files: mkdocs.yml as is, no execution (its own cache folder), cache off."""
    exec_cfg = common.write_config(project, "nb-exec", config)
    noexec_cfg = common.write_config(project, "nb-noexec", common.with_plugin_options(
        config, PLUGIN, execute=False, cache_dir=".cache/mkdocs-jupyter-noexec"))
    forced_cfg = common.write_config(project, "nb-forced", common.with_plugin_options(config, PLUGIN, cache=False))
    return exec_cfg, noexec_cfg, forced_cfg


def measure(project: Path, out: Path, repeats: int) -> tuple[Row, Path | None]:
    """Warm rebuilds: notebook as configured (cache hit) and forced execution, each against no execution."""
    config = common.load_config(project)
    name = "3. warm rebuild, notebook cache hit / not executed"
    if not common.has_plugin(config, PLUGIN):
        return Row(name, "n/a: no notebooks", f"<= {GOAL}x"), None
    exec_cfg, noexec_cfg, forced_cfg = configs(project, config)
    sites = {"exec": out / "site-nb-exec", "noexec": out / "site-nb-noexec", "forced": out / "site-nb-forced"}
    cmd = [common.PYTHON, str(WORKER), str(repeats),
           f"exec={exec_cfg}={sites['exec']}", f"noexec={noexec_cfg}={sites['noexec']}",
           f"forced={forced_cfg}={sites['forced']}"]
    proc = subprocess.run(cmd, cwd=project, env=common.ENV, capture_output=True, text=True)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("BENCH-JSON ")), None)
    if proc.returncode != 0 or line is None:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise common.BenchError(f"warm rebuild worker failed (exit {proc.returncode}):\n{tail}")
    data = json.loads(line.split(" ", 1)[1])
    t_exec, t_no = common.median(data["times"]["exec"]), common.median(data["times"]["noexec"])
    t_forced = common.median(data["times"]["forced"])
    ratio = t_exec / t_no
    row = Row(
        name,
        f"{ratio:.2f}x ({t_exec:.1f} s / {t_no:.1f} s)",
        f"<= {GOAL}x",
        ratio <= GOAL,
        notes=[
            f"executed {common.fmt_times(data['times']['exec'])} s, not executed {common.fmt_times(data['times']['noexec'])} s "
            f"(warm, in one interpreter, median of {repeats}; first builds {data['warmup']['exec']:.1f} s / {data['warmup']['noexec']:.1f} s)",
            f"forced execution (cache off): {common.fmt_times(data['times']['forced'])} s, "
            f"{t_forced / t_no:.2f}x a build without execution: what a changed notebook or snippet costs",
        ],
        profile=lambda: profile_build(project, exec_cfg, out / "profile-nb", focus=("journal_tools", "mkdocs_jupyter", "nbconvert", "nbclient")),
    )
    return row, sites["exec"]
