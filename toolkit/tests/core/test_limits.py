"""A block's time limit (core/page/limits.py): its source, a bad limit's report, the output kept.
sites/test_runaway_blocks.py drives the enforcement.
"""

from __future__ import annotations

import math

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.core.code.notebook import read_notebook
from journal_tools.core.code.parse import PageError, parse_page
from journal_tools.core.code.run import ChainResult, run_chain
from journal_tools.core.page import limits
from journal_tools.core.settings import ConfigError


def _page(journal, text, name="page.md"):
    settings, write = journal
    return parse_page(write(name, text), settings)


def test_the_plugins_default_applies_until_a_page_sets_its_own(journal):
    plain = _page(journal, "```python\n1\n```\n")
    assert plain.limit == limits.Limit(60.0, "block_timeout, the journal plugin's default")
    own = _page(journal, "---\ntitle: t\ntimeout: 2.5\n---\n```python\n1\n```\n", "own.md")
    assert own.limit == limits.Limit(2.5, "timeout in docs/own.md:3")
    assert own.limit.ran_past("block") == "the block ran past 2.5 s (limit: timeout in docs/own.md:3)"


@pytest.mark.parametrize("value", ["abc", "0", "-3", "true", ".nan", ".inf", "[1]"])
def test_a_bad_timeout_in_front_matter_names_its_line(journal, value):
    with pytest.raises(PageError, match=r"docs/page\.md:3: timeout: .* is not a number of seconds above 0"):
        _page(journal, f"---\ntitle: t\ntimeout: {value}\n---\n```python\n1\n```\n")


def test_seconds_accepts_positive_numbers_only():
    assert limits.seconds(2) == 2.0 and limits.seconds(0.5) == 0.5
    for bad in (True, 0, -1, math.inf, math.nan, "5", None):
        with pytest.raises(ValueError):
            limits.seconds(bad)


def test_block_timeout_in_mkdocs_yml_is_the_default_and_is_checked(journal, tmp_path):
    config = tmp_path / "mkdocs.yml"
    text = config.read_text(encoding="utf-8").replace("plugins:\n", "plugins:\n  - journal:\n      block_timeout: 7\n", 1)
    (tmp_path / "set.yml").write_text(text, encoding="utf-8")
    assert mkdocs_config.load(tmp_path / "set.yml").block_timeout == limits.Limit(7.0, "block_timeout in set.yml")
    (tmp_path / "bad.yml").write_text(text.replace("block_timeout: 7", "block_timeout: soon"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.yml: journal plugin option block_timeout: 'soon' is not a number"):
        mkdocs_config.load(tmp_path / "bad.yml")


def test_the_plugin_option_rejects_a_bad_value_as_mkdocs_reports_options():
    from journal_tools.mkdocs_plugin.plugin import JournalConfig

    config = JournalConfig()
    config.load_dict({"block_timeout": -5})
    failed, _ = config.validate()
    assert [key for key, _ in failed] == ["block_timeout"]
    assert "-5 is not a number of seconds above 0" in str(failed[0][1])


def test_a_notebook_sets_its_limit_in_its_metadata(journal, tmp_path):
    settings, _ = journal
    header = "# ---\n# jupyter:\n#   execution:\n#     timeout: {}\n# ---\n\n# %%\nprint(1)\n"
    good = tmp_path / "docs" / "nb.py"
    good.write_text(header.format(3), encoding="utf-8")
    assert read_notebook(good, settings).limit == limits.Limit(3.0, "execution.timeout in docs/nb.py:4")
    good.write_text(header.format("never"), encoding="utf-8")
    with pytest.raises(PageError) as found:
        read_notebook(good, settings)
    assert (found.value.path, found.value.line) == ("docs/nb.py", 4)
    assert found.value.problem.startswith("execution.timeout: 'never' is not a number"), found.value.problem


def test_bounded_output_keeps_the_head_and_says_what_was_cut():
    out = limits.BoundedOutput(limit=10)
    for _ in range(3):
        out.write("abcdefgh")
    assert out.getvalue() == "abcdefghab\n[output cut: 24 characters were printed; the first 10 are kept]\n"
    small = limits.BoundedOutput(limit=10)
    small.write("abc")
    assert small.getvalue() == "abc"


def test_a_block_printing_without_end_keeps_only_the_limit(journal):
    page = _page(journal, "```python\nfor _ in range(3000):\n    print('x' * 99)\n```\n\n```sh\nyes | head -c 300000\n```\n")
    result = ChainResult()
    run_chain(page, page.steps, result)
    for printed in (r.stdout for r in result.results):
        assert len(printed) < limits.OUTPUT_LIMIT + 200
        assert printed.endswith(f"[output cut: 300,000 characters were printed; the first {limits.OUTPUT_LIMIT:,} are kept]\n")
