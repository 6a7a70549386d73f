"""Page doc-test parsing and running on inline pages: the marker vocabulary of
pytest-codeblocks, its behaviours the journal matches, and the stricter rules."""

from __future__ import annotations

import io

import pytest
from pytest_codeblocks import extract_from_buffer

from journal_tools.core.code.parse import PageError, parse_page
from journal_tools.core.code.render_check import RenderProblem, check_render
from journal_tools.core.code.run import BlockError, ChainResult, run_chain

# pytest-codeblocks' own test cases (tests/test_cont.py, test_expected_output.py): the
# code each block runs must be the same under both parsers.
PARITY = [
    "Lorem ipsum\n```python\na = 1\n```\ndolor sit amet\n<!--pytest-codeblocks:cont-->\n```\na + 1\n```\n",
    "```python\nprint(1 + 3)\n```\n<!--pytest-codeblocks:expected-output-->\n```\n4\n```\n",
    "```python\nprint('a  b')\n```\n<!--pytest-codeblocks:expected-output-ignore-whitespace-->\n```\nab\n```\n",
    "```sh\necho abc\n```\n<!--pytest-codeblocks:expected-output-->\n```sh\nabc\n```\n",
    "<!--pytest.mark.skip(reason='r')-->\n```python\n1 + 1\n```\n\n```bash\nfoo=1\necho $foo\n```\n",
]


def _steps(journal, text, name="page.md"):
    settings, write = journal
    return parse_page(write(name, text), settings)


def _run(page):
    result = ChainResult()
    run_chain(page, page.steps, result)
    return result


@pytest.mark.parametrize("text", PARITY)
def test_same_blocks_as_pytest_codeblocks(journal, text):
    ours = _steps(journal, text)
    theirs = [b for b in extract_from_buffer(io.StringIO(text)) if b.syntax in ("python", "sh", "bash")]
    assert [s.code for s in ours.steps] == [b.code for b in theirs]
    assert [s.expected_output for s in ours.steps] == [b.expected_output for b in theirs]
    assert [s.origin.line for s in ours.steps] == [b.lineno for b in theirs]


def test_bare_fence_cont_continues_and_runs(journal):
    page = _steps(journal, PARITY[0])
    (step,) = page.steps
    assert len(step.parts) == 2
    assert _run(page).executed_fences == 2


def test_shell_blocks_run_in_the_page_folder_and_check_output(journal):
    page = _steps(journal, "```sh\necho made > out.txt && cat out.txt\n```\n<!--pytest-codeblocks:expected-output-->\n```text\nmade\n```\n")
    assert [r.status for r in _run(page).results] == ["passed"]
    bad = _steps(journal, "```bash\nexit 3\n```\n", "bad.md")
    with pytest.raises(BlockError, match=r"docs/bad\.md:1: the bash block exited with status 3"):
        _run(bad)


def test_xfail_that_raises_is_xfailed_and_one_that_passes_fails(journal):
    page = _steps(journal, "<!--pytest.mark.xfail(reason='shows the error', raises=ZeroDivisionError)-->\n```python\n1 / 0\n```\n")
    assert [r.status for r in _run(page).results] == ["xfailed"]
    passing = _steps(journal, "<!--pytest.mark.xfail(reason='r')-->\n```python\n1 / 1\n```\n", "p.md")
    with pytest.raises(BlockError, match="marked xfail .* but ran without error"):
        _run(passing)
    wrong = _steps(journal, "<!--pytest.mark.xfail(reason='r', raises=KeyError)-->\n```python\n1 / 0\n```\n", "w.md")
    with pytest.raises(BlockError, match="ZeroDivisionError"):
        _run(wrong)


def test_marks_are_evaluated_once_when_the_page_is_read(journal):
    page = _steps(journal, "<!--pytest.mark.skipif('sys.platform != \"nope\"', reason='not here')-->\n```python\nraise SystemExit\n```\n")
    (step,) = page.steps
    assert step.mark("skipif").kwargs["reason"] == "not here"
    result = _run(page)  # a string condition is read at run time, as pytest reads it
    assert [(r.status, r.reason) for r in result.results] == [("skipped", "not here")]
    with pytest.raises(PageError, match=r"page\.md:1: cannot read marker"):
        _steps(journal, "<!--pytest.mark.skip(reason=)-->\n```python\n1\n```\n")


