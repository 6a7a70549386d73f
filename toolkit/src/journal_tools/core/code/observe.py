"""What page code was seen to read: every journal file it opened, folder it listed, module it imported.

The record keys reuse on what a check read, and page code's reads cannot be predicted, so the processes that
run it watch it with an audit hook (PEP 578: ``open``, ``io.open_code``, ``os.listdir``, ``os.scandir``,
``glob``). Left out: files it wrote, the environment (keyed apart), ``.cache``, ``.git``, ``.venv``. Not seen:
C code calling ``fopen``, a shell block's processes. A hook cannot be removed, so one per process, idle
when no observation is active.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from pathlib import Path

__all__ = ["Observation", "finish", "start"]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_IMPORT_FILES = ("<frozen importlib._bootstrap", "<frozen importlib._bootstrap_external>", "<frozen zipimport>")
_TOOLKIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # journal_tools/
_active: Observation | None = None
_hooked = False


class Observation:
    """The files and folders one request's code read, as absolute paths inside ``root``."""

    def __init__(self, root: str):
        self.root = os.path.join(os.path.abspath(root), "")
        self.read: dict[str, None] = {}  # in the order first read
        self.written: set[str] = set()
        self.listed: dict[str, None] = {}
        # (The fresh temporary folder a block runs in is outside the root, so it never counts.)
        ignored = [sys.prefix, sys.base_prefix, sys.exec_prefix, _TOOLKIT,
                   *(os.path.join(self.root, name) for name in (".cache", ".git", ".venv")),
                   *filter(None, sysconfig.get_paths().values())]
        ignored += site.getsitepackages() if hasattr(site, "getsitepackages") else []
        self.ignored = tuple(os.path.join(os.path.abspath(p), "") for p in ignored)

    def inside(self, path: str) -> bool:
        """Is ``path`` (absolute) a journal file whose reading counts?"""
        return (path.startswith(self.root) and not path.startswith(self.ignored)
                and f"{os.sep}__pycache__{os.sep}" not in path)

    def opened(self, path: str, writing: bool) -> None:
        """Note an open of ``path`` (absolute)."""
        if not self.inside(path):
            return
        if writing:
            self.written.add(path)
        elif path not in self.written:
            self.read.setdefault(path)

    def listing(self, path: str) -> None:
        """Note a listing of folder ``path`` (absolute)."""
        if self.inside(os.path.join(path, "")):
            self.listed.setdefault(path)

    def imported(self) -> None:
        """Add the file of every module imported from the journal (its bytecode may have been read instead)."""
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            # (torch.ops and torch.classes are module objects with a bare "_ops.py" as __file__.)
            if isinstance(path, str) and path.endswith(".py") and os.path.isabs(path):
                self.opened(path, writing=False)

    def digests(self) -> dict:
        """``{"files": {path: digest}, "folders": {...}}`` relative to the root, taken right after the run (a later edit is not vouched)."""
        from journal_tools.core.record.inputs import file_digest, listing_digest

        def rel(path: str) -> str:
            return os.path.relpath(path, self.root).replace(os.sep, "/")

        return {"files": {rel(p): file_digest(Path(p)) for p in sorted(self.read)},
                "folders": {rel(p): listing_digest(Path(p)) for p in sorted(self.listed)}}


def start(root: str | None) -> None:
    """Observe what the code run from now on reads inside ``root`` (None: observe nothing)."""
    global _active, _hooked
    if root is None:
        _active = None
        return
    if not _hooked:
        sys.addaudithook(_hook)
        _hooked = True
    _active = Observation(root)


def finish() -> dict | None:
    """Stop observing; what was read (:meth:`Observation.digests`), or None when nothing was observed."""
    global _active
    observation, _active = _active, None
    if observation is None:
        return None
    observation.imported()
    return observation.digests()


def _hook(event: str, args: tuple) -> None:
    observation = _active
    if observation is None:
        return
    if event == "open":
        path, mode, flags = args
        if isinstance(path, int) or path is None:  # an open file descriptor: its path was seen when opened
            return
        writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & _WRITE_FLAGS)
        observation.opened(os.path.abspath(os.fsdecode(path)), writing)
    elif event in ("os.listdir", "os.scandir"):
        path = args[0]
        if isinstance(path, int) or _by_import_system():
            return
        observation.listing(os.path.abspath(os.fsdecode(path if path is not None else ".")))
    elif event == "glob.glob":
        # glob lists through os.scandir (seen above) only where the folder exists; a pattern over a
        # folder that appears later counts as a listing of that folder now.
        folder = os.path.dirname(os.fsdecode(args[0])) or "."
        if not any(c in folder for c in "*?["):
            observation.listing(os.path.abspath(folder))


def _by_import_system() -> bool:
    """Was this listing made by the import system (finding a module), not by page code?"""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith(_IMPORT_FILES):
            return True
        frame = frame.f_back
    return False
