"""The one record of passed checks (``.cache/record.sqlite``), each under what it was seen to read.

Every reuse asks it: page tests, badges, built-page checks, serve. A record holds while its key
(:func:`environment`: packages, Python, the toolkit's code) and every input file's bytes and folder's names
are as they were; the newest :data:`KEPT` are kept, so a revert holds again; a failure drops those that
hold. Labels are paths under the journal or ``site:<path>``. DECISIONS.md says why SQLite.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from journal_tools.core.settings import env_flag

__all__ = ["KEPT", "NAME", "Inputs", "Record", "environment", "fresh"]

NAME = "record.sqlite"  # under the journal's .cache/
KEPT = 8  # records kept per check and subject: reverts to any of the last 8 passing states hold
_SCHEMA = 2  # 2: site checks keep 2 rows, the file gives back what is dropped
_PACKAGE = Path(__file__).resolve().parents[2]  # journal_tools/
MISSING = "missing"


def fresh() -> bool:
    """Reuse nothing (``FRESH=1``): every check runs. CI sets it where it publishes; a pull request's run reuses the record it restored."""
    return env_flag("FRESH")


@functools.cache
def environment() -> str:
    """Key of what is not a journal file: Python, installed distributions, the toolkit's code (an editable install keeps its version)."""
    h = hashlib.sha256(sys.version.encode())
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"])
    h.update("\n".join(dists).encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        h.update(b"\0" + path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes, or ``missing``."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return MISSING


def listing_digest(folder: Path) -> str:
    """sha256 of the names in a folder (a file added or removed changes it), or ``missing``."""
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return MISSING
    return hashlib.sha256("\0".join(names).encode()).hexdigest()


@dataclass(frozen=True)
class Inputs:
    """What one check read: file label -> digest of its bytes, folder label -> digest of its names."""

    files: Mapping[str, str] = field(default_factory=dict)
    folders: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def observe(cls, files: Iterable[str] = (), folders: Iterable[str] = (), roots: Mapping[str, Path] | None = None,
                root: Path | None = None) -> Inputs:
        """The inputs of a check that read ``files`` and listed ``folders`` (labels), as they are now."""
        where = _Resolver(root, roots)
        return cls({label: file_digest(where(label)) for label in files},
                   {label: listing_digest(where(label)) for label in folders})

    def __or__(self, other: Inputs) -> Inputs:
        return Inputs({**self.files, **other.files}, {**self.folders, **other.folders})

    def changed(self, root: Path | None = None, roots: Mapping[str, Path] | None = None, *, first: bool = True) -> list[str]:
        """The labels whose file or folder is not as recorded now (at most one with ``first``)."""
        where, out = _Resolver(root, roots), []
        for kind, recorded, digest in (("file", self.files, file_digest), ("folder", self.folders, listing_digest)):
            for label, was in recorded.items():
                if digest(where(label)) != was:
                    out.append(label if kind == "file" else f"{label}/")
                    if first:
                        return out
        return out

    def holds(self, root: Path | None = None, roots: Mapping[str, Path] | None = None) -> bool:
        """Is every input as recorded?"""
        return not self.changed(root, roots)

    def to_json(self) -> str:
        """One canonical text (equal inputs, equal text)."""
        return json.dumps({"files": dict(sorted(self.files.items())), "folders": dict(sorted(self.folders.items()))},
                          separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Inputs:
        """The inverse of :meth:`to_json`."""
        raw = json.loads(text)
        return cls(dict(raw["files"]), dict(raw["folders"]))


class _Resolver:
    """A label's path: ``site:x`` under ``roots["site"]``, any other under ``root``."""

    def __init__(self, root: Path | None, roots: Mapping[str, Path] | None):
        self.root, self.roots = root, dict(roots or {})

    def __call__(self, label: str) -> Path:
        prefix, sep, rest = label.partition(":")
        if sep and prefix in self.roots:
            return self.roots[prefix] / rest
        if self.root is None:
            raise ValueError(f"no folder for the input {label!r}")
        return self.root / label


class Record:
    """``root/.cache/record.sqlite``; ``reuse`` off under ``FRESH=1``. A file that cannot be read or written only costs a run."""

    def __init__(self, root: Path, *, reuse: bool | None = None):
        self.root = Path(root)
        self.path = self.root / ".cache" / NAME
        self.reuse = not fresh() if reuse is None else reuse
        # One connection per process and thread: sqlite refuses one made in another thread, and make serve reads the record in
        # MkDocs' thread and writes it from its own (figures redrawn, pages judged); a forked child opens its own.
        self._dbs: dict[tuple[int, int], sqlite3.Connection] = {}

    # -- asking -----------------------------------------------------------------------------------

    def find(self, kind: str, subject: str, key: str, roots: Mapping[str, Path] | None = None) -> dict | None:
        """The result of a passed check whose inputs hold now, or None (nothing holds, or reuse is off)."""
        return self.holding(kind, subject, key, roots) if self.reuse else None

    def holding(self, kind: str, subject: str, key: str, roots: Mapping[str, Path] | None = None) -> dict | None:
        """Like :meth:`find`, whatever ``reuse`` says (the badge of what the last runs proved)."""
        held = self.held(kind, subject, key, roots)
        return held[1] if held is not None else None

    def held(self, kind: str, subject: str, key: str, roots: Mapping[str, Path] | None = None) -> tuple[Inputs, dict] | None:
        """(inputs, result) of the newest record of the check that holds now, whatever ``reuse`` says."""
        for inputs, result in self._rows(kind, subject, key):
            if inputs.holds(self.root, roots):
                return inputs, result
        return None

    def latest(self, kind: str, subject: str, key: str | None) -> tuple[Inputs, dict] | None:
        """The newest record of a check (held now or not; ``key`` None: under any key), for saying what changed since."""
        rows = self._rows(kind, subject, key)
        return rows[0] if rows else None

    # -- telling ----------------------------------------------------------------------------------

    def passed(self, kind: str, subject: str, key: str, inputs: Inputs, result: Mapping | None = None,
               keep: int = KEPT) -> None:
        """Write down a passed check (the newest ``keep`` of its kind and subject are kept)."""
        with self._writing() as db:
            if db is None:
                return
            db.execute("INSERT OR REPLACE INTO passed VALUES (?, ?, ?, ?, ?, ?)",
                       (kind, subject, key, inputs.to_json(), json.dumps(dict(result or {})), time.time()))
            db.execute("DELETE FROM passed WHERE kind = ? AND subject = ? AND rowid NOT IN (SELECT rowid FROM passed "
                       "WHERE kind = ? AND subject = ? ORDER BY at DESC LIMIT ?)", (kind, subject, kind, subject, keep))

    def failed(self, kind: str, subject: str, key: str, roots: Mapping[str, Path] | None = None) -> None:
        """A check failed with its inputs as they are now: drop each of its records that holds now."""
        holding = [inputs.to_json() for inputs, _ in self._rows(kind, subject, key) if inputs.holds(self.root, roots)]
        if not holding:
            return
        with self._writing() as db:
            if db is not None:
                db.executemany("DELETE FROM passed WHERE kind = ? AND subject = ? AND key = ? AND inputs = ?",
                               [(kind, subject, key, text) for text in holding])

    def copy_to(self, other: Record, kinds: Iterable[str]) -> None:
        """Add this record's rows of ``kinds`` to ``other`` (a copy of the journal: what holds here holds there), keeping rows it has."""
        db = self._connect(create=False)
        if db is None:
            return
        marks = ",".join("?" * len(kinds := tuple(kinds)))
        try:
            rows = db.execute(f"SELECT * FROM passed WHERE kind IN ({marks})", kinds).fetchall()
        except sqlite3.Error:
            return
        other.merge(rows)

    def merge(self, rows: list[tuple]) -> None:
        """Add rows read from another record (:meth:`copy_to`); rows this one has are kept."""
        with self._writing() as db:
            if db is not None and rows:
                db.executemany("INSERT OR IGNORE INTO passed VALUES (?, ?, ?, ?, ?, ?)", rows)

    # -- the file ---------------------------------------------------------------------------------

    def _rows(self, kind: str, subject: str, key: str | None) -> list[tuple[Inputs, dict]]:
        db = self._connect(create=False)
        if db is None:
            return []
        try:
            rows = db.execute("SELECT inputs, result FROM passed WHERE kind = ? AND subject = ? AND (? IS NULL OR key = ?) "
                              "ORDER BY at DESC", (kind, subject, key, key)).fetchall()
            return [(Inputs.from_json(i), json.loads(r)) for i, r in rows]
        except (sqlite3.Error, ValueError, KeyError):
            return []

    @contextlib.contextmanager
    def _writing(self):
        db = self._connect(create=True)
        try:
            if db is not None:
                with db:  # one transaction
                    yield db
            else:
                yield None
        except sqlite3.Error:
            pass  # not kept: the next run checks again

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        owner = (os.getpid(), threading.get_ident())
        if owner in self._dbs:
            return self._dbs[owner]
        if not create and not self.path.is_file():
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # The default rollback journal, not WAL: nothing but the one file is left beside it, and
            # the few writes of a session (one a check) wait their turn under the busy timeout.
            db = sqlite3.connect(self.path, timeout=60)
            # No sync to disk at each commit (a thousand pages' render checks are a thousand commits):
            # a crash of the machine may lose or break the file, which then only costs a run (below).
            db.execute("PRAGMA synchronous=OFF")
            db.execute("PRAGMA auto_vacuum=FULL")  # rows dropped give their space back (a new file; below, an old one)
            db.execute("CREATE TABLE IF NOT EXISTS passed (kind TEXT, subject TEXT, key TEXT, inputs TEXT, "
                       "result TEXT, at REAL, PRIMARY KEY (kind, subject, key, inputs))")
            if db.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA:
                db.execute("DELETE FROM passed")  # another layout's rows: not trusted
                db.commit()
                db.execute("VACUUM")  # (auto_vacuum takes effect on an existing file only after one)
                db.execute(f"PRAGMA user_version = {_SCHEMA}")
        except (OSError, sqlite3.Error):
            return None
        self._dbs[owner] = db
        return db
