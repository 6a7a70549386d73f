"""The toolkit's test result is reused only while its inputs are unchanged
(tests/toolkit_reuse.py, the split in tests/suite_parts.py).

The digest is checked on a temporary copy of the real inputs; the plugin end
to end on a small project run by pytest in this process (pytester; a new
session and plugin instance each run, without the second or so a new Python
with this environment's plugins costs): a journal test, a toolkit test reading
a journal_tools/ module, and the real plugin.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import suite_parts
import toolkit_reuse

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[3]
TESTS = ROOT / "tests"


def test_each_listed_journal_path_exists_and_the_split_reads_test_ids():
    for entry in suite_parts.JOURNAL:
        assert (ROOT / entry).exists(), f"tests/suite_parts.py JOURNAL lists {entry}, which is not there"
    journal = ["docs/blog/posts/x.md::line 3", "tests/journal/test_snippets/test_figures.py::test_a",
               "tests/journal/test_site_build.py::test_docs_build", "tests/journal/browser/test_site.py::test_every_page_in_the_browser"]
    toolkit = ["tests/toolkit/test_wheel.py::test_x", "tests/toolkit/browser/test_serve.py::test_x",
               "tests/toolkit/unit/test_shard.py::test_x", "tests/journal_site.py", "tests/journalx/test_x.py::test_x",
               "journal_tools/x.py"]
    assert all(map(suite_parts.is_journal, journal)) and not any(map(suite_parts.is_journal, toolkit))


def _copy_inputs(dst: Path) -> Path:
    for name in ("journal_tools", "tests", ".github", "docs"):
        shutil.copytree(ROOT / name, dst / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".cache"))
    for name in ("requirements.txt", "pyproject.toml", "Makefile", "mkdocs.yml"):
        shutil.copy2(ROOT / name, dst / name)
    return dst


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_digest_follows_the_toolkit_inputs_and_ignores_the_journal(tmp_path):
    root = _copy_inputs(tmp_path / "copy")
    first = toolkit_reuse.digest(root)
    module = root / "journal_tools" / "core" / "mathml.py"
    original = module.read_text(encoding="utf-8")
    _append(module, "\nraise RuntimeError('planted')\n")
    assert toolkit_reuse.digest(root) != first, "a fault planted in journal_tools/ left the digest unchanged"
    module.write_text(original, encoding="utf-8")
    assert toolkit_reuse.digest(root) == first
    entry = next((root / "docs" / "blog" / "posts").glob("*.md"))
    _append(entry, "\nOne more sentence.\n")
    _append(next((root / "tests" / "journal" / "test_snippets").glob("test_*.py")), "\n# edited\n")
    _append(root / "mkdocs.yml", "\n# the author's settings, read by no toolkit test\n")
    subset = root / ".cache" / "fonts" / "subset" / "0123" / "font.woff2"  # a build's subset for a new symbol
    subset.parent.mkdir(parents=True)
    subset.write_bytes(b"subset")
    assert toolkit_reuse.digest(root) == first, "an edit of the journal (or a build's font subset) changed the toolkit's digest"
    for toolkit_file in (next((root / "tests" / "toolkit" / "fixtures" / "journal" / "docs").rglob("*.md")), root / "requirements.txt",
                         root / "tests" / "journal_site.py", root / "journal_tools" / "mkdocs_plugin" / "assets" / "journal.css"):
        before = toolkit_reuse.digest(root)
        _append(toolkit_file, "\n")
        assert toolkit_reuse.digest(root) != before, f"{toolkit_file.relative_to(root)} is not an input of the digest"


@pytest.fixture
def project(pytester, monkeypatch):
    """A small project: one journal test, one toolkit test of journal_tools/planted.py, the real plugin."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("FRESH", raising=False)
    pytester.makefile(".toml", pyproject='[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
                                         'addopts = "-p no:randomly -p no:cacheprovider"\n')
    pytester.makefile(".txt", requirements="pytest\n")
    pytester.mkpydir("journal_tools")
    (pytester.path / "journal_tools" / "planted.py").write_text("def answer():\n    return 42\n", encoding="utf-8")
    tests = pytester.path / "tests"
    (tests / "toolkit" / "unit").mkdir(parents=True)
    (tests / "journal" / "test_snippets").mkdir(parents=True)
    (tests / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nfrom toolkit_reuse import ToolkitReuse\n\n\n"
        "def pytest_configure(config):\n    config.pluginmanager.register(ToolkitReuse(config), 'toolkit-reuse')\n",
        encoding="utf-8")
    (tests / "toolkit" / "unit" / "test_tool.py").write_text(
        "import runpy\nfrom pathlib import Path\n\n\ndef test_tool():\n"
        "    planted = Path(__file__).parents[3] / 'journal_tools' / 'planted.py'\n"
        "    assert runpy.run_path(str(planted))['answer']() == 42\n", encoding="utf-8")
    (tests / "journal" / "test_snippets" / "test_entry.py").write_text("def test_entry():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    return pytester


def _record(pytester) -> dict | None:
    path = pytester.path / toolkit_reuse.RECORD
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


@pytest.mark.slow
def test_the_toolkit_runs_again_exactly_when_an_input_changed_or_fresh_or_ci(project, monkeypatch):
    project.runpytest_inprocess().assert_outcomes(passed=2)
    record = _record(project)
    assert record and record["passed"] == 1 and record["digest"] == toolkit_reuse.digest(project.path)

    reused = project.runpytest_inprocess()
    reused.assert_outcomes(passed=1, deselected=1)
    reused.stdout.fnmatch_lines([f"toolkit: 1 tests passed at {record['digest'][:12]} on {record['date']}, "
                                 "inputs unchanged; FRESH=1 re-runs them"])
    for name, value in (("FRESH", "1"), ("CI", "true")):
        monkeypatch.setenv(name, value)
        project.runpytest_inprocess().assert_outcomes(passed=2)
        monkeypatch.delenv(name)
    record = _record(project)  # a FRESH or CI run that passed all records again (a new date)
    assert record["digest"] == toolkit_reuse.digest(project.path)

    planted = project.path / "journal_tools" / "planted.py"
    planted.write_text("def answer():\n    return 41\n", encoding="utf-8")  # the planted fault
    result = project.runpytest_inprocess()
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 1 and _record(project) == record, "a failed run rewrote the record"
    result.stdout.fnmatch_lines(["toolkit: ran (inputs changed); not recorded*"])


@pytest.mark.slow
def test_a_partial_failed_or_interrupted_run_writes_no_record(project):
    project.runpytest_inprocess("-k", "tool").assert_outcomes(passed=1)
    project.runpytest_inprocess("tests/toolkit/unit/test_tool.py").assert_outcomes(passed=1)
    project.runpytest_inprocess("tests", "--deselect", "tests/journal/test_snippets/test_entry.py::test_entry").assert_outcomes(passed=1)
    assert _record(project) is None
    (project.path / "tests" / "toolkit" / "unit" / "test_stop.py").write_text("def test_stop():\n    raise KeyboardInterrupt\n", encoding="utf-8")
    # In a subprocess: in this process the KeyboardInterrupt would stop this session too.
    assert project.runpytest_subprocess().ret == pytest.ExitCode.INTERRUPTED
    assert _record(project) is None


@pytest.mark.slow
def test_under_xdist_the_controller_records_once_and_the_workers_follow(project):
    project.runpytest_inprocess("-n", "2").assert_outcomes(passed=2)
    record = _record(project)
    assert record and record["passed"] == 1
    reused = project.runpytest_inprocess("-n", "2")
    reused.assert_outcomes(passed=1)
    reused.stdout.fnmatch_lines(["toolkit: 1 tests passed at * inputs unchanged; FRESH=1 re-runs them"])
    assert _record(project) == record


@pytest.mark.slow
def test_a_toolkit_test_reading_the_build_of_docs_stops_collection(project):
    (project.path / "tests" / "toolkit" / "unit" / "test_reads_docs.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef built():\n    return None\n\n\ndef test_site(built):\n    pass\n", encoding="utf-8")
    result = project.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*tests/toolkit/unit/test_reads_docs.py::test_site: uses the build of docs/*suite_parts.py JOURNAL*"])
