"""`python -m journal_tools.commands.build` (make build) never leaves a broken site/ behind,
and the plugin stops a build at bad TeX naming page, line and formula: on small
sites written in tmp_path (the author's docs/ is built by test_site_build.py only)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from journal_tools.testing.site import mkdocs_build

pytestmark = pytest.mark.slow  # each test builds a site or runs pytest or mkdocs in a subprocess

ROOT = Path(__file__).resolve().parents[3]
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1")


# --------------------------------------------------------------------------
# journal_tools.commands.build: swap in only a successful build


def _run_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "journal_tools.commands.build", "--config-file", str(config), "--site-dir", str(site)],
        cwd=ROOT, env=ENV, capture_output=True, text=True,
    )


def _site_holding(tmp_path: Path, name: str, text: str) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / name).write_text(text, encoding="utf-8")
    return site


def _leftovers(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if p.name.startswith(".site.")]


def test_failed_build_leaves_previous_site_untouched(tmp_path):
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: broken\ndocs_dir: no-such-docs\n", encoding="utf-8")
    site = _site_holding(tmp_path, "index.html", "previous site")

    proc = _run_build(config, site)

    assert proc.returncode != 0
    assert "no-such-docs" in proc.stdout + proc.stderr  # mkdocs' own message is shown
    assert "left as it was" in proc.stderr
    assert sorted(p.name for p in site.iterdir()) == ["index.html"]
    assert (site / "index.html").read_text(encoding="utf-8") == "previous site"
    assert _leftovers(tmp_path) == []


def test_successful_build_replaces_site(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Fresh\n", encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: ok\n", encoding="utf-8")
    site = _site_holding(tmp_path, "stale.html", "old")

    proc = _run_build(config, site)

    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (site / "stale.html").exists()
    assert "Fresh" in (site / "index.html").read_text(encoding="utf-8")
    assert _leftovers(tmp_path) == []


# --------------------------------------------------------------------------
# The plugin: a bad formula stops the build naming page, line and formula.


def test_bad_formula_stops_the_build(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# Page\n\nFine $x_i$.\n\nBroken $\\frac{a}{$ here.\n", encoding="utf-8"
    )
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: t\n"
        "markdown_extensions:\n  - journal_tools.core.markup.markdown_math\n"
        "  - pymdownx.highlight:\n      pygments_lang_class: true\n  - pymdownx.superfences\n"
        "  - pymdownx.snippets:\n      check_paths: true\n      dedent_subsections: true\n"
        "plugins:\n  - journal\n",
        encoding="utf-8",
    )
    proc = mkdocs_build(tmp_path, tmp_path / "site")
    assert proc.returncode != 0, proc.stdout
    assert "docs/index.md:5: bad TeX in formula '\\frac{a}{'" in proc.stdout, proc.stdout
