"""The fixture journal (fixtures/journal/): the build tests build this one, never the author's docs/."""

from __future__ import annotations

import shutil
from pathlib import Path

from journal_tools.testing.site import _IGNORE, ROOT, with_checkout_state

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "journal"


def fixture_project(dst: Path, src: Path = ROOT, *, caches: bool = True) -> Path:
    """The fixture journal in ``dst`` (created), built as a journal builds its site; the pins
    (requirements.txt) and the math font come from ``src``, the checkout the suite runs in.

    ``caches=False``: without the stored build caches, for tests of the caches themselves. Its checks
    of the built site are the toolkit plugin's, collected from its mkdocs.yml."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy2(FIXTURE / name, dst / name)
    shutil.copy2(src / "requirements.txt", dst / "requirements.txt")
    for name in ("docs", "snippets"):
        shutil.copytree(FIXTURE / name, dst / name, ignore=_IGNORE)
    return with_checkout_state(dst, src, caches=caches)
