"""Write a file so that a reader (a parallel build, a test worker) never sees half of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes(dest: Path, data: bytes) -> None:
    """Write to a temporary file beside ``dest``, then rename it over ``dest``."""
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
