"""The notebook cache re-executes a notebook exactly when it or a file its code read changes: a
snippet it imports, a data file it opens (on the fixture journal, toolkit/tests/fixtures/journal).
What the code read is what its page test saw it read; before any, every snippet file counts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from journal_tools.testing.site import ENV, mkdocs_build

from fixture_journal import fixture_project

pytestmark = pytest.mark.slow  # builds a site three times, executing notebooks

USES_SNIPPET = """# %% [markdown]
# # Uses a snippet

# %%
from pathlib import Path

import weights
from weights import softmax_rows

print(softmax_rows)
print((Path(weights.__file__).parent / "data" / "numbers.txt").read_text())
"""

NO_SNIPPET = """# %% [markdown]
# # Uses no snippet

# %%
print(6 * 7)
"""


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
    (tmp_path / "snippets" / "data").mkdir()
    (tmp_path / "snippets" / "data" / "numbers.txt").write_text("1 2 3\n")
    return tmp_path


def _page_tests(project: Path) -> None:
    """The notebooks' page tests: what their code reads is recorded."""
    env = {k: v for k, v in ENV.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    proc = subprocess.run([sys.executable, "-m", "pytest", "docs/notebooks", "-p", "no:randomly", "-p", "no:cacheprovider",
                           "-q"], cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, proc.stdout


def test_rebuild_executes_only_what_changed(project):
    first = _build(project)
    assert _executed(first) == {"fixture_notebook.py", "plain_numbers.py"}

    unchanged = _build(project)
    assert _executed(unchanged) == set(), "an unchanged rebuild must execute no notebook"
    assert unchanged.count("Cache hit") == 2

    data = project / "snippets/data/numbers.txt"
    data.write_text("4 5 6\n")  # before any page test: keyed on every snippet file
    assert _executed(_build(project)) == {"fixture_notebook.py", "plain_numbers.py"}

    _page_tests(project)  # now keyed on what each one's code was seen to read
    assert _executed(_build(project)) == {"fixture_notebook.py", "plain_numbers.py"}
    assert _executed(_build(project)) == set()

    snippet = project / "snippets/weights.py"
    snippet.write_text(snippet.read_text() + "\n# edited\n")
    assert _executed(_build(project)) == {"fixture_notebook.py"}, "only the notebook importing weights.py re-executes"
    data.write_text("7 8 9\n")
    assert _executed(_build(project)) == {"fixture_notebook.py"}, "only the notebook reading numbers.txt re-executes"
    (project / "snippets" / "unrelated.txt").write_text("read by no notebook")
    assert _executed(_build(project)) == set()
