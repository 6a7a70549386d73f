"""Same tree, same bytes: pin the build date to the last git commit.

MkDocs (sitemap ``<lastmod>``, the gzip header of sitemap.xml.gz) and
mkdocs-rss-plugin (the feeds' ``lastBuildDate`` and ``pubDate``) stamp the
build with the current time unless ``SOURCE_DATE_EPOCH`` is set. The plugin
calls :func:`pin_build_date` first thing in its ``on_config`` (before every
other plugin's) to set it, when unset, to the commit time of HEAD, so two builds of one checkout are byte-identical (tested in
toolkit/tests/sites/test_reproducible.py) and a rebuild of an old commit gives the old site.
Outside a git checkout (a temp copy, an unpacked tarball) ``make build`` pins
nothing: its date is the time it ran. ``make serve`` there pins the time of its
first build, once for the session: unpinned, every rebuild would put a new date
into every page, so a save would change pages the author did not touch.
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
    """Set SOURCE_DATE_EPOCH to HEAD's commit time, unless it is set already; outside a
    checkout, while ``serving``, to the time of this first call (kept for the session)."""
    if not os.environ.get("SOURCE_DATE_EPOCH"):
        epoch = last_commit_epoch(root) or (str(int(time.time())) if serving else None)
        if epoch:
            os.environ["SOURCE_DATE_EPOCH"] = epoch
