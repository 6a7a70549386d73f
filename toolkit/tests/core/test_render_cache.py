"""Remembered render checks (journal_tools/core/code/render_record.py): reused only while every input is the same."""

from __future__ import annotations

import shutil

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.core.code.render_record import RenderChecks

pytest_plugins = ["pytester"]

PAGE = "# A page\n\n$$x^2$$\n\n```python\n--8<-- \"demo.py:two\"\nprint(x)\n```\n"


@pytest.fixture
def project(journal, monkeypatch):
    monkeypatch.delenv("FRESH", raising=False)
    monkeypatch.delenv("CI", raising=False)
    settings, write = journal
    write("page.md", PAGE)
    return settings


def test_a_passed_check_is_reused_and_any_input_change_misses(project, tmp_path_factory):
    checks = RenderChecks(project)
    key = checks.key("docs/page.md", PAGE)
    assert not checks.passed(key)
    checks.record(key)
    again = RenderChecks(project)  # the next session
    assert again.passed(again.key("docs/page.md", PAGE)) and again.reused == 1
    assert not again.passed(again.key("docs/page.md", PAGE.replace("x^2", "x^3")))  # the page (or a snippet it includes)
    assert not again.passed(again.key("docs/other.md", PAGE))  # another page's check

    # The Markdown settings, in a copy of the project (Settings.load remembers a config by path).
    copy = tmp_path_factory.mktemp("changed")
    shutil.copytree(project.root, copy, dirs_exist_ok=True)
    config = copy / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("pygments_lang_class: true", "pygments_lang_class: false"),
                      encoding="utf-8")
    changed = RenderChecks(mkdocs_config.load(config))
    assert changed.folder != checks.folder and (changed.folder / key[:2] / key).is_file()  # copied along
    assert not changed.passed(changed.key("docs/page.md", PAGE))


def test_fresh_and_ci_remember_nothing(project, monkeypatch):
    checks = RenderChecks(project)
    key = checks.key("docs/page.md", PAGE)
    checks.record(key)
    for name in ("FRESH", "CI"):
        monkeypatch.setenv(name, "1")
        assert not RenderChecks(project).passed(key), name
        monkeypatch.delenv(name)
    assert RenderChecks(project).passed(key)


def test_a_page_whose_render_broke_is_checked_again(pytester, journal, monkeypatch):
    """Through the plugin: a passed page is not rendered again; after an edit that breaks its math,
    the next run renders it and fails at the formula's line."""
    monkeypatch.delenv("FRESH", raising=False)
    monkeypatch.delenv("CI", raising=False)
    root = pytester.path
    (root / "mkdocs.yml").write_text((journal[0].root / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    (root / "docs").mkdir()
    (root / "snippets").mkdir()
    (root / "snippets" / "demo.py").write_text("# --8<-- [start:two]\nx = 2\n# --8<-- [end:two]\n", encoding="utf-8")
    page = root / "docs" / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    args = ["-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:codeblocks", "docs/page.md"]
    pytester.runpytest(*args).assert_outcomes(passed=2)
    assert list((root / ".cache" / "render-checks").rglob("*"))  # remembered
    page.write_text(PAGE.replace("$$x^2$$", "$$\\frac{x$$"), encoding="utf-8")
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=1, failed=1)
    assert "docs/page.md:3" in result.stdout.str()
