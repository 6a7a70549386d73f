"""A content-addressed store with one slot per (step, page): the last result and the key it was made under.

A slot keeps one entry, so the store never grows past a few entries per page
whatever the edits (no pruning needed); a lookup returns the value only when
the key is the one asked for. ``make serve`` keeps every slot in memory as
well, so a rebuild reads no file; ``make build`` reads the slots of the last
build from ``.cache/pages/`` and writes the ones that changed.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from journal_tools.build import atomic

__all__ = ["MISSING", "Store"]

MISSING = object()
_FORMAT = 1  # bump when a stored value's shape changes


class Store:
    """``get(step, slot, key)`` / ``put(step, slot, key, value)``, in memory and in ``folder``."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self._memory: dict[tuple[str, str], tuple[bytes, object]] = {}
        self.hits = self.misses = 0
        self.missed: dict[str, int] = {}  # step -> misses since take_counts

    def _path(self, step: str, slot: str) -> Path:
        return self.folder / step / hashlib.blake2b(slot.encode(), digest_size=12).hexdigest()

    def get(self, step: str, slot: str, key: bytes):
        """The value stored for ``slot`` under ``key``, else MISSING."""
        entry = self._memory.get((step, slot))
        if entry is None and self.folder is not None:
            try:
                entry = pickle.loads(self._path(step, slot).read_bytes())
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError, TypeError):
                entry = None  # absent, or written by another version of the code: a miss
            if entry is not None:
                if not (isinstance(entry, tuple) and len(entry) == 3 and entry[0] == _FORMAT):
                    entry = None
                else:
                    entry = entry[1:]
                    self._memory[(step, slot)] = entry
        if entry is not None and entry[0] == key:
            self.hits += 1
            return entry[1]
        self.misses += 1
        self.missed[step] = self.missed.get(step, 0) + 1
        return MISSING

    def put(self, step: str, slot: str, key: bytes, value) -> None:
        """Keep ``value`` for ``slot`` under ``key`` (replacing what the slot held)."""
        self._memory[(step, slot)] = (key, value)
        if self.folder is None:
            return
        path = self._path(step, slot)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic.write_bytes(path, pickle.dumps((_FORMAT, key, value), protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            pass  # a read-only tree builds without the disk cache

    def take_counts(self) -> tuple[int, int]:
        """(hits, misses) since the last call."""
        counts, self.hits, self.misses, self.missed = (self.hits, self.misses), 0, 0, {}
        return counts
