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

import atexit
import fnmatch
from pathlib import Path

import pytest

from journal_tools.compat import blog, mkdocs_config
from journal_tools.core.code.notebook import Notebook, check_notebook_math, read_notebook
from journal_tools.core.code.outputs import apply_updates
from journal_tools.core.code.parse import Page, PageError, parse_page
from journal_tools.core.code.render_check import check_render
from journal_tools.core.code.render_record import RUNS_FOLDER, RenderChecks
from journal_tools.core.code.run import ChainResult
from journal_tools.core.code.sandbox import Sandbox
from journal_tools.core.markup import citations
from journal_tools.core.mistake import Mistake
from journal_tools.core.page.source import read_source
from journal_tools.core.record.validate import check_post
from journal_tools.core.record.verified import Entry, page_digest, today, torch_version, update_record
from journal_tools.core.settings import ConfigError, Settings

_UPDATES = pytest.StashKey[list]()
# Pages --update-outputs rewrote: path -> (digest before the rewrite, digest after it).
_REWRITTEN = pytest.StashKey[dict]()
_RENDER_CHECKS = pytest.StashKey[RenderChecks]()
_PAGE_RUNS = pytest.StashKey[RenderChecks]()


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
    config.stash[_UPDATES] = []
    config.stash[_REWRITTEN] = {}
    config.pluginmanager.register(_Tally(config), "pagetest-tally")
    config.pluginmanager.register(_Verified(config), "pagetest-verified")
    if config.getoption("update_outputs") and getattr(config.option, "numprocesses", None):
        raise pytest.UsageError("--update-outputs rewrites pages: run it without -n (pytest-xdist)")


_SETTINGS = pytest.StashKey[Settings]()
_SHARED: list[Sandbox] = []


def _sandbox() -> Sandbox:
    """The worker for page code: one per pytest process (each pytest-xdist worker has its
    own), shared by the sessions the process runs (a pytest run inside a test, pytester's,
    finds it warm), replaced when a block kills it, stopped when the process ends."""
    if not _SHARED:
        _SHARED.append(Sandbox())
        atexit.register(_SHARED[0].close)
        _SHARED[0].start_in_background()  # the first start imports PyTorch: while the pages are collected
    return _SHARED[0]


def _render_checks(config) -> RenderChecks:
    """The session's remembered render checks (one digest of the toolkit per session)."""
    if _RENDER_CHECKS not in config.stash:
        config.stash[_RENDER_CHECKS] = RenderChecks(_settings(config))
    return config.stash[_RENDER_CHECKS]


def _page_runs(config) -> RenderChecks:
    """The session's remembered page tests: in ``make test`` (pytest's default paths: no page,
    folder or ``-k`` named), a page whose inputs, PyTorch and toolkit are unchanged since all its
    tests passed is not run again. Off under FRESH=1, CI and --update-outputs; a named page
    (``make check PAGE=...``) or folder always runs."""
    if _PAGE_RUNS not in config.stash:
        runs = RenderChecks(_settings(config), folder=RUNS_FOLDER, versioned=("torch", "numpy"))
        default_run = config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.getoption("keyword")
        runs.enabled = runs.enabled and default_run and not config.getoption("update_outputs")
        config.stash[_PAGE_RUNS] = runs
    return config.stash[_PAGE_RUNS]


def _settings(config) -> Settings | None:
    """The journal's settings (mkdocs.yml at pytest's rootdir), or None where there is none."""
    if _SETTINGS not in config.stash:
        config_file = Path(config.rootpath) / "mkdocs.yml"
        config.stash[_SETTINGS] = mkdocs_config.load(config_file) if config_file.is_file() else None
    return config.stash[_SETTINGS]


def pytest_collect_file(file_path: Path, parent):
    """Every Markdown page and every notebook page under the journal's docs_dir is a test file
    (and the citations' BibTeX file)."""
    if file_path.suffix not in (".md", ".py", ".ipynb", ".bib"):
        return None
    try:
        settings = _settings(parent.config)
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
    settings = _settings(parent.config)
    if settings is not None and settings.is_notebook(module_path):
        return NotebookFile.from_parent(parent, path=module_path)
    return None