@pytest.mark.parametrize("text, message", [
    ("<!--pytest.mark.skip-->\n```python\n1\n```\n", r"page\.md:1: .*needs a written reason"),
    ("<!--pytest-codeblocks:cont-->\n```python\n1\n```\n", r"page\.md:1: .*no code block before it"),
    ("<!--\n```python\nsecret = 1\n```\n-->\n", r"page\.md:2: a code fence inside an HTML comment"),
    ("```python\n1\n```\n<!--pytest-codeblocks:skipfile-->\n", r"page\.md:4: .*not supported"),
    ("```python\n1\n```\n<!--pytest-codeblocks:expected-output-->\n```python\n1\n```\n", r"page\.md:5: .*write it as ```text"),
    ("```python\nx = 1\n```\n<!--pytest-codeblocks:cont-->\n```sh\necho\n```\n", r"page\.md:5: a 'sh' block continues a 'python'"),
    ("<!--pytest.mark.skip(reason='r')-->\n```text\nshown\n```\n", r"page\.md:1: a marker above a 'text' block"),
    ("```python\nx = 1\n", r"page\.md:1: a code fence opened here is never closed"),
    ("---\ndoctest: chapter\n---\n", r"page\.md:2: 'doctest: chapter' must be one of"),
    ("x\n<!--pytest.mark.skp(reason='r')-->\n```python\n1\n```\n", r"page\.md:2: .*skp.* is a mark the page tests do not apply"),
    ("```python\nx = 1\n````\n", r"page\.md:1: a code fence opened here is never closed"),
    (b"```python\nx = '\xe9'\n```\n", r"page\.md:2: not UTF-8 text: byte 0xe9 at column 6"),
])
def test_stricter_rules_name_the_line(journal, text, message):
    settings, write = journal
    path = write("page.md", "")
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(PageError, match=message):
        parse_page(path, settings)


def test_a_byte_order_mark_does_not_hide_the_first_fence(journal):
    settings, write = journal
    path = write("bom.md", "")
    path.write_bytes(b"\xef\xbb\xbf```python\r\nx = 1\r\n```\r\n")  # as an editor on Windows may save it
    page = parse_page(path, settings)
    assert [(s.code, s.origin.line) for s in page.steps] == [("x = 1\n", 1)]
    check_render(page, settings)  # the build (MkDocs reads utf-8-sig) shows it as Python too


@pytest.mark.parametrize("text, message", [
    ("Text.\n\n```pycon\n>>> 1\n```\n", r"^docs/page\.md:3: a reader sees 1 Python code blocks \(pycon\) but the tests run 0"),
    ("Text.\n\n\t```python\n\tx = 1\n\t```\n", r"^docs/page\.md:3: a reader sees 0 Python code blocks \(none\) but the tests run 1"),
    ("Text.\n\n> ```python\n> x = 1\n> ```\n", r"^docs/page\.md:3: a reader sees 1 Python code blocks \(python\) but the tests run 0"),
])
def test_render_check_names_the_line_of_the_block_it_disagrees_on(journal, text, message):
    page = _steps(journal, text)
    with pytest.raises(RenderProblem, match=message):
        check_render(page, journal[0])


def test_snippet_lines_map_back_to_the_snippet_file(journal):
    page = _steps(journal, '```python\n--8<-- "demo.py:two"\nprint(x / 0)\n```\n')
    with pytest.raises(BlockError) as info:
        _run(page)
    assert "docs/page.md:3: ZeroDivisionError" in str(info.value)
    (part,) = page.steps[0].parts
    assert part.origins[0].describe() == "snippets/demo.py:2 (included at docs/page.md:2)"


def test_first_line_keeps_pythons_did_you_mean(journal):
    page = _steps(journal, "```python\nattention = 1\nprint(atention)\n```\n")
    with pytest.raises(BlockError) as info:
        _run(page)
    first = str(info.value).split("\n")[0]
    assert first == "docs/page.md:3: NameError: name 'atention' is not defined. Did you mean: 'attention'?"
