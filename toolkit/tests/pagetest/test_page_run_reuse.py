"""make test runs the code of the pages that changed, not of every page: a page whose every test
passed is not run again while its inputs, PyTorch and the toolkit are the same (core/code/render_record.py,
pagetest's ReusedPage). Named pages, FRESH=1 and a failed page always run. And after any sequence of
runs the verified record and every badge equal what a FRESH=1 run writes."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow  # pytest sessions in-process

CONFIG = """\
site_name: t
theme: material
markdown_extensions:
  - pymdownx.highlight:
      pygments_lang_class: true
  - pymdownx.superfences
"""

PAGE = """\
# {title}

```python
print({value})
```

<!--pytest-codeblocks:expected-output-->

```text
{value}
```
"""


@pytest.fixture
def journal(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("FRESH", raising=False)
    pytester.makefile(".yml", mkdocs=CONFIG)
    pytester.makeini("[pytest]\ntestpaths = docs\naddopts = -p no:codeblocks -p no:randomly -p no:cacheprovider\n")
    docs = pytester.mkdir("docs")
    for name, value in (("a", 2), ("b", 3)):
        (docs / f"{name}.md").write_text(PAGE.format(title=name, value=value), encoding="utf-8")
    return pytester


def _run(journal, *args):
    result = journal.runpytest_inprocess(*args)
    return result, result.stdout.str()


def test_unchanged_pages_are_reused_and_an_edited_one_runs(journal):
    result, out = _run(journal)
    assert result.ret == 0 and "executed 2 of 2 code blocks on 2 pages" in out and "reused:" not in out, out
    result, out = _run(journal)
    assert result.ret == 0 and "reused: the tests of 2 unchanged pages" in out, out
    assert "executed 0 of 2 code blocks on 0 of 2 pages; 2 pages reused" in out, out  # always said, reuse counted
    page = journal.path / "docs" / "b.md"
    page.write_text(PAGE.format(title="b", value=4), encoding="utf-8")
    result, out = _run(journal)
    assert result.ret == 0 and "executed 1 of 2 code blocks on 1 of 2 pages; 1 page reused" in out, out
    assert "reused: the tests of 1 unchanged page " in out, out


def test_named_pages_fresh_and_failures_always_run(journal, monkeypatch):
    _run(journal)
    result, out = _run(journal, "docs/a.md")
    assert "executed 1 of 1 code blocks on 1 pages" in out and "reused:" not in out, out  # make check PAGE=...
    monkeypatch.setenv("FRESH", "1")
    result, out = _run(journal)
    assert "executed 2 of 2 code blocks on 2 pages" in out and "reused:" not in out, out
    monkeypatch.delenv("FRESH")
    page = journal.path / "docs" / "b.md"
    page.write_text(page.read_text(encoding="utf-8").replace("```text\n3", "```text\n30"), encoding="utf-8")
    for _ in range(2):  # a failed page is never remembered
        result, out = _run(journal)
        assert result.ret == 1 and "docs/b.md" in out and "reused: the tests of 1 unchanged page " in out, out


def test_a_ci_run_reuses_nothing_but_records_what_passed(journal, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result, out = _run(journal)
    assert result.ret == 0 and "executed 2 of 2 code blocks on 2 pages" in out, out
    result, out = _run(journal)
    assert "executed 2 of 2 code blocks on 2 pages" in out and "reused:" not in out, out
    monkeypatch.delenv("CI")
    result, out = _run(journal)  # the next make test after CI (or a fresh clone's first FRESH=1 run)
    assert result.ret == 0 and "reused: the tests of 2 unchanged pages" in out, out


# -- The record after any sequence of runs equals a fresh run's -----------------------------

OPS = st.one_of(
    st.tuples(st.sampled_from(["wrong", "revert", "prose", "delete", "check"]), st.sampled_from("abc")),
    st.just(("run", "")),
)


def _apply(journal, op: str, name: str) -> None:
    if op == "run":
        journal.runpytest_inprocess()  # make test
        return
    page = journal.path / "docs" / f"{name}.md"
    original = PAGE.format(title=name, value=ord(name))
    if op == "wrong" and page.is_file():
        page.write_text(original.replace(f"```text\n{ord(name)}", "```text\n-1"), encoding="utf-8")
    elif op == "revert":
        page.write_text(original, encoding="utf-8")
    elif op == "prose" and page.is_file():
        page.write_text(page.read_text(encoding="utf-8") + "\nAnother line of prose.\n", encoding="utf-8")
    elif op == "delete":
        page.unlink(missing_ok=True)
    elif op == "check" and page.is_file():
        journal.runpytest_inprocess(f"docs/{name}.md")  # make check PAGE=docs/<name>.md


def _record_and_badges(journal) -> tuple[dict, dict]:
    from journal_tools.compat import mkdocs_config
    from journal_tools.core.record.verified import badge_html, page_digest, read_record

    settings = mkdocs_config.load(journal.path / "mkdocs.yml")
    record = read_record(settings)
    pages = sorted((journal.path / "docs").glob("*.md"))
    return record, {p.name: badge_html(record.get(settings.rel(p)), page_digest(p, settings)) for p in pages}


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(ops=[("check", "a"), ("wrong", "a"), ("run", ""), ("revert", "a")])  # the revert that lost its badge
@example(ops=[("run", ""), ("delete", "c")])  # a deleted page must leave the record
@given(ops=st.lists(OPS, max_size=4))
def test_after_any_runs_the_record_and_badges_equal_a_fresh_runs(journal, monkeypatch, ops):
    """Whatever ran before (passes, failures, reverts, named pages, deleted pages), the record
    and every badge after `make test` are what a FRESH=1 run of the same tree writes."""
    for folder in ("docs", ".cache"):
        shutil.rmtree(journal.path / folder, ignore_errors=True)
    (journal.path / "docs").mkdir()
    for name in "abc":
        _apply(journal, "revert", name)
    for op, name in ops:
        _apply(journal, op, name)
    _apply(journal, "run", "")
    after_runs = _record_and_badges(journal)
    monkeypatch.setenv("FRESH", "1")
    _apply(journal, "run", "")
    monkeypatch.delenv("FRESH")
    assert after_runs == _record_and_badges(journal), f"after {ops}"
