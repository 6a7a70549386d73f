"""The journal's README stays short and true: a newcomer's first page (at most 150 lines), whose
claims go stale silently when a target is renamed or a file moves. Every `make X` it names is a
target of the Makefile and every `VAR=` set on it a variable the Makefile uses, every path it names
(under the journal's own top-level folders and files) exists (one with a `<placeholder>`, a file the
author makes: its top-level folder), every relative link lands, and its front-matter example, when it shows `make new`'s, is
what `make new` writes. A journal without a README.md fails: it is the author's how-to."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

from journal_tools.testing import doc_claims

MAX_LINES = 150
_FRONT_MATTER = re.compile(r"```yaml\n---\n(.*?)\n---\n```", re.S)
_NEW = re.compile(r'make new TITLE="([^"]+)"')


def _readme(root: Path) -> str:
    path = root / "README.md"
    assert path.is_file(), f"no README.md in {root}: the author's how-to (serve, test, write an entry) goes there"
    return path.read_text(encoding="utf-8")


def test_readme_is_short(request):
    lines = _readme(request.config.rootpath).splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; at most {MAX_LINES}"


def test_every_make_target_named_exists(request):
    root = request.config.rootpath
    named = doc_claims.named_targets(_readme(root))
    assert {"serve", "test"} <= named, "README.md must name make serve and make test"
    missing = sorted(named - doc_claims.make_targets(root / "Makefile"))
    assert not missing, f"README.md names make targets the Makefile lacks: {missing}"
    unused = sorted(doc_claims.named_variables(_readme(root)) - doc_claims.make_variables(root / "Makefile"))
    assert not unused, f"README.md sets make variables the Makefile never uses: {unused}"


def _tracked_top(root: Path) -> list[Path]:
    """The journal's own top-level files and folders: what git tracks (not site/ or .venv/), else all (no git, or nothing added yet:
    a journal just made and `git init`-ed)."""
    try:
        names = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        names = []
    return [root / n for n in sorted({name.split("/", 1)[0] for name in names})] or list(root.iterdir())


def test_every_path_named_exists(request):
    root = request.config.rootpath
    top = _tracked_top(root)
    pattern = doc_claims.path_pattern([p.name for p in top if p.is_dir()], [p.name for p in top if p.is_file()])
    text = _readme(root)
    missing = sorted(p for p in doc_claims.named_paths(text, pattern)
                     if not (root / (p.split("/")[0] if f"{p}<" in text else p)).exists())
    assert not missing, f"README.md names paths that do not exist: {missing}"


def test_every_relative_link_lands(request):
    _readme(request.config.rootpath)
    missing = doc_claims.broken_links(request.config.rootpath / "README.md")
    assert not missing, f"README.md links files that do not exist: {missing}"


def test_front_matter_shown_is_what_make_new_writes(request):
    """The README's front-matter example, comments aside, is the scaffold's for its `make new TITLE="..."`, date and first category."""
    from journal_tools.commands.new_entry import plan_entry

    root = request.config.rootpath
    text = _readme(root)
    shown, title = _FRONT_MATTER.search(text), _NEW.search(text)
    assert shown and title, 'README.md shows no `make new TITLE="..."` with its front matter (```yaml between ---)'
    example = yaml.safe_load(shown[1])
    plan = plan_entry(root, title[1], example["date"], category=(example.get("categories") or [None])[0])
    assert yaml.safe_load(plan.contents[plan.entry].split("---\n")[1]) == example
    assert plan.entry.name in text.replace("<today>", example["date"].isoformat())
