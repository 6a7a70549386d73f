"""Shared helpers: a snapshot of the project in a temp folder, derived configs,
timed builds in a subprocess, medians of interleaved runs, ``mkdocs serve`` of a project
(the toolkit's serve tests use it too)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

TOOLKIT = Path(__file__).resolve().parents[1]  # toolkit/: the package (src/), its suite, these benchmarks
REPO = TOOLKIT.parent  # the journal's top folder: docs/, snippets/, mkdocs.yml, .venv
PYTHON = sys.executable
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONDONTWRITEBYTECODE="1")

# What a build and the page tests need. Copied, so the benchmark sees one
# consistent tree while others edit the real one. The toolkit is not copied: it is
# the package installed into .venv (editable, from toolkit/src), the one ``PYTHON`` imports.
COPY = ["docs", "snippets", "mkdocs.yml", "pyproject.toml", "requirements.txt"]
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


class BenchError(Exception):
    pass


def workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="journal-bench-"))


def snapshot(dest: Path) -> Path:
    """Copy the project (and the installed math font) into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in COPY:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=_IGNORE)
        elif src.exists():
            shutil.copy2(src, dest / name)
    fonts = REPO / ".cache" / "fonts"
    if fonts.is_dir():
        shutil.copytree(fonts, dest / ".cache" / "fonts", symlinks=True)
    return dest


def load_config(project: Path) -> dict:
    """mkdocs.yml as a mapping, read as MkDocs reads it (the journal's one settings reader)."""
    from journal_tools.compat.mkdocs_config import read_yaml

    return read_yaml(project / "mkdocs.yml")


def plugin_name(entry) -> str:
    return entry if isinstance(entry, str) else next(iter(entry))


def has_plugin(config: dict, name: str) -> bool:
    return any(plugin_name(p) == name for p in config.get("plugins", []))


def without_plugin(config: dict, name: str) -> dict:
    config = dict(config)
    config["plugins"] = [p for p in config.get("plugins", []) if plugin_name(p) != name]
    return config


def with_plugin_options(config: dict, name: str, **options) -> dict:
    config = dict(config)
    plugins = []
    for p in config.get("plugins", []):
        if plugin_name(p) == name:
            opts = dict(p[name] or {}) if isinstance(p, dict) else {}
            opts.update(options)
            p = {name: opts}
        plugins.append(p)
    config["plugins"] = plugins
    return config


def without_notebook_nav(config: dict) -> dict:
    """Drop nav entries that point into notebooks/ (pages only with mkdocs-jupyter)."""

    def keep(item) -> bool:
        if isinstance(item, dict):
            value = next(iter(item.values()))
            return not (isinstance(value, str) and value.startswith("notebooks/"))
        return not (isinstance(item, str) and item.startswith("notebooks/"))

    def walk(items):
        out = []
        for item in items:
            if not keep(item):
                continue
            if isinstance(item, dict):
                key, value = next(iter(item.items()))
                if isinstance(value, list):
                    item = {key: walk(value)}
            out.append(item)
        return out

    config = dict(config)
    if "nav" in config:
        config["nav"] = walk(config["nav"])
    return config


def write_config(project: Path, name: str, config: dict) -> Path:
    """Next to the real one, so every relative path in it still holds."""
    path = project / f"mkdocs.bench-{name}.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def timed_build(project: Path, config_file: Path, site_dir: Path) -> float:
    """Wall time of ``mkdocs build`` in a fresh interpreter (what `make build` pays)."""
    shutil.rmtree(site_dir, ignore_errors=True)
    cmd = [PYTHON, "-m", "mkdocs", "build", "-q", "-f", str(config_file), "-d", str(site_dir)]
    return timed(cmd, cwd=project)


def timed(cmd: list[str], *, cwd: Path, failures: list[str] | None = None, env: dict | None = None) -> float:
    """Wall time of ``cmd``. A failure raises, or is appended to ``failures``."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env or ENV, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 and failures is not None:
        failures.append("\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:]))
    elif proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise BenchError(f"`{' '.join(map(str, cmd[-6:]))}` failed (exit {proc.returncode}):\n{tail}")
    return elapsed


def interleaved(variants: dict, repeats: int) -> dict[str, list[float]]:
    """Run each variant ``repeats`` times, alternating (and reversing the order
    every other round, so neither always runs first). Returns the times."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for r in range(repeats):
        for name in names if r % 2 == 0 else reversed(names):
            times[name].append(variants[name]())
    return times


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def fmt_times(xs: list[float]) -> str:
    return "/".join(f"{x:.1f}" for x in xs)


def mmm(xs: list[float], digits: int = 1) -> str:
    """min / median / max of ``xs``."""
    return " / ".join(f"{x:.{digits}f}" for x in (min(xs), median(xs), max(xs)))


@contextlib.contextmanager
def serving(project: Path, log: Path, env: dict | None = None):
    """``mkdocs serve`` of ``project`` on a free loopback port, output in ``log``, stopped on exit; yields the port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}", "--livereload",
                                 "--watch", "snippets"], cwd=project, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield port
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
