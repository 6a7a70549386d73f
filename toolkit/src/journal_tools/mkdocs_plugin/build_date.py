"""Same tree, same bytes: ``SOURCE_DATE_EPOCH``, when unset, is HEAD's commit time (MkDocs' sitemap and the
feeds stamp the build otherwise). Outside a checkout ``make build`` pins nothing; ``make serve`` pins its
first build's time, so a save does not change every page's date.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

__all__ = ["last_commit_epoch", "pin_build_date"]


def last_commit_epoch(root: Path) -> str | None:
    """HEAD's commit time (seconds since the epoch) of the checkout at ``root``, or None."""
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%ct"],
            cwd=root, capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out.isdigit() else None


def pin_build_date(root: Path, *, serving: bool = False) -> None:
    """SOURCE_DATE_EPOCH := HEAD's commit time unless set; outside a checkout or while ``serving``, the first call's time."""
    if not os.environ.get("SOURCE_DATE_EPOCH"):
        epoch = last_commit_epoch(root) or (str(int(time.time())) if serving else None)
        if epoch:
            os.environ["SOURCE_DATE_EPOCH"] = epoch
