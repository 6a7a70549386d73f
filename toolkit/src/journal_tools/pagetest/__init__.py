"""pytest plugin: every Markdown page under docs/ is a test.

For each page it collects:
- ``page.md::render``: the page rendered with the site's own Markdown settings;
  every formula must convert to MathML, and the number of Python and shell
  code blocks a reader sees must equal the number of fences the tests run
  (nothing silently skipped);
- ``page.md::line N``: a code block (with its ``cont`` blocks), run on its own;
  a post's front matter and excerpt separator are checked first, so a bad date
  is one failure of this page;
- or ``page.md::page``: all blocks, top to bottom in one namespace, when the
  page's front matter says ``doctest: page``.

Every notebook page (mkdocs-jupyter's ``include`` patterns, e.g.
``docs/notebooks/x.py``) is a test file too: ``x.py::render`` (the Markdown
cells' math converts) and ``x.py::notebook`` (the code cells run, in order, in
one namespace; see ``notebook.py``).

The citations' BibTeX file, when it is under docs/, is one test:
``references.bib::bibliography`` (pybtex reads it and formats every entry). A
file it cannot read fails there, once, naming its line; the render checks of
the pages that cite then skip, naming that test.

``--update-outputs`` rewrites expected-output fences and checked LaTeX matrices
with what the code printed, instead of failing, and says page by page (in the
order the pages ran) how many outputs and matrix numbers it wrote.

Every block and notebook cell runs in a worker process under a time limit
(``journal_tools.core.code.sandbox``): a block that hangs, ends or crashes its process
fails alone, naming its line, and the session goes on in a new worker.

At the end of a session the pages whose tests all passed are recorded, with a
digest of what their code depends on, in ``.cache/verified.json``; the build
shows the "verified" badge from it (``journal_tools.core.record.verified``). Every
session counts, whichever command ran it (``make test``, ``make check``,
``make update-outputs``: a page it rewrote is recorded with its new digest,
since its outputs are now what the code printed).
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
    """Every Markdown page and every notebook page under the journal's docs_dir is a test file
    (and the citations' BibTeX file)."""
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
    """Would pytest's own Python plugin import this ``.py`` file as a test module?

    It does for a file named on the command line (``make check PAGE=docs/notebooks/x.py``)
    or matching ``python_files``: it then asks ``pytest_pycollect_makemodule``, which
    gives it the notebook collector instead (importing a notebook would run it).
    """
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


