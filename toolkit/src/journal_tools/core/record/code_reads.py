"""The journal files an entry's code reads, for its downloads to carry: what its chains' records say (``core.judge.code_read``:
the judge runs a chain with none, in ``make build``). Not carried: what the download holds already, what the tests read
themselves, files missing.
"""

from __future__ import annotations

from pathlib import Path

from journal_tools.core.record.inputs import MISSING, Record
from journal_tools.core.record.verified import read_by_tests
from journal_tools.core.settings import Settings

__all__ = ["files_read"]


def files_read(record: Record, path: Path, settings: Settings, sandbox=None) -> list[Path]:
    """Data files page ``path``'s code reads; ``sandbox``: where the judge runs a chain no record answers for (None: its newest record)."""
    from journal_tools.core.judge import code_read

    read = code_read(sandbox, record, path, settings)
    if read is None:
        return []
    own = set(read_by_tests(path, settings))
    modules = {settings.rel(p) for d in settings.snippet_dirs for p in d.rglob("*.py")}
    return [Path(label) for label, digest in sorted(read.files.items())
            if digest != MISSING and label not in own and label not in modules]
