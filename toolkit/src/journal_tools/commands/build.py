"""``make build``: ``mkdocs build --strict`` into a fresh folder, swapped in for site/ only on success.

    python -m journal_tools.commands.build [--config-file mkdocs.yml] [--site-dir site]

A failed build prints MkDocs' messages, leaves the previous site/ as it was and exits non-zero.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def build(config_file: str | Path = "mkdocs.yml", site_dir: str | Path | None = None) -> int:
    """Build into a temp folder and swap it into ``site_dir``; return an exit code."""
    config_file = Path(config_file).resolve()
    if site_dir is None:
        site_dir = config_file.parent / "site"
    site_dir = Path(site_dir).resolve()
    parent = site_dir.parent
    parent.mkdir(parents=True, exist_ok=True)

    new_dir = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}.new-", dir=parent))
    old_dir = parent / f".{site_dir.name}.old-{os.getpid()}"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    cmd = [
        sys.executable, "-m", "mkdocs", "build", "--strict",
        "--config-file", str(config_file),
        "--site-dir", str(new_dir),
    ]
    start = time.perf_counter()
    try:
        result = subprocess.run(cmd, env=env, cwd=config_file.parent)
        if result.returncode != 0:
            print(
                f"journal_tools.commands.build: mkdocs build failed (exit {result.returncode}); "
                f"{site_dir} left as it was.",
                file=sys.stderr,
            )
            return result.returncode or 1
        had_site = site_dir.exists()
        if had_site:
            os.rename(site_dir, old_dir)
        try:
            os.rename(new_dir, site_dir)
        except OSError:
            if had_site:
                os.rename(old_dir, site_dir)  # put the previous site back
            raise
    finally:
        shutil.rmtree(new_dir, ignore_errors=True)
        shutil.rmtree(old_dir, ignore_errors=True)
    print(f"journal_tools.commands.build: site built into {site_dir} in {time.perf_counter() - start:.1f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``make build``: the command line of :func:`build`."""
    parser = argparse.ArgumentParser(prog="python -m journal_tools.commands.build", description=__doc__.splitlines()[0])
    parser.add_argument("-f", "--config-file", default="mkdocs.yml")
    parser.add_argument("-d", "--site-dir", default=None, help="default: site/ next to the config file")
    args = parser.parse_args(argv)
    return build(args.config_file, args.site_dir)


if __name__ == "__main__":
    sys.exit(main())
