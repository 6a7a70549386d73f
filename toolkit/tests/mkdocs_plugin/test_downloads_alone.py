"""An entry's downloads run alone (mkdocs_plugin/downloads.py): in an empty folder with only their
header's packages they print what the page shows, carry the files the page's code read (one too
big stops the strict build at the page's line), and show links and citations as the site does.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

from journal_tools.compat import mkdocs_config
from journal_tools.core.code.parse import parse_page
from journal_tools.core.code.run import ChainResult
from journal_tools.core.code.seed_check import run_checked
from journal_tools.core.page.limits import Limit
from journal_tools.mkdocs_plugin import download_data
from journal_tools.mkdocs_plugin.downloads import ReadFile, make
from journal_tools.testing.downloads import needed, script_problems

from fixture_journal import minimal_extensions

pytest.importorskip("torch", reason="the pages below print PyTorch tensors")

TORCH_PAGE = '''\
# Torch alone

```python
import random

import torch

random.seed(1)
torch.manual_seed(0)
print(torch.rand(2), round(random.random(), 4))
```

<!--pytest-codeblocks:expected-output-->

```text
tensor([0.4963, 0.7682]) 0.1344
```
'''

SAMPLE_TEXT = '''\
"""A snippet module that reads a file of the journal, beside it."""

from pathlib import Path

SAMPLE = Path(__file__).parent / "data" / "sample.txt"
WEIGHTS = Path(__file__).parent / "data" / "weights.bin"


def first_line():
    return SAMPLE.read_text(encoding="utf-8").splitlines()[0]


def weight_sum():
    return sum(WEIGHTS.read_bytes())
'''

DATA_PAGE = '''\
# A page that reads a file

```python
from sample_text import first_line, weight_sum

print(first_line(), weight_sum())
```

<!--pytest-codeblocks:expected-output-->

```text
Your journey starts with one step 32640
```
'''

READ = [Path("snippets/data/sample.txt"), Path("snippets/data/weights.bin")]


def _run_page(path, settings):
    """The page passes its own tests (as the page tests' worker runs it: snippets on sys.path)."""
    page = parse_page(path, settings)
    for step in page.steps:
        run_checked(page, [step], ChainResult())
    return page


def _with_config(settings, **keys):
    """The journal's settings with ``keys`` added to its mkdocs.yml (a list is appended to)."""
    config = yaml.safe_load(settings.config_file.read_text(encoding="utf-8"))
    for key, value in keys.items():
        config[key] = config.get(key, []) + value if isinstance(value, list) else value
    changed = settings.root / "mkdocs-changed.yml"  # a new file: mkdocs_config.load caches per file
    changed.write_text(yaml.safe_dump(config), encoding="utf-8")
    return mkdocs_config.load(changed)


def _written(folder: Path, made, name: str) -> tuple[Path, Path]:
    (folder / "downloads").mkdir(parents=True, exist_ok=True)
    script, notebook = folder / "downloads" / f"{name}.py", folder / "downloads" / f"{name}.ipynb"
    script.write_text(made.script, encoding="utf-8")
    notebook.write_text(made.notebook, encoding="utf-8")
    return script, notebook


@pytest.fixture
def torch_page(journal, tmp_path):
    settings, write = journal
    (settings.root / "requirements.txt").write_text("mkdocs==1.6.1\ntorch==2.13.0\nplaywright==1.65.2\n", encoding="utf-8")
    path = write("torch_alone.md", TORCH_PAGE)
    return path, settings, _run_page(path, settings)


def test_the_header_names_only_what_the_code_imports_pinned(torch_page):
    path, settings, _ = torch_page
    made = make(path, settings)
    assert "# Needs: torch==2.13.0 (pip install torch==2.13.0)" in made.script.split("\n")
    assert needed(made.script) == ["torch"]
    assert "numpy" not in made.script  # neither imported nor seeded: the reader may not have it


def test_a_torch_page_runs_alone_with_torch_alone(torch_page, tmp_path):
    path, settings, page = torch_page
    made = make(path, settings)
    script, _ = _written(tmp_path / "out", made, "torch_alone")
    assert script_problems(script, made, page) == []


def test_the_run_alone_sees_nothing_the_header_does_not_name(torch_page, tmp_path):
    """The isolation itself: an import of a package installed here but not named fails."""
    path, settings, page = torch_page
    made = make(path, settings)
    script, _ = _written(tmp_path / "out", made, "torch_alone")
    script.write_text(made.script.replace("import torch\n", "import torch\nimport yaml\n", 1), encoding="utf-8")
    *_, raised = script_problems(script, made, page)  # the outputs it never printed, then why
    assert "the script raised" in raised.message and "No module named 'yaml'" in raised.message


@pytest.fixture
def data_page(journal, monkeypatch):
    settings, write = journal
    snippets = settings.root / "snippets"
    (snippets / "sample_text.py").write_text(SAMPLE_TEXT, encoding="utf-8")
    (snippets / "data").mkdir()
    (snippets / "data" / "sample.txt").write_text("Your journey starts with one step\nsecond line\n", encoding="utf-8")
    (snippets / "data" / "weights.bin").write_bytes(bytes(range(256)))  # not text: carried as base64
    monkeypatch.syspath_prepend(str(snippets))
    monkeypatch.delitem(__import__("sys").modules, "sample_text", raising=False)
    path = write("reads_a_file.md", DATA_PAGE)
    return path, settings, _run_page(path, settings)


def test_a_page_that_reads_files_gets_downloads_that_carry_them(data_page, tmp_path, run_notebook):
    path, settings, page = data_page
    made = make(path, settings, READ)
    assert "journal_file('snippets/data/sample.txt', r'''" in made.script  # text stays readable
    assert "journal_file('snippets/data/weights.bin', base64.b64decode(" in made.script
    script, notebook = _written(tmp_path / "out", made, "reads_a_file")
    assert script_problems(script, made, page) == []
    assert run_notebook(notebook)  # its cells write the files in where the notebook runs, as the .py does


def test_without_the_files_read_the_download_fails_where_it_reads(data_page, tmp_path):
    path, settings, page = data_page
    made = make(path, settings)
    script, _ = _written(tmp_path / "out", made, "reads_a_file")
    *_, raised = script_problems(script, made, page)
    assert "FileNotFoundError" in raised.message and "sample.txt" in raised.message


def test_a_file_above_the_limit_is_a_mistake_at_the_page_line_and_the_download_says_where(data_page, tmp_path):
    path, settings, page = data_page
    settings = _with_config(settings, repo_url="https://github.com/example/j")
    (settings.root / "snippets" / "data" / "weights.bin").write_bytes(b"\0" * (download_data.LIMIT + 1))
    made = make(path, settings, [READ[0], ReadFile(READ[1], 3)])
    (mistake,) = made.too_big
    assert (mistake.path, mistake.line) == ("docs/reads_a_file.md", 3)
    assert "snippets/data/weights.bin" in mistake.problem and f"{download_data.LIMIT:,} bytes" in mistake.problem
    url = "https://github.com/example/j/blob/HEAD/snippets/data/weights.bin"
    assert f"# {url}" in made.script
    script, _ = _written(tmp_path / "out", made, "reads_a_file")
    *_, raised = script_problems(script, made, page)
    assert f"is not in this download: get it from {url}" in raised.message


# -- in the build ----------------------------------------------------------------------

POST = '''\
---
date: 2025-07-27
---

# Reads a file

Reads it.

<!-- more -->

''' + DATA_PAGE.split("\n", 2)[2]


def _build(tmp_path, files_read, strict=True):
    root = tmp_path / "site-src"
    (root / "docs" / "posts").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (root / "docs" / "posts" / "reads.md").write_text(POST, encoding="utf-8")
    (root / "snippets" / "data").mkdir(parents=True)
    (root / "snippets" / "sample_text.py").write_text(SAMPLE_TEXT, encoding="utf-8")
    (root / "snippets" / "data" / "sample.txt").write_text("Your journey starts with one step\n", encoding="utf-8")
    (root / "snippets" / "data" / "weights.bin").write_bytes(bytes(range(256)))
    conf = {"site_name": "t", "site_url": "https://example.org/j/", "repo_url": "https://github.com/example/j",
            "theme": {"name": "material", "font": False},
            "plugins": ["journal", {"blog": {"blog_dir": ".", "post_excerpt": "required"}}],
            "markdown_extensions": [*minimal_extensions()[:-1],
                                    {"pymdownx.snippets": {"base_path": ["snippets"], "check_paths": True,
                                                           "dedent_subsections": True}}]}
    (root / "mkdocs.yml").write_text(yaml.safe_dump(conf), encoding="utf-8")
    config = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"), strict=strict)
    config.plugins.on_startup(command="build", dirty=False)
    asked = []

    def read(rel):
        asked.append(rel)
        return files_read(root)

    config.plugins["journal"].files_read = read
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()
    return root, asked


def test_the_build_carries_the_files_the_plugin_is_told_were_read(tmp_path):
    root, asked = _build(tmp_path, lambda root: READ)
    assert asked == ["docs/posts/reads.md"]
    script = (root / "site" / "downloads" / "reads.py").read_text(encoding="utf-8")
    assert "journal_file('snippets/data/sample.txt'" in script and "journal_file('snippets/data/weights.bin'" in script


def test_a_file_above_the_limit_fails_the_strict_build_at_the_page_line(tmp_path, caplog):
    def big(root):
        (root / "snippets" / "data" / "weights.bin").write_bytes(b"\0" * (download_data.LIMIT + 1))
        return [READ[0], ReadFile(READ[1], 13)]

    with caplog.at_level(logging.WARNING), pytest.raises(Abort):
        _build(tmp_path, big)
    (warning,) = [r.getMessage() for r in caplog.records if "above the downloads' limit" in r.getMessage()]
    assert warning.startswith("docs/posts/reads.md:13: snippets/data/weights.bin, which this page's code reads, is 1,048,577 bytes")


# -- the notebook's prose --------------------------------------------------------------

def test_a_block_that_never_ends_is_stopped_at_the_page_s_limit(torch_page, tmp_path):
    path, settings, page = torch_page
    made = make(path, settings)
    script, notebook = _written(tmp_path / "out", made, "torch_alone")
    lines = made.script.split("\n")
    first = made.placed[0].lines.start - 1
    lines[first] = "while True: pass  # " + lines[first]  # the same line count: the blocks keep their lines
    script.write_text("\n".join(lines), encoding="utf-8")
    short = dataclasses.replace(page, limit=Limit(2, "timeout in docs/torch_alone.md:2"))
    *_, raised = script_problems(script, made, short, timeout=120)
    assert f"torch_alone.py:{first + 1}" in raised.where and "TimeoutError: the block ran past 2 s" in raised.message


def test_a_file_read_before_and_gone_now_is_the_page_s_mistake_not_the_build_s(data_page):
    """make serve carries what the newest run read: a data file renamed away since must not stop every page's build."""
    path, settings, _ = data_page
    gone = settings.root / "snippets" / "data" / "sample.txt"
    gone.rename(gone.with_name("renamed.txt"))
    made = make(path, settings, READ)
    assert "journal_file('snippets/data/weights.bin'" in made.script and "journal_file('snippets/data/sample.txt'" not in made.script
