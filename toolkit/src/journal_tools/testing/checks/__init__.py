"""Every check of a journal's built site, collected by the toolkit's pytest plugin from the
journal's ``mkdocs.yml`` (list it in ``testpaths``): a journal's own ``tests/`` hold only its
snippet tests. Each module here is a module of test functions, run against the session's
one build of the journal (``journal_tools.testing.fixtures``); node ids read
``mkdocs.yml::<module>::<test>``."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

# Collected in this order; a browser/ module's tests are marked `browser` (testing/plugin.py).
MODULES = ("build", "links", "feeds", "downloads", "workflow", "readme",
           "browser.pages", "browser.home", "browser.axe", "browser.phones")
# The asserts of the checks read like a test's (pytest rewrites them) although they are imported here.
pytest.register_assert_rewrite(__name__)


class CheckModule(pytest.Module):
    """One module of checks, imported as a module of journal_tools (not from its path as a test file)."""

    dotted: str

    def _getobj(self):
        return importlib.import_module(self.dotted)


class SiteChecks(pytest.File):
    """A journal's mkdocs.yml, as the collector of every check of the site it describes."""

    def collect(self):
        for name in MODULES:
            dotted = f"{__name__}.{name}"
            path = Path(importlib.util.find_spec(dotted).origin)
            module = CheckModule.from_parent(self, path=path, name=name, nodeid=f"{self.nodeid}::{name}")
            module.dotted = dotted
            yield module
