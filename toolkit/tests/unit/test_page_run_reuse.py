"""make test runs the code of the pages that changed, not of every page: a page whose every test
passed is not run again while its inputs, PyTorch and the toolkit are the same (core/render_record.py,
pagetest's ReusedPage). Named pages, FRESH=1 and a failed page always run."""

from __future__ import annotations

import pytest

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
    assert result.ret == 0 and "reused: the tests of 2 unchanged pages" in out and "executed" not in out, out
    page = journal.path / "docs" / "b.md"
    page.write_text(PAGE.format(title="b", value=4), encoding="utf-8")
    result, out = _run(journal)
    assert result.ret == 0 and "executed 1 of 1 code blocks on 1 pages" in out and "reused: the tests of 1 unchanged page " in out, out


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
