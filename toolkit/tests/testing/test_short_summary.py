"""The end of a run (testing.short_summary, pagetest's Tally): a failure's summary line keeps its
message whole, the checks a failure made skip get one line naming it, the blocks-run line is always
there, reused pages counted.
"""

from __future__ import annotations

import re

import pytest

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow  # pytest sessions in-process

CONFIG = ("site_name: t\ntheme: material\nmarkdown_extensions:\n  - pymdownx.highlight:\n      pygments_lang_class: true\n"
          "  - pymdownx.superfences\n  - pymdownx.snippets:\n      check_paths: true\n      dedent_subsections: true\n")
PAGE = "# {title}\n\n```python\nprint({value})\n```\n\n<!--pytest-codeblocks:expected-output-->\n\n```text\n{shown}\n```\n"
POST = "docs/blog/posts/2026-12-01-an-entry-whose-file-name-is-as-long-as-titles-get.md"


@pytest.fixture
def journal(pytester, monkeypatch):
    for name in ("CI", "BUILD_NUMBER", "FRESH"):  # on CI pytest never cuts a message: the case is a terminal's
        monkeypatch.delenv(name, raising=False)
    pytester.makefile(".yml", mkdocs=CONFIG)
    pytester.makeini("[pytest]\ntestpaths = docs\naddopts = -p no:codeblocks -p no:randomly -p no:cacheprovider "
                     "\n")
    pytester.mkdir("docs")
    (pytester.path / "docs" / "a.md").write_text(PAGE.format(title="a", value=2, shown=2), encoding="utf-8")
    return pytester


def test_a_failure_s_short_summary_line_keeps_its_message_whole(journal, monkeypatch):
    post = journal.path / POST
    post.parent.mkdir(parents=True)
    post.write_text(PAGE.format(title="b", value=3, shown=4), encoding="utf-8")
    monkeypatch.setenv("COLUMNS", "400")
    out = journal.runpytest_inprocess().stdout.str()
    message = next(line for line in out.splitlines() if line.startswith(f"{POST}:10: the expected output differs"))
    line = f"FAILED {POST}::line 3 - {message}"
    monkeypatch.setenv("COLUMNS", str(len(line) + 2))  # the line fits: the file named, the message whole
    out = journal.runpytest_inprocess().stdout.str()
    assert line in out.splitlines(), out[-1500:]
    monkeypatch.setenv("COLUMNS", "60")  # a narrow terminal: the message whole, wrapped within its width
    result = journal.runpytest_inprocess()
    lines = result.stdout.str().splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith("FAILED docs/")), None)
    assert start is not None, "\n".join(lines[-12:])
    shown = [lines[start]] + [ln for ln in lines[start + 1:] if ln.startswith("    ")][:10]
    assert all(len(ln) <= 60 for ln in shown), shown
    assert "".join("".join(ln.split()) for ln in shown) == "".join(line.split()), shown  # nothing cut
    result.assert_outcomes(passed=2, failed=1)  # counted as before (a.md: render and its block reused as one)


def test_the_checks_a_failure_made_skip_get_one_line_naming_it(journal):
    journal.makeconftest('''
import pytest

@pytest.fixture
def built():
    pytest.skip("docs/ did not build, so there is no site to look at: test_build.py::test_docs_build reports why")
''')
    journal.makepyfile(
        test_build='''
import pytest

def test_docs_build():
    pytest.skip("the build stopped at docs/c.md:10, which the page test docs/c.md::line 3 reports")
''',
        test_site="".join(f"\ndef test_check_{n}(built):\n    pass\n" for n in range(3)))
    (journal.path / "docs" / "c.md").write_text(PAGE.format(title="c", value=3, shown=4), encoding="utf-8")
    result = journal.runpytest_inprocess("docs", "test_build.py", "test_site.py")
    out = result.stdout.str()
    assert result.ret == 1 and "1 failed, 3 passed, 4 skipped" in out, out
    assert "3 checks skipped: docs/ did not build, so there is no site to look at (docs/c.md::line 3 says why)" in out, out
    assert "1 check skipped: the build stopped at docs/c.md:10 (docs/c.md::line 3 says why)" in out, out


def test_the_blocks_run_line_is_always_there_and_counts_reused_pages(journal):
    (journal.path / "docs" / "b.md").write_text(PAGE.format(title="b", value=3, shown=3), encoding="utf-8")
    out = journal.runpytest_inprocess().stdout.str()
    assert "executed 2 of 2 code blocks on 2 pages" in out, out
    # b cannot be read as tests now (an unknown marker); a is reused.
    (journal.path / "docs" / "b.md").write_text("<!--pytest.mark.nonsense-->\n" + PAGE.format(title="b", value=3, shown=3),
                                                encoding="utf-8")
    result = journal.runpytest_inprocess()
    out = result.stdout.str()
    assert result.ret == 1 and re.search(r"executed 0 of 1 code blocks on 0 of 2 pages; 1 page reused\n", out), out