class PageFile(pytest.File):
    """One page: its render check, then its code blocks (or the page as one chain)."""

    def collect(self):
        """The page's items; a page that cannot be read is one failing item naming the line."""
        _sandbox()
        return _with_digest(self, self._items)

    def _items(self):
        settings = _settings(self.config)
        try:
            if settings.is_post(self.path):
                check_post(read_source(self.path, settings.rel(self.path)), settings.rel(self.path), settings, blog.post_errors)
            page = parse_page(self.path, settings)
        except Mistake as exc:  # front matter, text, includes, markers: the page cannot be read as tests
            yield BrokenPage.from_parent(self, name="page", mistake=exc)
            return
        yield RenderItem.from_parent(self, name="render", page=page)
        if page.mode == "page" and page.steps:
            yield ChainItem.from_parent(self, name="page", page=page, steps=page.steps)
        else:
            for step in page.steps:
                line = page.where(step.parts[0].fence.start).line
                yield ChainItem.from_parent(self, name=f"line {line}", page=page, steps=[step])


def _with_digest(file: pytest.File, make_items) -> list:
    """The file's items, each carrying the page's digest (taken before the page is read, so an
    edit while the tests run can only make the record stale, never vouch for untested text)
    and the number of items, for the verified record (``journal_tools.core.record.verified``)."""
    settings = _settings(file.config)
    try:
        digest = page_digest(file.path, settings)
    except (OSError, UnicodeError):
        digest = None
    runs = _page_runs(file.config)
    key = runs.key(settings.rel(file.path), digest) if digest is not None else None
    page = {"path": settings.rel(file.path), "digest": digest, "notebook": settings.is_notebook(file.path), "run_key": key}
    # A reused page is recorded as verified as a run of it would be (same counts, this run's
    # date), so the record after a reuse equals what a FRESH=1 run writes.
    proved = runs.result(key) if key is not None else None
    items = [ReusedPage.from_parent(file, name="reused")] if proved is not None else list(make_items())
    page |= {"items": len(items), "reused": proved}
    for item in items:
        item.user_properties.append(("pagetest_page", page))
    return items


class NotebookFile(pytest.File):
    """A notebook page: its Markdown cells' math, then its code cells in one namespace."""

    def collect(self):
        """``render`` and ``notebook``; a notebook jupytext cannot read is one failing item."""
        _sandbox()
        return _with_digest(self, self._items)

    def _items(self):
        try:
            nb = read_notebook(self.path, _settings(self.config))
        except PageError as exc:  # a bad execution: timeout:, with its line
            yield BrokenPage.from_parent(self, name="notebook", mistake=exc)
            return
        except Exception as exc:  # jupytext's own errors have no common base class
            mistake = PageError(_settings(self.config).rel(self.path), None, f"cannot read the notebook: {exc}")
            yield BrokenPage.from_parent(self, name="notebook", mistake=mistake)
            return
        yield NotebookRender.from_parent(self, name="render", notebook=nb)
        yield NotebookItem.from_parent(self, name="notebook", notebook=nb)


class BibFile(pytest.File):
    """The citations' BibTeX file: one test, that pybtex reads it and formats every entry."""

    def collect(self):
        """The ``bibliography`` item."""
        yield BibItem.from_parent(self, name="bibliography")


def _own_bib_test(settings: Settings) -> str | None:
    """The node id of the BibTeX file's own test, when the page tests collect one."""
    bib = settings.bibliography
    if bib is None or settings.docs_dir not in bib.parents:
        return None
    return f"{settings.rel(bib)}::bibliography"


def _broken_bibliography(exc: citations.BibError, settings: Settings):
    """A page's render check when the BibTeX file cannot be read: skip if the file's own test
    fails for it (one mistake, one failure), else fail with the file's error."""
    reporter = _own_bib_test(settings)
    if reporter is None:
        raise exc
    pytest.skip(f"the citations cannot be checked: {exc.rel} cannot be read; {reporter} reports why")


class _PageItem(pytest.Item):
    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, Mistake):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"{self.path.name}::{self.name}"


class BrokenPage(_PageItem):
    """A page that cannot be read as tests: fails with the page's own mistake."""

    def __init__(self, *, mistake: Mistake, **kwargs):
        super().__init__(**kwargs)
        self.mistake = mistake

    def runtest(self):
        """Fail with the page's own mistake."""
        raise self.mistake


