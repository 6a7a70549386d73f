"""Same tree, same bytes: pin the build date to the last git commit.

MkDocs (sitemap ``<lastmod>``, the gzip header of sitemap.xml.gz) and
mkdocs-rss-plugin (the feeds' ``lastBuildDate`` and ``pubDate``) stamp the
build with the current time unless ``SOURCE_DATE_EPOCH`` is set. ``on_startup``
runs before any plugin's ``on_config`` and sets it, when unset, to the commit
time of HEAD, so two builds of one checkout are byte-identical (tested in
tests/test_reproducible.py) and a rebuild of an old commit gives the old site.
Outside a git checkout (a temp copy, an unpacked tarball) nothing is pinned.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def last_commit_epoch(root: Path = ROOT) -> str | None:
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%ct"],
            cwd=root, capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out.isdigit() else None


def on_startup(*, command, dirty):
    if not os.environ.get("SOURCE_DATE_EPOCH"):
        epoch = last_commit_epoch()
        if epoch:
            os.environ["SOURCE_DATE_EPOCH"] = epoch
