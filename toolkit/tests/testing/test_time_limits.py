"""A journal test that runs past its time limit fails naming the journal lines it was running, and the run goes on
(journal_tools/testing/time_limits.py, pytest-timeout)."""

from __future__ import annotations

import re

import pytest

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow  # pytest sessions in a subprocess

CONFIG = ("site_name: t\ntheme: material\nplugins:\n  - journal:\n      block_timeout: 2\nmarkdown_extensions:\n"
          "  - pymdownx.highlight:\n      pygments_lang_class: true\n"
          "  - pymdownx.superfences\n  - pymdownx.snippets:\n      check_paths: true\n      dedent_subsections: true\n")
SNIPPET = "def spin():\n    n = 0\n    while True:\n        n += 1\n"
TEST = "from spin import spin\n\n\ndef test_ok():\n    pass\n\n\ndef test_spin():\n    spin()\n"


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_looping_snippet_fails_its_test_at_the_block_limit_naming_the_loop(pytester, workers):
    pytester.makefile(".yml", mkdocs=CONFIG)
    pytester.makeini("[pytest]\npythonpath = snippets\ntimeout = 900\n"
                     "addopts = -p no:codeblocks -p no:randomly -p no:cacheprovider\n")
    pytester.mkdir("docs")
    pytester.mkdir("snippets")
    (pytester.path / "snippets" / "spin.py").write_text(SNIPPET, encoding="utf-8")
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_spin.py").write_text(TEST, encoding="utf-8")
    result = pytester.runpytest_subprocess("tests", "-n", workers, timeout=120)
    out = result.stdout.str()
    loop = r"snippets/spin\.py:(3|4)"  # the loop's test or its body, where the signal came
    assert re.search(rf"^tests/test_spin\.py:9: stopped after 2 s, the test's time limit \(block_timeout in mkdocs\.yml\), "
                     rf"while running {loop} \(in spin\)\nthe journal lines running, innermost first:\n"
                     rf"  {loop} in spin: .*\n  tests/test_spin\.py:9 in test_spin: spin\(\)$", out, re.M), out[-2000:]
    result.assert_outcomes(passed=1, failed=1)
