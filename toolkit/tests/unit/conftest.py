"""The fast unit layer: small inline pages and a tiny mkdocs.yml in tmp_path, no site build."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir

from journal_tools.compat import mkdocs_config

# Hypothesis' files (its example database, caches) go under the project's .cache/, with
# the build's, instead of a .hypothesis/ folder wherever pytest is started.
set_hypothesis_home_dir(Path(__file__).resolve().parents[3] / ".cache" / "hypothesis")

CONFIG = """\
site_name: t
site_url: https://example.org/j/
theme: material
plugins:
  - blog:
      categories_allowed: [Attention]
      post_excerpt: required
markdown_extensions:
  - journal_tools.core.markdown_math
  - pymdownx.highlight:
      pygments_lang_class: true
  - pymdownx.superfences
  - pymdownx.snippets:
      base_path: [snippets]
      check_paths: true
      restrict_base_path: true
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
