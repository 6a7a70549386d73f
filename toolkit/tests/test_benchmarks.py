"""The benchmarks of `make bench` still find what they measure.

Why: `make bench` runs rarely and for minutes, so a moved path surfaced only there. Each row's
set-up runs here on its smallest input, building nothing: the copies, the configs it writes, and
every command line it starts (scripts, modules and paths exist; make targets resolve with -n).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from mkdocs.config import load_config

from benchmarks import (
    common,
    doctests,
    notebook_build,
    page_tests_large,
    page_weight,
    plugin_build,
    run,
    serve_floor,
    serve_hang,
    serve_loop,
    suite_cost,
    synthetic,
)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The benchmarks' copy of the project (run.py makes it first, every row reads it)."""
    return common.snapshot(tmp_path_factory.mktemp("bench") / "project")


def test_the_project_copy_holds_what_a_build_and_the_page_tests_read(project):
    missing = [name for name in common.COPY if not (common.REPO / name).exists()]
    assert not missing, f"benchmarks/common.py copies paths the journal lacks: {missing}"
    assert (project / "mkdocs.yml").is_file() and list((project / "docs" / "blog" / "posts").glob("*.md"))
    assert (project / ".cache" / "fonts").is_dir() == (common.REPO / ".cache" / "fonts").is_dir()