class ReusedPage(_PageItem):
    """A page whose every test passed with these same inputs (``core/code/render_record.py``): not run again."""

    def runtest(self):
        """Nothing to run; counted in the session's "reused" line."""
        self.user_properties.append(("pagetest_reused", 1))


class RenderItem(_PageItem):
    """The page as rendered: its math converts and its code blocks are the ones run."""

    def __init__(self, *, page: Page, **kwargs):
        super().__init__(**kwargs)
        self.page = page

    def runtest(self):
        """Render the page and compare what a reader sees with what runs."""
        self.user_properties.append(("pagetest_fences", sum(len(s.parts) for s in self.page.steps)))
        checks = _render_checks(self.config)
        key = checks.key(self.page.path, self.page.expanded.text)
        if checks.passed(key):  # the same inputs passed before (core/code/render_record.py's docstring)
            return
        try:
            check_render(self.page, _settings(self.config))
        except citations.BibError as exc:
            _broken_bibliography(exc, _settings(self.config))
        checks.record(key)


class BibItem(_PageItem):
    """The BibTeX file reads and every entry formats (a failure names the file and line)."""

    def runtest(self):
        """Load the file as the build does."""
        try:
            citations.load(self.path)
        except citations.BibError:
            raise


class ChainItem(_PageItem):
    """One block (with its cont blocks), or the whole page in ``doctest: page`` mode."""

    def __init__(self, *, page: Page, steps, **kwargs):
        super().__init__(**kwargs)
        self.page = page
        self.steps = steps
        self.add_marker(pytest.mark.pagetest)

    def runtest(self):
        """Run the steps; count what ran; report skips and xfails as pytest outcomes."""
        updating = self.config.getoption("update_outputs")
        updates = [] if updating else None
        result = ChainResult()
        try:
            _sandbox().run_chain(self.page, self.steps, result, updates, snippet_dirs=_settings(self.config).snippet_dirs)
        finally:
            # Counted even when a block fails: the blocks before it did run.
            self.user_properties.append(("pagetest_run", result.executed_fences))
            self.user_properties.append(("pagetest_numbers", result.numbers_checked))
            skipped = [f"{r.step.origin.describe()}: {r.reason}" for r in result.skipped]
            self.user_properties.append(("pagetest_skipped", skipped))
        if updates:
            self.config.stash[_UPDATES].extend(updates)
        if result.results and len(result.skipped) == len(result.results):
            pytest.skip("; ".join(skipped))
        if result.results and len(result.xfailed) == len(result.results):
            pytest.xfail("; ".join(r.reason for r in result.xfailed))


class NotebookRender(_PageItem):
    """The notebook's Markdown cells, rendered as the build renders them: every formula converts."""

    def __init__(self, *, notebook: Notebook, **kwargs):
        super().__init__(**kwargs)
        self.notebook = notebook

    def runtest(self):
        """Convert every Markdown cell with the site's Markdown."""
        self.user_properties.append(("pagetest_fences", len(self.notebook.code_cells)))
        try:
            check_notebook_math(self.notebook, _settings(self.config))
        except citations.BibError as exc:
            _broken_bibliography(exc, _settings(self.config))


class NotebookItem(_PageItem):
    """The notebook's code cells, top to bottom in one namespace, in the notebook's folder."""

    def __init__(self, *, notebook: Notebook, **kwargs):
        super().__init__(**kwargs)
        self.notebook = notebook
        self.add_marker(pytest.mark.pagetest)

    def runtest(self):
        """Run every code cell; count the cells that ran."""
        ran: list = []
        try:
            _sandbox().run_notebook(self.notebook, self.path.parent, ran, snippet_dirs=_settings(self.config).snippet_dirs)
        finally:
            self.user_properties.append(("pagetest_run", len(ran)))
            self.user_properties.append(("pagetest_skipped", []))


