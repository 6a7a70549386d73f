"""The collected tests of the journal's pages: a Markdown page (its render check, then its code
blocks or the page as one chain), a notebook page, the BibTeX file, and the page that cannot be
read or whose passed tests are reused."""

from __future__ import annotations

import pytest

from journal_tools.compat import blog
from journal_tools.core import judge
from journal_tools.core.code import figures
from journal_tools.core.code.notebook import Notebook, check_notebook_math, number_mismatches, read_notebook
from journal_tools.core.code.outputs import OutputMismatch
from journal_tools.core.code.parse import Page, PageError, parse_page
from journal_tools.core.code.render_check import check_render
from journal_tools.core.markup import citations
from journal_tools.core.mistake import Mistake, SeveralMistakes
from journal_tools.core.page import series
from journal_tools.core.page.source import read_source
from journal_tools.core.record.inputs import Inputs, environment
from journal_tools.core.record.validate import check_address, check_post
from journal_tools.core.record.verified import PAGE, read_by_tests
from journal_tools.core.settings import Settings
from journal_tools.pagetest import state

RENDER = "render"  # the record's kind for a page's render check alone (its test's name is judge.RENDER)


class PageFile(pytest.File):
    """One page: its render check, then its code blocks (or the page as one chain)."""

    def collect(self):
        """The page's items; a page that cannot be read is one failing item naming the line."""
        state.sandbox()
        settings = state.settings(self.config)
        try:  # before the record: another post may take this one's address while its record holds
            if settings.is_post(self.path):
                check_address(self.path, settings)
        except Mistake as exc:
            return [BrokenPage.from_parent(self, name="page", mistake=exc)]
        return _with_record(self, self._items)

    def _items(self):
        settings = state.settings(self.config)
        try:
            if settings.is_post(self.path):
                check_post(read_source(self.path, settings.rel(self.path)), settings.rel(self.path), settings, blog.post_errors)
            series.check_page(self.path, settings)
            page = parse_page(self.path, settings)
        except Mistake as exc:  # front matter, text, includes, markers: the page cannot be read as tests
            yield BrokenPage.from_parent(self, name=judge.PAGE, mistake=exc)
            return
        refs = figures.find_figures(self.path.read_text(encoding="utf-8"), page.path)  # as the build finds them
        for test in judge.page_tests(page, bool(refs)):  # the judge's list: the build and make serve name the same tests
            if test.name == judge.RENDER:
                yield RenderItem.from_parent(self, name=test.name, page=page)
            elif test.name == judge.FIGURES:
                yield FigureItem.from_parent(self, name=test.name, refs=refs)
            else:
                yield ChainItem.from_parent(self, name=test.name, page=page, test=test)


def _with_record(file: pytest.File, make_items) -> list:
    """The file's items, each carrying what the tests read of the page (taken before parsing, so an edit mid-run can only make the record
    stale) and the item count; one ``reused`` item when a passed record holds."""
    settings = state.settings(file.config)
    rel = settings.rel(file.path)
    try:
        read = Inputs.observe(read_by_tests(file.path, settings), root=settings.root)
    except (OSError, UnicodeError):
        read = None
    proved = state.record(file.config).find(PAGE, rel, environment()) if read is not None else None
    page = {"path": rel, "read": read.to_json() if read is not None else None, "notebook": settings.is_notebook(file.path)}
    items = [ReusedPage.from_parent(file, name=judge.REUSED)] if proved is not None else list(make_items())
    page |= {"items": len(items), "reused": proved}
    for item in items:
        item.user_properties.append(("pagetest_page", page))
    return items


class NotebookFile(pytest.File):
    """A notebook page: its Markdown cells' math, then its code cells in one namespace."""

    def collect(self):
        """``render`` and ``notebook``; a notebook jupytext cannot read is one failing item."""
        state.sandbox()
        return _with_record(self, self._items)

    def _items(self):
        try:
            series.check_page(self.path, state.settings(self.config))
            nb = read_notebook(self.path, state.settings(self.config))
        except (PageError, series.SeriesError) as exc:  # a bad execution: timeout:, or series part, with its line
            yield BrokenPage.from_parent(self, name=judge.NOTEBOOK, mistake=exc)
            return
        except Exception as exc:  # jupytext's own errors have no common base class
            mistake = PageError(state.settings(self.config).rel(self.path), None, f"cannot read the notebook: {exc}")
            yield BrokenPage.from_parent(self, name=judge.NOTEBOOK, mistake=mistake)
            return
        yield NotebookRender.from_parent(self, name=judge.RENDER, notebook=nb)
        yield NotebookItem.from_parent(self, name=judge.NOTEBOOK, notebook=nb)


class BibFile(pytest.File):
    """The citations' BibTeX file: one test, that pybtex reads it and formats every entry."""

    def collect(self):
        """The ``bibliography`` item."""
        yield BibItem.from_parent(self, name=judge.BIBLIOGRAPHY)


def _own_bib_test(settings: Settings) -> str | None:
    """The node id of the BibTeX file's own test, when the page tests collect one."""
    bib = settings.bibliography
    if bib is None or settings.docs_dir not in bib.parents:
        return None
    return judge.node_id(settings.rel(bib), judge.BIBLIOGRAPHY)


def _broken_bibliography(exc: citations.BibError, settings: Settings):
    """Render check with an unreadable BibTeX file: skip if the file's own test fails for it (one mistake, one failure), else fail."""
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
    """A page whose every test passed with what they read as it is now (``core.record.inputs``): not run again."""

    def runtest(self):
        """Nothing to run; counted in the session's "reused" line."""
        self.user_properties.append(("pagetest_reused", 1))


