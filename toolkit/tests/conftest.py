"""Fixtures of the toolkit's tests, which never read the author's docs/ or mkdocs.yml.

`journal`: small inline pages and a tiny mkdocs.yml. `fixture_build`: one strict build per
session of a frozen copy of the fixture journal, for the tests comparing it with another build
(under pytest-xdist the first worker builds, the others wait on a lock).
"""

from __future__ import annotations

from pathlib import Path

import material.plugins.blog.plugin  # noqa: F401  (see below)
import mkdocs.plugins  # noqa: F401
import pytest
from hypothesis.configuration import set_hypothesis_home_dir

import journal_tools.mkdocs_plugin.plugin  # noqa: F401
from journal_tools.compat import mkdocs_config
from journal_tools.testing.site import Built, session_build

from fixture_journal import fixture_project

# pytester's in-process runs drop the modules first imported in them: were MkDocs' plugin module, the blog
# and the journal plugin first imported in one, a later build in the same worker would see two BasePlugin
# classes ("JournalPlugin must be a subclass of BasePlugin"). They are imported here, before any such run.
# The fixture journal runs in copies of it, never in this suite.
collect_ignore = ["fixtures"]

# Hypothesis' files (its example database, caches) go under the project's .cache/, with
# the build's, instead of a .hypothesis/ folder wherever pytest is started.
set_hypothesis_home_dir(Path(__file__).resolve().parents[2] / ".cache" / "hypothesis")

CONFIG = """\
site_name: t
site_url: https://example.org/j/
theme: material
plugins:
  - blog:
      categories_allowed: [Attention]
      post_excerpt: required
markdown_extensions:
  - journal_tools.core.markup.markdown_math
  - pymdownx.highlight:
      pygments_lang_class: true
  - pymdownx.superfences
  - pymdownx.snippets:
      base_path: [snippets]
      check_paths: true
      restrict_base_path: true
      dedent_subsections: true
"""


@pytest.fixture
def journal(tmp_path):
    """A tiny journal: mkdocs.yml, docs/, snippets/demo.py; returns its Settings and a page writer."""
    (tmp_path / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "docs" / "blog" / "posts").mkdir(parents=True)
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "demo.py").write_text("# --8<-- [start:two]\nx = 2\n# --8<-- [end:two]\n", encoding="utf-8")
    settings = mkdocs_config.load(tmp_path / "mkdocs.yml")

    def write(name: str, text: str):
        path = tmp_path / "docs" / name
        path.write_text(text, encoding="utf-8")
        return path

    return settings, write



@pytest.fixture(scope="session")
def fixture_build(tmp_path_factory) -> Built:
    """The fixture journal built once per session; the test asserts on ``returncode`` itself."""
    return session_build(tmp_path_factory, "fixture-build", fixture_project)


def pytest_terminal_summary(terminalreporter):
    """The fuzz test's example count, here where reports arrive (the xdist controller)."""
    runs = [dict(r.user_properties) for r in terminalreporter.stats.get("passed", [])
            if any(key == "fuzz_examples" for key, _ in r.user_properties)]
    if runs:
        terminalreporter.section("fuzzed pages")
        for props in runs:
            terminalreporter.write_line(f"{props['fuzz_examples']} generated pages went through every page reader "
                                        f"({props['fuzz_mode']}); each ended in a pass or a path:line error")
            terminalreporter.write_line(f"  passed/located errors per step: {props['fuzz_steps']}")


@pytest.fixture
def run_notebook():
    """A download's .ipynb run by nbclient in a fresh kernel in its own folder: the executed notebook (a failing cell raises)."""
    import nbclient
    import nbformat

    def run(path):
        nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
        nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
        return nb
    return run
