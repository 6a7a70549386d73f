"""What one pytest session of page tests shares (kept in ``config.stash``): the journal's
settings, the worker for page code, the record of passed checks, and the pages
``--update-outputs`` rewrites."""

from __future__ import annotations

import atexit
from pathlib import Path

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.core.code.sandbox import Sandbox
from journal_tools.core.record.inputs import Record
from journal_tools.core.settings import Settings

UPDATES = pytest.StashKey[list]()
# Pages --update-outputs rewrote: path -> (digest before the rewrite, digest after it).
REWRITTEN = pytest.StashKey[dict]()
_RECORD = pytest.StashKey[Record]()
_RENDER_RECORD = pytest.StashKey[Record]()


_SETTINGS = pytest.StashKey[Settings]()
_SHARED: list[Sandbox] = []


def sandbox() -> Sandbox:
    """The page-code worker: one per pytest process, shared by its sessions (pytester finds it warm), replaced when killed."""
    if not _SHARED:
        _SHARED.append(Sandbox())
        atexit.register(_SHARED[0].close)
        _SHARED[0].start_in_background()  # the first start imports PyTorch: while the pages are collected
    return _SHARED[0]


def record(config) -> Record:
    """The record of passed checks; in ``make test`` (no page, folder or ``-k`` named) a held page is not rerun; off under FRESH=1 and
    --update-outputs. Every session writes what passed."""
    if _RECORD not in config.stash:
        rec = Record(settings(config).root)
        default_run = config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.getoption("keyword")
        rec.reuse = rec.reuse and default_run and not config.getoption("update_outputs")
        config.stash[_RECORD] = rec
    return config.stash[_RECORD]


def render_record(config) -> Record:
    """The record for render checks: reused in every run but FRESH=1, named pages too (a render runs no code)."""
    if _RENDER_RECORD not in config.stash:
        config.stash[_RENDER_RECORD] = Record(settings(config).root)
    return config.stash[_RENDER_RECORD]


def settings(config) -> Settings | None:
    """The journal's settings (mkdocs.yml at pytest's rootdir), or None where there is none."""
    if _SETTINGS not in config.stash:
        config_file = Path(config.rootpath) / "mkdocs.yml"
        config.stash[_SETTINGS] = mkdocs_config.load(config_file) if config_file.is_file() else None
    return config.stash[_SETTINGS]


