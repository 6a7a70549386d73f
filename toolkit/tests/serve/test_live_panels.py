"""A served page gets its code-run status line when requested (serve.live_panels): a page whose
code still runs is sent at once saying so, and its status line's request answers with the outcome
when done, no rebuild asked. Real warm worker; a stand-in request handler.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.serve import live_panels
from journal_tools.serve import state as serve

from fixture_journal import fixture_project

pytestmark = pytest.mark.slow  # runs page code in the warm worker

ENTRY = "docs/blog/posts/2025-07-27-fixture-entry.md"
MOUNT = "/journal/"
DEST = "blog/2025/07/27/fixture-entry/index.html"
PAGE = b'<html><body><article class="md-content__inner md-typeset"><h1>Entry</h1></article></body></html>'


def _built_page(environ, start_response):
    """The live-reload server's handler, answering with the page as the build wrote it."""
    start_response("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(PAGE)))])
    return iter([PAGE])


def _get(app, path: str, query: str = "") -> tuple[str, dict, str]:
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer.update(status=status, headers=dict(headers))

    body = b"".join(app({"PATH_INFO": path, "QUERY_STRING": query}, start_response))
    return answer["status"], answer["headers"], body.decode("utf-8")


@pytest.fixture
def served(tmp_path):
    """A serve state whose one page sleeps 3 s before it prints (so it is requested mid-run)."""
    root = fixture_project(tmp_path / "project")
    page = root / ENTRY
    page.write_text(page.read_text(encoding="utf-8").replace("print(weights)", "import time; time.sleep(3); print(weights)"),
                    encoding="utf-8")
    settings = mkdocs_config.load(root / "mkdocs.yml")
    state = serve.ServeState(settings)
    state.served[DEST] = (page, [])
    try:
        yield state, page, settings, live_panels.around_app(state, MOUNT)(_built_page)
    finally:
        state.runner.close()


def test_a_page_sent_before_its_code_is_done_gets_its_outcome_in_place(served):
    state, page, settings, app = served
    state.schedule([page], settings)
    status, headers, html = _get(app, MOUNT + "blog/2025/07/27/fixture-entry/")
    assert status.startswith("200") and "code still running since" in html and "journal-run--running" in html, html
    assert int(headers["Content-Length"]) == len(html.encode("utf-8"))
    assert html.index("code still running") > html.index('<article class="md-content__inner md-typeset">')
    poll = re.search(r'fetch\("([^"]+)"', html).group(1)  # where the status line asks for its outcome
    path, _, query = poll.partition("?")
    assert path == MOUNT + live_panels.RUN_PATH and urllib.parse.parse_qs(query) == {"page": [DEST]}
    status, _, line = _get(app, path, query)  # waits for the code
    assert status.startswith("200") and "code blocks ran" in line and "journal-run--ok" in line, line
    assert "<style>" not in line  # it replaces the line in place; the page has the stylesheet
    assert not state.rebuild_requests.wanted, "a rebuild was asked for: the outcome needs none"
    status, _, html = _get(app, MOUNT + "blog/2025/07/27/fixture-entry/")  # a later request: the outcome itself
    assert "code blocks ran" in html and "fetch(" not in html


def test_a_status_request_still_pending_answers_no_content(served, monkeypatch):
    state, page, settings, app = served
    monkeypatch.setattr(live_panels, "POLL_SECONDS", 0.1)
    state.schedule([page], settings)
    status, _, _ = _get(app, MOUNT + live_panels.RUN_PATH, urllib.parse.urlencode({"page": DEST}))
    assert status.startswith("204")


def test_a_page_without_a_run_and_other_files_are_sent_as_built(served):
    state, page, settings, app = served
    assert _get(app, MOUNT + "blog/2025/07/27/fixture-entry/")[2] == PAGE.decode()  # not scheduled: no run
    state.schedule([page], settings)
    assert _get(app, MOUNT + "assets/site.css")[2] == PAGE.decode()  # not a page
    assert _get(app, MOUNT + "tags/")[2] == PAGE.decode()  # a page with no code run


def test_an_unknown_page_status_is_not_found(served):
    _, _, _, app = served
    assert _get(app, MOUNT + live_panels.RUN_PATH, "page=nowhere%2Findex.html")[0].startswith("404")


def _served_outcome(root, page) -> dict:
    """The outcome make serve's code runner gives ``page`` of the journal at ``root``, once its run is done."""
    settings = mkdocs_config.load(root / "mkdocs.yml")
    state = serve.ServeState(settings)
    try:
        state.schedule([page], settings)
        return state.wait_for(page, 120)
    finally:
        state.runner.close()


def test_an_empty_output_fence_is_to_fill_not_a_failure(tmp_path):
    """The README starts an output with an empty fence: make serve says where to fill it."""
    root = fixture_project(tmp_path / "project")
    page = root / "docs" / "empty-output.md"
    page.write_text("# Empty\n\n```python\nprint(6 * 7)\n```\n\n<!--pytest-codeblocks:expected-output-->\n```text\n```\n"
                    "\n```python\nprint(undefined_name)\n```\n", encoding="utf-8")
    outcome = _served_outcome(root, page)
    # The fence to fill (line 8), its block (line 3); the block that raises is a failure all the same.
    assert outcome["to_fill"] == [{"where": "docs/empty-output.md:8", "line": 3}], outcome
    assert [(f["line"], f["message"]) for f in outcome["failures"]] == [(11, "NameError: name 'undefined_name' is not defined")]
    assert outcome["ran"] == 2  # the one to fill ran, and so did the one that failed



def test_a_doctest_page_chain_runs_on_past_each_output_to_fill(tmp_path):
    """An empty fence is "to fill", not the end of a ``doctest: page`` chain: the blocks after it run
    (one namespace), each fence to fill is named, and the outcome counts every block of the page."""
    root = fixture_project(tmp_path / "project")
    page = root / "docs" / "chain.md"
    fill = "\n<!--pytest-codeblocks:expected-output-->\n```text\n```\n"
    page.write_text("---\ndoctest: page\n---\n# Chain\n\n```python\nx = 6\nprint(x)\n```\n" + fill
                    + "\n```python\nx *= 7\nprint(x)\n```\n" + fill
                    + "\n```python\nprint(x + 1)\n```\n\n<!--pytest-codeblocks:expected-output-->\n```text\n42\n```\n"
                    + "\n```python\nprint(missing)\n```\n", encoding="utf-8")
    outcome = _served_outcome(root, page)
    assert [f["where"] for f in outcome["to_fill"]] == ["docs/chain.md:12", "docs/chain.md:21"], outcome
    # Block three ran with block two's x (42 + 1 printed, 42 shown): a failure; block four raised. In page order.
    assert [(f["line"], f["message"].split(";")[0]) for f in outcome["failures"]] == [
        (24, "the expected output differs from what the block at line 24 printed"),
        (33, "NameError: name 'missing' is not defined")], outcome
    assert (outcome["ran"], outcome["blocks"]) == (4, 4)


def test_a_page_runs_again_when_a_file_its_code_read_changes(tmp_path):
    """make serve runs a page again when what its code was seen to read changes (a data file read
    through a snippet module), not only when the page or its includes do; an unrelated file does not."""
    root = fixture_project(tmp_path / "project")
    (root / "snippets" / "data").mkdir()
    data = root / "snippets" / "data" / "words.txt"
    data.write_text("one two three\n")
    (root / "snippets" / "wordcount.py").write_text(
        "from pathlib import Path\n\n\ndef count():\n    return len((Path(__file__).parent / 'data' / 'words.txt')"
        ".read_text().split())\n")
    page = root / "docs" / "reads.md"
    page.write_text("# Reads\n\n```python\nfrom wordcount import count\n\nprint(count())\n```\n\n"
                    "<!--pytest-codeblocks:expected-output-->\n```text\n3\n```\n", encoding="utf-8")
    settings = mkdocs_config.load(root / "mkdocs.yml")
    state = serve.ServeState(settings)
    try:
        state.schedule([page], settings)
        first = state.wait_for(page, 120)
        assert first["failures"] == [] and "snippets/data/words.txt" in first["read"]["files"], first
        (root / "snippets" / "unrelated.txt").write_text("read by no page")
        state.schedule([page], settings)
        assert state.wait_for(page, 120) is first  # nothing it read changed: not run again
        data.write_text("one two three four\n")
        state.schedule([page], settings)
        again = state.wait_for(page, 120)
    finally:
        state.runner.close()
    assert again is not first and [f["message"].split(";")[0] for f in again["failures"]] == [
        "the expected output differs from what the block at line 3 printed"], again


def test_a_changed_number_in_the_text_is_one_failure_at_its_line(tmp_path):
    """make serve's panel names a number in the text that the code contradicts where make check does, once."""
    root = fixture_project(tmp_path / "project")
    page = root / ENTRY
    page.write_text(page.read_text(encoding="utf-8").replace("[0.73]{=", "[0.74]{="), encoding="utf-8")
    line = next(n for n, text in enumerate(page.read_text(encoding="utf-8").splitlines(), 1) if "[0.74]{=" in text)
    outcome = _served_outcome(root, page)
    assert [(f["where"], f["message"].split(";")[0]) for f in outcome["failures"]] == [
        (f"{ENTRY}:{line}", "the number written is 0.74 but `weights[0].max().item()` gives 0.73 (`:.2f`)")], outcome