class _Tally:
    """Counts page blocks where the reports arrive (the controller under
    pytest-xdist), so the totals add up across workers. One per config, so a
    pytest run inside a test (pytester) keeps its own counts."""

    def __init__(self, config):
        self.config = config
        self.run = self.skipped = self.fences = self.pages = self.reused = 0
        self.skips: list[str] = []
        self.written: list = []  # outputs.PageRewrite, one per page rewritten

    def pytest_runtest_logreport(self, report):
        if report.when != "call":
            return
        for key, value in report.user_properties:
            if key == "pagetest_run":
                self.run += value
            elif key == "pagetest_reused":
                self.reused += value
            elif key == "pagetest_skipped":
                self.skipped += len(value)
                self.skips.extend(value)
            elif key == "pagetest_fences":
                self.fences += value
                self.pages += 1

    def pytest_sessionfinish(self, session):
        updates = self.config.stash[_UPDATES]
        if not updates:
            return
        settings = _settings(self.config)
        pages = {u.page for u in updates if u.can_rewrite}
        before = {rel: page_digest(settings.root / rel, settings) for rel in pages}
        self.written = apply_updates(Path(self.config.rootpath), updates)
        self.config.stash[_REWRITTEN] = {rel: (before[rel], page_digest(settings.root / rel, settings)) for rel in pages}

    def pytest_terminal_summary(self, terminalreporter):
        if not self.pages and not self.run and not self.reused:
            return
        tr = terminalreporter
        tr.section("page doc-tests")
        if self.pages or self.run:
            tr.write_line(
                f"executed {self.run} of {self.fences} code blocks on {self.pages} pages"
                + (f"; {self.skipped} skipped with a written reason" if self.skipped else "")
            )
        if self.reused:
            tr.write_line(f"reused: the tests of {self.reused} unchanged page{'s' if self.reused > 1 else ''} (the page, its "
                          "snippets, the pins, PyTorch and the toolkit are the same as when they passed); FRESH=1 re-runs them")
        for skip in self.skips:
            tr.write_line(f"  skipped {skip}")
        for page in self.written:
            tr.write_line(f"  rewrote {page.summary()}")


class _Verified:
    """Collects, where the reports arrive, which pages passed all their tests, and
    writes the verified record (``journal_tools.core.record.verified``) at the end of the session.

    A page counts as verified when every one of its items reported and none failed
    (a run of some of its items, ``-k`` or ``::page``, leaves its entry as it was);
    a page with a failed item loses its entry. Only the controller writes (under
    pytest-xdist the workers' reports come to it). A page --update-outputs rewrote
    is recorded under its digest after the rewrite (its outputs now are what the
    code printed), if nothing else changed it since it was collected.
    """

    def __init__(self, config):
        self.config = config
        self.pages: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report):
        props = dict(report.user_properties)
        page = props.get("pagetest_page")
        if page is None:
            return
        seen = self.pages.setdefault(page["path"], {"page": page, "items": set(), "failed": False,
                                                    "blocks": 0, "numbers": 0})
        if report.failed:
            seen["failed"] = True
        if report.when == "call" or (report.when == "setup" and not report.passed):
            proved = page["reused"] or {}
            seen["items"].add(report.nodeid)
            seen["blocks"] += props.get("pagetest_run", 0) + proved.get("blocks", 0)
            seen["numbers"] += props.get("pagetest_numbers", 0) + proved.get("numbers", 0)

    @pytest.hookimpl(trylast=True)  # after _Tally's, which rewrites pages under --update-outputs
    def pytest_sessionfinish(self, session):
        if hasattr(self.config, "workerinput") or not self.pages:
            return
        settings = _settings(self.config)
        if settings is None:
            return
        passed, failed = {}, set()
        torch, date = torch_version(), today()
        rewritten = self.config.stash[_REWRITTEN]
        for rel, seen in self.pages.items():
            page = seen["page"]
            digest = page["digest"]
            if rel in rewritten:
                before, after = rewritten[rel]
                digest = after if before == digest else None  # edited during the run: vouch for nothing
            if seen["failed"] or digest is None:
                failed.add(rel)
            elif len(seen["items"]) == page["items"]:
                passed[rel] = Entry(digest, seen["blocks"], seen["numbers"], torch, date, page["notebook"])
                if page["run_key"] and digest == page["digest"] and page["reused"] is None:
                    _page_runs(self.config).record(page["run_key"], {"blocks": seen["blocks"], "numbers": seen["numbers"]})
        update_record(settings, passed, failed)
