"""The notebook cache re-executes a notebook exactly when it or a snippet it imports changes
(on the fixture journal, toolkit/tests/fixtures/journal)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from journal_tools.core.code import imports
from journal_tools.testing.site import mkdocs_build

from fixture_journal import FIXTURE, fixture_project

pytestmark = pytest.mark.slow  # builds a site three times, executing notebooks

USES_SNIPPET = """# %% [markdown]
# # Uses a snippet

# %%
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd() / "snippets"))
from weights import softmax_rows

print(softmax_rows)
"""

NO_SNIPPET = """# %% [markdown]
# # Uses no snippet

# %%
print(6 * 7)
"""


def test_fixture_notebook_imports_are_found():
    found = {p.name for p in imports.imported_snippets(FIXTURE / "docs/notebooks/fixture_notebook.py", FIXTURE / "snippets")}
    assert found == {"weights.py"}


def test_snippet_imports_are_followed(tmp_path):
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("from c import x\nimport torch\n")
    (tmp_path / "c.py").write_text("x = 1\n")
    (tmp_path / "unused.py").write_text("y = 2\n")
    nb = tmp_path / "nb.py"
    nb.write_text("# %%\nimport a\nimport os\n")
    assert [p.name for p in imports.imported_snippets(nb, tmp_path)] == ["a.py", "b.py", "c.py"]


def _build(project: Path) -> str:
    """`mkdocs build --strict -v` (a fork of the warm builder: each build as clean as a new process); its log."""
    result = mkdocs_build(project, project / "site", verbose=True)
    assert result.returncode == 0, result.stdout
    return result.stdout


def _executed(log: str) -> set[str]:
    return {Path(p).name for p in re.findall(r"Cache miss, writing: (\S+)", log)}


@pytest.fixture
def project(tmp_path):
    fixture_project(tmp_path, caches=False)  # what is executed is what this test is about
    notebooks = tmp_path / "docs/notebooks"
    for old in notebooks.glob("*.py"):
        old.unlink()
    (notebooks / "fixture_notebook.py").write_text(USES_SNIPPET)  # the name in nav
    (notebooks / "plain_numbers.py").write_text(NO_SNIPPET)
    # The entry's figure is not what this test is about: with no cache, it would be drawn too.
    entry = next((tmp_path / "docs/blog/posts").glob("*-fixture-entry.md"))
    text = entry.read_text(encoding="utf-8")
    assert "<!-- journal:figure " in text, "the fixture entry has no figure to leave out"
    entry.write_text(re.sub(r"(?m)^<!-- journal:figure .*\n", "", text), encoding="utf-8")
    return tmp_path


def test_rebuild_executes_only_what_changed(project):
    first = _build(project)
    assert _executed(first) == {"fixture_notebook.py", "plain_numbers.py"}

    unchanged = _build(project)
    assert _executed(unchanged) == set(), "an unchanged rebuild must execute no notebook"
    assert unchanged.count("Cache hit") == 2

    snippet = project / "snippets/weights.py"
    snippet.write_text(snippet.read_text() + "\n# edited\n")
    edited = _build(project)
    assert _executed(edited) == {"fixture_notebook.py"}, "only the notebook importing weights.py re-executes"