def test_make_bench_runs_the_driver_that_knows_every_row():
    makefile = (common.REPO / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^bench:.*\n\t(.+)$", makefile, re.M).group(1)
    script = next(word for word in recipe.split() if word.endswith(".py"))
    assert (common.REPO / script).resolve() == Path(run.__file__).resolve(), f"make bench runs {script}"
    assert run.FULL.keys() == run.QUICK.keys()


def _loads(config_file: Path) -> None:
    """MkDocs loads it: every plugin, extension and theme folder it names resolves."""
    load_config(str(config_file))


def test_row_1_configs_load_and_plain_is_plain(project):
    journal, plain = plugin_build.configs(project)
    config = yaml.safe_load(plain.read_text(encoding="utf-8"))
    assert Path(config["theme"]["custom_dir"]).is_dir(), "row 1's plain build finds the plugin's templates there"
    assert not {common.plugin_name(p) for p in config["plugins"]} & {"journal", "journal-serve", "mkdocs-jupyter"}
    assert not set(map(str, config["markdown_extensions"])) & set(plugin_build.MATH_EXTENSIONS)
    for path in (journal, plain):
        _loads(path)


def test_row_1_plain_config_finds_every_template_a_page_names(project):
    """The plain build renders the same pages without the journal plugin, which makes home.html from Material's blog.html:
    a template a page names (docs/index.md: `template: home.html`) must be found without it (it was not: TemplateNotFound)."""
    _, plain = plugin_build.configs(project)
    env = load_config(str(plain)).theme.get_env()
    named = {m.group(1) for page in (project / "docs").rglob("*.md")
             for m in re.finditer(r"^template:\s*(\S+)\s*$", page.read_text(encoding="utf-8"), re.M)}
    assert "home.html" in named, "the journal's home page no longer names its template: update this test"
    for name in sorted(named):
        env.get_template(name)  # raises TemplateNotFound


def test_row_3_configs_and_worker(project):
    config = common.load_config(project)
    assert common.has_plugin(config, notebook_build.PLUGIN), "row 3 reports n/a without the notebook plugin"
    for path in notebook_build.configs(project, config):
        _loads(path)
    assert notebook_build.WORKER.is_file()


def test_the_synthetic_journal_with_two_entries(project, tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr(synthetic, "fill_figure_cache", drawn.append)  # draws figures: PyTorch in a child
    dest = page_tests_large.make_project(project, tmp_path / "synthetic", 2)
    assert drawn == [dest]
    assert len(list((dest / "docs" / "blog" / "posts").glob("*-synthetic-*.md"))) == 2
    assert not [n for n in page_tests_large.RECORDS if (dest / ".cache" / n).exists()]
    config = common.load_config(dest)
    assert not common.has_plugin(config, "mkdocs-jupyter")
    _loads(dest / "mkdocs.yml")
    assert page_tests_large.edited_entry(dest).name.endswith("-synthetic-1.md")


def test_the_figure_cache_fill_finds_the_figures_and_snippets(project):
    from journal_tools.compat import mkdocs_config
    from journal_tools.core.code import figures

    settings = mkdocs_config.load(project / "mkdocs.yml")
    assert settings.docs_dir.is_dir() and all(Path(d).is_dir() for d in settings.snippet_dirs)
    assert callable(figures.find_figures) and callable(figures.prepare)


def _module_resolves(args: list[str]) -> None:
    assert args[0] == "-m" and importlib.util.find_spec(args[1]) is not None, args[:2]


def test_row_5_and_8_page_test_commands(project):
    _module_resolves(doctests.PYTEST)
    paths = [a.split("=", 1)[-1] for a in doctests.PYTEST if a == "docs" or a.startswith("--ignore=")]
    assert paths and all((project / p).is_dir() for p in paths), paths
    assert doctests.RUNNER.is_file()
    scripts, blocks = doctests.write_scripts(project, project.parent / "page-scripts")
    assert scripts and blocks
    _module_resolves(page_tests_large.PYTEST)
    assert (project / "docs").is_dir() and "testpaths=docs" in page_tests_large.PYTEST


def test_rows_7_9_11_edit_files_that_exist(project):
    snippet = project / serve_loop.SNIPPET
    assert (project / serve_loop.ENTRY).is_file() and snippet.is_file()
    assert serve_loop.SNIPPET_ANCHOR in snippet.read_text(encoding="utf-8")
    assert serve_hang.ENTRY == serve_floor.ENTRY == serve_loop.ENTRY
    assert page_weight._theme_dir() is not None and page_weight._theme_dir().is_dir()


def test_row_10_clone_like_copy_and_its_make_targets(tmp_path):
    copy = suite_cost.copy_repository(tmp_path / "clone")
    assert (copy / "Makefile").is_file() and (copy / "toolkit" / "tests").is_dir()
    assert not (copy / ".venv").exists() and not (copy / "site").exists()
    assert sorted(p.name for p in (copy / ".cache").iterdir()) == (["fonts"] if (common.REPO / ".cache" / "fonts").is_dir() else [])
    for target in ("test", "test-toolkit"):
        proc = subprocess.run([*suite_cost.make_command(target), "-n"], cwd=copy, capture_output=True, text=True)
        assert proc.returncode == 0, f"`make {target}` in the copy: {proc.stderr}"
        assert "pytest" in proc.stdout
    assert suite_cost.edit_entry(copy).parent == copy / "docs" / "blog" / "posts"


def test_row_9_window_journal_holds_what_the_window_serves(project, tmp_path, monkeypatch):
    """Row 9 compares a large journal served through its window with a journal of the window's
    entries alone: those must be the very entries the window keeps."""
    from journal_tools.serve import window

    monkeypatch.setattr(synthetic, "fill_figure_cache", lambda dest: None)  # draws figures: PyTorch in a child
    big = synthetic.make_project(project, tmp_path / "big", 6)
    small = serve_floor._window_project(project, tmp_path / "small", 6, 4)

    class _Files(list):
        def documentation_pages(self):
            return list(self)

        def remove(self, f):
            list.remove(self, f)

    posts = big / "docs" / "blog" / "posts"
    files = _Files(type("F", (), {"src_uri": f"blog/posts/{p.name}", "abs_src_path": str(p)})() for p in posts.glob("*.md"))
    window.Window(4).apply(files, "blog/posts")
    assert sorted(f.src_uri.rsplit("/", 1)[1] for f in files) == sorted(p.name for p in (small / "docs/blog/posts").glob("*.md"))
    journal, plain = plugin_build.configs(small)
    for path in (journal, plain):
        _loads(path)
