"""make test reruns only pages whose inputs or environment changed (core/record/inputs.py, ReusedPage);
named pages, FRESH=1 and failed pages always run; after any sequence of runs and edits the verified
pages and badges equal what a FRESH=1 run gives."""

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
  - pymdownx.snippets:
      base_path: [snippets]
      check_paths: true
      dedent_subsections: true
"""

# A snippet module reading its data files in four ways; page r<n> prints reader.<way>().
READER = """\
from pathlib import Path

import torch

DATA = Path(__file__).parent / "data"


def via_open():
    with open(DATA / "a.txt", encoding="utf-8") as f:
        return len(f.read().split())


def via_read_text():
    return len((DATA / "b.txt").read_text(encoding="utf-8").split())


def via_torch_load():
    return int(torch.load(DATA / "c.pt").sum())


def via_listing():
    return len(sorted(p.name for p in DATA.iterdir()))
"""
WAYS = ("via_open", "via_read_text", "via_torch_load", "via_listing")
DATA = {"a.txt": "one two three", "b.txt": "four five"}
READING = """\
# reads {way}

```python
from reader import {way}

print({way}())
```

<!--pytest-codeblocks:expected-output-->

```text
{value}
```
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


def test_a_prose_edit_runs_no_code_and_a_code_edit_runs_its_chain(journal):
    """A chain is kept under its code and what its code read, not under the page's bytes (core/judge.py)."""
    _run(journal)
    page = journal.path / "docs" / "b.md"
    page.write_text("Some prose first.\n\n" + page.read_text(encoding="utf-8"), encoding="utf-8")  # every line moves
    result, out = _run(journal)
    assert result.ret == 0 and "executed 0 of 2 code blocks on 1 of 2 pages; 1 page reused" in out, out
    assert "reused: 1 code block of changed pages" in out, out
    page.write_text("Some prose first.\n\n" + PAGE.format(title="b", value=4), encoding="utf-8")
    result, out = _run(journal)
    assert result.ret == 0 and "executed 1 of 2 code blocks on 1 of 2 pages; 1 page reused" in out, out
    assert "code block of changed pages" not in out, out


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


def test_a_fresh_run_reuses_nothing_but_records_what_passed(journal, monkeypatch):
    monkeypatch.setenv("FRESH", "1")
    result, out = _run(journal)
    assert result.ret == 0 and "executed 2 of 2 code blocks on 2 pages" in out, out
    result, out = _run(journal)
    assert "executed 2 of 2 code blocks on 2 pages" in out and "reused:" not in out, out
    monkeypatch.delenv("FRESH")
    monkeypatch.setenv("CI", "true")  # a pull request's CI run, with the record main's FRESH=1 run saved
    result, out = _run(journal)
    assert result.ret == 0 and "reused: the tests of 2 unchanged pages" in out, out


# -- The record after any sequence of runs equals a fresh run's -----------------------------

OPS = st.one_of(
    st.tuples(st.sampled_from(["wrong", "revert", "prose", "delete", "check"]), st.sampled_from("abc")),
    st.tuples(st.sampled_from(["edit data", "delete data", "revert data"]), st.sampled_from(["a.txt", "b.txt", "c.pt"])),
    st.tuples(st.sampled_from(["add data", "remove added data", "edit snippet", "revert snippet"]), st.just("")),
    st.just(("run", "")),
)


def _data(journal, name: str, edited: bool = False) -> None:
    import torch

    path = journal.path / "snippets" / "data" / name
    if name.endswith(".pt"):
        torch.save(torch.tensor([3.0, 4.0 if not edited else 5.0]), path)
    else:
        path.write_text(DATA[name] + (" six" if edited else ""), encoding="utf-8")


def _set_up(journal) -> None:
    """Pages a, b, c (no data), r0..r3 (each reading its data its own way), the snippet, the data."""
    (journal.path / "docs").mkdir()
    (journal.path / "snippets" / "data").mkdir(parents=True)
    (journal.path / "snippets" / "reader.py").write_text(READER, encoding="utf-8")
    for name in ("a.txt", "b.txt", "c.pt"):
        _data(journal, name)
    for name in "abc":
        _apply(journal, "revert", name)
    for n, (way, value) in enumerate(zip(WAYS, (3, 2, 7, 3))):
        (journal.path / "docs" / f"r{n}.md").write_text(READING.format(way=way, value=value), encoding="utf-8")


def _apply(journal, op: str, name: str) -> None:
    if op == "run":
        journal.runpytest_inprocess()  # make test
        return
    snippets = journal.path / "snippets"
    if op == "edit data":
        _data(journal, name, edited=True)
    elif op == "delete data":
        (snippets / "data" / name).unlink(missing_ok=True)
    elif op == "revert data":
        _data(journal, name)
    elif op == "add data":
        (snippets / "data" / "extra.txt").write_text("seen by the listing", encoding="utf-8")
    elif op == "remove added data":
        (snippets / "data" / "extra.txt").unlink(missing_ok=True)
    elif op == "edit snippet":  # the pages still pass, but must run again to say so
        (snippets / "reader.py").write_text(READER + "\n# edited\n", encoding="utf-8")
    elif op == "revert snippet":
        (snippets / "reader.py").write_text(READER, encoding="utf-8")
    else:
        _apply_to_page(journal, op, name)


def _apply_to_page(journal, op: str, name: str) -> None:
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


def _badges(journal) -> dict:
    """Every page's badge as the build would show it now, from the record."""
    from journal_tools.compat import mkdocs_config
    from journal_tools.core.record.inputs import Record
    from journal_tools.core.record.verified import badge_html, proved

    settings = mkdocs_config.load(journal.path / "mkdocs.yml")
    record = Record(journal.path)
    return {p.name: badge_html(proved(record, p, settings)) for p in sorted((journal.path / "docs").glob("*.md"))}


@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(ops=[("check", "a"), ("wrong", "a"), ("run", ""), ("revert", "a")])  # the revert that lost its badge
@example(ops=[("run", ""), ("delete", "c")])  # a deleted page must leave the record
@example(ops=[("run", ""), ("edit data", "a.txt")])  # the data file read through a snippet: stayed "Verified"
@example(ops=[("run", ""), ("edit data", "b.txt"), ("run", ""), ("revert data", "b.txt")])  # its badge back, no run
@example(ops=[("run", ""), ("edit data", "c.pt"), ("delete data", "a.txt")])
@example(ops=[("run", ""), ("add data", ""), ("run", ""), ("remove added data", "")])  # a folder listed
@example(ops=[("run", ""), ("edit snippet", ""), ("run", ""), ("revert snippet", "")])
@given(ops=st.lists(OPS, max_size=4))
def test_after_any_runs_the_record_and_badges_equal_a_fresh_runs(journal, monkeypatch, ops):
    """Whatever ran before (passes, failures, reverts, named pages, deleted pages, data files and
    snippets edited, added, deleted and put back), every badge after `make test` is what a FRESH=1
    run of the same tree gives, and so are the pages it says are verified."""
    for folder in ("docs", "snippets", ".cache"):
        shutil.rmtree(journal.path / folder, ignore_errors=True)
    _set_up(journal)
    for op, name in ops:
        _apply(journal, op, name)
    _apply(journal, "run", "")
    after_runs = _badges(journal)
    monkeypatch.setenv("FRESH", "1")
    _apply(journal, "run", "")
    monkeypatch.delenv("FRESH")
    assert after_runs == _badges(journal), f"after {ops}"