class RenderItem(_PageItem):
    """The page as rendered: its math converts and its code blocks are the ones run."""

    def __init__(self, *, page: Page, **kwargs):
        super().__init__(**kwargs)
        self.page = page

    def runtest(self):
        """Render the page and compare what a reader sees with what runs, unless a passed render of the same inputs holds (in ``make check``
        too: a render runs no code, its reads are known)."""
        self.user_properties.append(("pagetest_fences", sum(len(s.parts) for s in self.page.steps)))
        settings, record = state.settings(self.config), state.render_record(self.config)
        rel = settings.rel(self.path)
        if record.find(RENDER, rel, environment()) is not None:
            return
        read = Inputs.observe(read_by_tests(self.path, settings), root=settings.root)  # before: an edit now is no pass
        try:
            check_render(self.page, settings)
        except citations.BibError as exc:
            _broken_bibliography(exc, settings)
        record.passed(RENDER, rel, environment(), read)


class FigureItem(_PageItem):
    """The page's figures (``<!-- journal:figure ... -->``), drawn in the page tests' worker as the build and make serve draw them."""

    def __init__(self, *, refs: list, **kwargs):
        super().__init__(**kwargs)
        self.refs = refs

    def runtest(self):
        """Draw each figure (or take it from the record while what it read holds); one failure naming every figure line that failed."""
        settings = state.settings(self.config)
        svgs = figures.prepare(self.refs, list(settings.snippet_dirs), state.record(self.config),
                               lambda targets, dirs, root, limit: figures.draw_in(state.sandbox(), targets, dirs, settings.root,
                                                                                  settings.block_timeout))
        found = figures.mistakes(self.refs, svgs, settings.root)
        if found:
            raise SeveralMistakes(found)


class BibItem(_PageItem):
    """The BibTeX file reads and every entry formats (a failure names the file and line)."""

    def runtest(self):
        """Load the file as the build does."""
        citations.load(self.path)


def _time_limit(seconds: float):
    """pytest-timeout's limit of a test of page code: the worker stops each block at its own limit (``seconds`` in all), and
    the seed check may run a chain twice; this only catches a hang of the toolkit around them."""
    return pytest.mark.timeout(2 * seconds + 60)


class ChainItem(_PageItem):
    """One block (with its cont blocks), or the whole page in ``doctest: page`` mode."""

    def __init__(self, *, page: Page, test: judge.PageTest, **kwargs):
        super().__init__(**kwargs)
        self.page = page
        self.test = test
        self.add_marker(pytest.mark.pagetest)
        self.add_marker(_time_limit(page.limit.seconds * sum(len(step.parts) for step in test.steps)))

    def runtest(self):
        """Run the steps (``core.judge``: every mistake of the chain); count what ran; report skips and xfails as pytest outcomes."""
        updating = self.config.getoption("update_outputs")
        settings = state.settings(self.config)
        # make update-outputs runs every chain (it writes what the code prints): its record reuses nothing
        verdict = judge.judge_chain(state.sandbox(), state.record(self.config), self.page, self.test, settings)
        if verdict.reused is not None:  # the same code passed, and what it read is unchanged: nothing runs
            self.user_properties += [("pagetest_chain_reused", verdict.reused["fences"]), ("pagetest_run", 0),
                                     ("pagetest_numbers", verdict.reused["numbers"]), ("pagetest_observed", verdict.reused["read"]),
                                     ("pagetest_skipped", [])]
            return
        result = verdict.result
        self.user_properties.append(("pagetest_observed", result.observed))
        # Counted even when a block fails: the blocks before it did run, and so did it.
        self.user_properties.append(("pagetest_run", result.executed_fences))
        self.user_properties.append(("pagetest_numbers", result.numbers_checked))
        skipped = [f"{r.step.origin.describe()}: {r.reason}" for r in result.skipped]
        self.user_properties.append(("pagetest_skipped", skipped))
        if updating:  # a differing output is written back, not a failure
            self.config.stash[state.UPDATES].extend(verdict.rewrites)
        failures = [m for m, _ in verdict.failures if not (updating and isinstance(m, OutputMismatch))]
        if failures:
            raise SeveralMistakes(failures)
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
            check_notebook_math(self.notebook, state.settings(self.config))
        except citations.BibError as exc:
            _broken_bibliography(exc, state.settings(self.config))


class NotebookItem(_PageItem):
    """The notebook's code cells, top to bottom in one namespace, in a fresh folder."""

    def __init__(self, *, notebook: Notebook, **kwargs):
        super().__init__(**kwargs)
        self.notebook = notebook
        self.add_marker(pytest.mark.pagetest)
        self.add_marker(_time_limit(notebook.limit.seconds * len(notebook.code_cells)))

    def runtest(self):
        """Run every code cell; count the cells that ran."""
        ran: list = []
        observed: dict = {}
        failed = 1  # the cell that failed ran too
        try:
            settings = state.settings(self.config)
            shown = state.sandbox().run_notebook(self.notebook, ran, snippet_dirs=settings.snippet_dirs,
                                                 root=settings.root, observed=observed)
            failed = 0
        finally:
            self.user_properties.append(("pagetest_observed", observed))
            self.user_properties.append(("pagetest_run", len(ran) + failed))
            self.user_properties.append(("pagetest_skipped", []))
        self.user_properties.append(("pagetest_numbers", len(shown)))
        found = number_mismatches(self.notebook, shown)
        if self.config.getoption("update_outputs"):  # written back, as a page's
            self.config.stash[state.UPDATES].extend(m for m in found if m.can_rewrite)
            found = [m for m in found if not m.can_rewrite]
        if found:
            raise SeveralMistakes(found)


