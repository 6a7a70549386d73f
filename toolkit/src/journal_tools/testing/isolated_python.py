"""A Python that sees only some distributions: how a reader's fresh environment runs a download.

``python -I -S`` ignores the environment and the site-packages folders (the standard
library alone); :func:`only` fills a folder with symbolic links to the top-level entries of
the named distributions and of every distribution they require, in turn (their
``importlib.metadata`` files: packages, modules, extension files, ``.dist-info``), and the
command puts that folder first on ``sys.path``. An import of anything else fails as it
would for a reader who installed only what a download's header names.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
from pathlib import Path

__all__ = ["closure", "command", "only"]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(names: list[str]) -> list[str]:
    """``names`` and every distribution they require (no extras; markers evaluated), canonical names sorted; raises if not installed."""
    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = [_canonical(n) for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        dist = importlib.metadata.distribution(name)  # PackageNotFoundError: the header names what is not here
        seen.add(name)
        for text in dist.requires or ():
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_canonical(req.name))
    return sorted(seen)


def only(names: list[str], folder: Path) -> list[str]:
    """Link into ``folder`` the top-level entries of ``names`` and all they require; return the distributions linked."""
    folder.mkdir(parents=True, exist_ok=True)
    dists = closure(names)
    for name in dists:
        dist = importlib.metadata.distribution(name)
        tops = {f.parts[0] for f in dist.files or () if f.parts and f.parts[0] not in ("..", "__pycache__")}
        for top in sorted(tops):
            source = Path(dist.locate_file(top))
            link = folder / top
            if source.exists() and not link.exists():
                link.symlink_to(source, target_is_directory=source.is_dir())
    return dists


def command(folder: Path, code: str) -> list[str]:
    """The interpreter command running ``code`` with only ``folder``'s distributions importable."""
    prelude = f"import sys; sys.path.insert(0, {str(folder)!r})\n"
    return [sys.executable, "-I", "-S", "-c", prelude + code]
