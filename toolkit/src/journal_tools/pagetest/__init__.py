"""pytest plugin: every page under docs/ is a test file (``::render``, ``::line N`` per block chain, or
``::page`` with ``doctest: page``); every notebook page (``::render``, ``::notebook``); the BibTeX file
(``::bibliography``). ``--update-outputs`` rewrites outputs instead of failing. Code runs in the sandbox's
worker; passed pages go to the record (toolkit/DEVELOPING.md: from a page to its badge).
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

from journal_tools.core.settings import ConfigError
from journal_tools.pagetest import state
from journal_tools.pagetest.items import BibFile, NotebookFile, PageFile
from journal_tools.pagetest.reports import Tally, Verified


def pytest_addoption(parser):
    """``--update-outputs``."""
    group = parser.getgroup("pagetest", "journal page doc-tests")
    group.addoption(
        "--update-outputs",
        action="store_true",
        help="rewrite expected-output fences and checked LaTeX matrices with what the code prints",
    )


def pytest_configure(config):
    """Register the marker and the tally of blocks run."""
    config.addinivalue_line("markers", "pagetest: a code block (or page) of the journal, run by journal_tools.pagetest")
    config.stash[state.UPDATES] = []
    config.stash[state.REWRITTEN] = {}
    config.pluginmanager.register(Tally(config), "pagetest-tally")
    config.pluginmanager.register(Verified(config), "pagetest-verified")
    if config.getoption("update_outputs") and getattr(config.option, "numprocesses", None):
        raise pytest.UsageError("--update-outputs rewrites pages: run it without -n (pytest-xdist)")
    try:
        # mkdocs.yml read once, before anything is collected: a mistake there (a setting a check
        # needs, say) is the session's one error, not one per folder collected and xdist worker.
        state.settings(config)
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_collect_file(file_path: Path, parent):
    """Every Markdown page and every notebook page under the journal's docs_dir is a test file (and the citations' BibTeX file)."""
    if file_path.suffix not in (".md", ".py", ".ipynb", ".bib"):
        return None
    try:
        settings = state.settings(parent.config)
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    if settings is None or settings.docs_dir not in file_path.resolve().parents:
        return None
    if file_path.suffix == ".md":
        return PageFile.from_parent(parent, path=file_path)
    if file_path.suffix == ".bib":
        return BibFile.from_parent(parent, path=file_path) if settings.bibliography == file_path.resolve() else None
    if settings.is_notebook(file_path) and not _python_plugin_collects(file_path, parent):
        return NotebookFile.from_parent(parent, path=file_path)
    return None


def _python_plugin_collects(file_path: Path, parent) -> bool:
    """Would pytest's Python plugin import this ``.py`` (named on the command line or matching ``python_files``)?"""
    if file_path.suffix != ".py":
        return False
    return parent.session.isinitpath(file_path) or any(
        fnmatch.fnmatch(file_path.name, pattern) for pattern in parent.config.getini("python_files"))


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent):
    """A notebook page pytest's Python plugin would import is collected as a notebook instead."""
    settings = state.settings(parent.config)
    if settings is not None and settings.is_notebook(module_path):
        return NotebookFile.from_parent(parent, path=module_path)
    return None


