"""Worker for measurement 3: warm rebuilds in one interpreter, as `mkdocs serve` does.

    python toolkit/benchmarks/warm_worker.py REPEATS NAME=CONFIG=SITE [NAME=CONFIG=SITE ...]

Run with the project copy as working directory. Each variant is built once
to warm up (imports, caches), then the variants are rebuilt alternately;
prints the timed builds as JSON. The config is loaded afresh for every
build, like a serve rebuild.
"""

import json
import logging
import sys
import time


def build_once(config_file: str, site_dir: str) -> float:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    start = time.perf_counter()
    cfg = load_config(config_file=config_file, site_dir=site_dir)
    cfg.plugins.on_startup(command="build", dirty=False)
    try:
        build(cfg)
    finally:
        cfg.plugins.on_shutdown()
    return time.perf_counter() - start


def main() -> None:
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    repeats = int(sys.argv[1])
    variants = [arg.split("=", 2) for arg in sys.argv[2:]]
    times = {name: [] for name, _, _ in variants}
    warm = {name: build_once(cfg, site) for name, cfg, site in variants}
    for r in range(repeats):
        order = variants if r % 2 == 0 else variants[::-1]
        for name, cfg, site in order:
            times[name].append(build_once(cfg, site))
    print("BENCH-JSON " + json.dumps({"warmup": warm, "times": times}))


if __name__ == "__main__":
    main()
