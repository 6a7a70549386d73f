"""The Makefile's math-font rule, with a stand-in python whose font install fails: a note on a
developer's machine, a failed set-up under CI=true, no stamp left either way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
STAMP = Path(".cache/fonts/.installed")


def set_up_font(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    make = shutil.which("make")
    assert make, "make is not installed (the two promised commands are make targets)"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    python = bin_dir / "python"
    python.write_text("#!/bin/sh\necho \"no npm registry here\" >&2\nexit 1\n", encoding="utf-8")
    python.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "MAKEFLAGS", "MAKELEVEL")}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([make, "-f", str(ROOT / "Makefile"), "-C", str(tmp_path), f"BIN={bin_dir}", str(STAMP)],
                          env=env, capture_output=True, text=True)


def test_a_failed_font_install_is_a_note_outside_ci(tmp_path):
    proc = set_up_font(tmp_path, None)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "math font not installed: pages fall back" in proc.stdout
    assert (tmp_path / STAMP).is_file()


@pytest.mark.parametrize("ci", ["true", "1"])
def test_a_failed_font_install_fails_set_up_under_ci(tmp_path, ci):
    proc = set_up_font(tmp_path, ci)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "math font not installed, and CI=" in proc.stderr
    assert not (tmp_path / STAMP).exists(), "a stamp would skip the install on the next make"
