"""A journal test that runs past its time limit fails naming the journal lines it was running, and the run goes on; a
later test stopped in the same loop skips naming it (journal_tools/testing/time_limits.py, pytest-timeout)."""

from __future__ import annotations

import re

import pytest

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow  # pytest sessions in a subprocess

CONFIG = ("site_name: t\ntheme: material\nplugins:\n  - journal:\n      block_timeout: 4\nmarkdown_extensions:\n"
          "  - pymdownx.highlight:\n      pygments_lang_class: true\n"
          "  - pymdownx.superfences\n  - pymdownx.snippets:\n      check_paths: true\n      dedent_subsections: true\n")
SNIPPET = "def spin():\n    n = 0\n    while True:\n        n += 1\n"
TEST = "import pytest\nfrom spin import spin\n\n\ndef test_ok():\n    pass\n\n\ndef test_spin():\n    spin()\n\n\n@pytest.mark.timeout(600)\ndef test_spin_again():\n    spin()\n"


def test_a_looping_snippet_fails_one_test_at_the_block_limit_naming_the_loop(pytester):
    pytester.makefile(".yml", mkdocs=CONFIG)
    pytester.makeini("[pytest]\npythonpath = snippets\ntimeout = 900\naddopts = -p no:codeblocks -p no:randomly\n")
    for folder in ("docs", "snippets", "tests"):
        pytester.mkdir(folder)
    (pytester.path / "snippets" / "spin.py").write_text(SNIPPET, encoding="utf-8")
    (pytester.path / "tests" / "test_spin.py").write_text(TEST, encoding="utf-8")
    result = pytester.runpytest_subprocess("tests", "-n", "0", "-rs", timeout=120)
    out = result.stdout.str()
    loop = r"snippets/spin\.py:(3|4)"  # the loop's test or its body, where the signal came
    assert re.search(rf"^tests/test_spin\.py:10: stopped after 4 s, the test's time limit \(block_timeout in mkdocs\.yml\), "
                     rf"while running {loop} \(in spin\)\nthe journal lines running, innermost first:\n"
                     rf"  {loop} in spin: .*\n  tests/test_spin\.py:10 in test_spin: spin\(\)$", out, re.M), out[-2000:]
    # The same loop again, in a test of a 600 s limit: stopped after SAME_LOOP_SECONDS (else the run's 120 s end it), a skip naming
    # the test that failed there.
    assert "stopped in snippets/spin.py:1, where tests/test_spin.py::test_spin ran past its time limit" in out, out[-2000:]
    result.assert_outcomes(passed=1, failed=1, skipped=1)


def test_a_snippet_module_looping_at_import_is_one_collection_error_at_the_block_limit(pytester):
    """pytest-timeout limits a test's run, not its module's import: a snippet module whose own code loops hung the run for good."""
    pytester.makefile(".yml", mkdocs=CONFIG)
    pytester.makeini("[pytest]\npythonpath = snippets\ntimeout = 900\naddopts = -p no:codeblocks -p no:randomly\n")
    for folder in ("docs", "snippets", "tests"):
        pytester.mkdir(folder)
    (pytester.path / "snippets" / "spin.py").write_text(SNIPPET + "\n\nSPUN = spin()\n", encoding="utf-8")
    (pytester.path / "tests" / "test_spin.py").write_text(TEST, encoding="utf-8")
    (pytester.path / "tests" / "test_other.py").write_text("def test_other():\n    pass\n", encoding="utf-8")
    result = pytester.runpytest_subprocess("tests", "-n", "2", timeout=120)  # as make test: both workers collect, the run goes on
    out = result.stdout.str()
    assert re.search(r"importing it ran past 4 s, the block limit \(block_timeout in mkdocs\.yml\), while running "
                     r"snippets/spin\.py:(3|4) \(in spin\)", out), out[-2000:]
    assert "<frozen" not in out
    result.assert_outcomes(passed=1, errors=1)  # the other module collected and ran; the error once, not once a worker
