"""journal_tools/mkdocs_plugin/notebooks.py: the post-processing of notebook pages."""

import re
from types import SimpleNamespace

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.mkdocs_plugin import notebooks

from fixture_journal import FIXTURE


def test_strip_jupyter_assets_keeps_content():
    html = (
        '<style type="text/css">.x{color:red}</style><script src=""> </script>'
        '<script type="text/x-mathjax-config">init_mathjax()</script>'
        '<script type="module">import("mermaid")</script><p>kept</p>'
        '<div class="highlight-ipynb hl-python"><pre><span></span><span class="kn">import</span>'
        '<span class="w"> </span><span class="nn">torch</span>\n</pre></div>'
        '<div class="clipboard-copy-txt" id="cell-1">import torch</div>'
    )
    out = notebooks.strip_jupyter_assets(html)
    assert "<style" not in out and "<script" not in out and "<p>kept</p>" in out
    assert '<div class="highlight"><pre><code><span class="kn">import</span> <span class="nn">torch</span>' in out
    assert out.count("<div") == out.count("</div>")
    assert "clipboard-copy-txt" not in out


def test_markdown_cells_use_the_site_markdown(monkeypatch):
    """Math as MathML, code left alone, heading ids as Python-Markdown's toc makes them
    (the ids mkdocs-jupyter's TOC links to)."""
    from mkdocs_jupyter import nbconvert2


    monkeypatch.setattr(nbconvert2, "HTMLExporter", nbconvert2.HTMLExporter)  # restored after the test
    notebooks.install_markdown(mkdocs_config.load(FIXTURE / "mkdocs.yml"))
    exporter = nbconvert2.HTMLExporter()
    out = exporter.markdown2html({}, "## Check 2: `nn.Linear` weights\n\nWeights $W^Q$ and `$not math$`.\n\n$$\nA = Q K^{\\top}\n$$\n")
    assert out.count("<math") == 2 and "$W^Q$" not in out
    assert 'class="math-display"' in out and re.search(r'<math [^>]*display="block"', out)
    assert "<code>$not math$</code>" in out
    assert 'id="check-2-nnlinear-weights"' in out


def test_md_links_resolve_and_unknown_fails():
    page_file = SimpleNamespace(src_uri="notebooks/nb.py")
    target = SimpleNamespace(url_relative_to=lambda f: "../../blog/2025/07/26/x/")
    files = SimpleNamespace(get_file_from_path=lambda p: target if p == "blog/posts/x.md" else None)
    page = SimpleNamespace(file=page_file)
    out = notebooks.resolve_md_links('<a href="../blog/posts/x.md#sec">x</a>', page=page, files=files)
    assert out == '<a href="../../blog/2025/07/26/x/#sec">x</a>'
    with pytest.raises(notebooks.NotebookError):
        notebooks.resolve_md_links('<a href="../nope.md">x</a>', page=page, files=files)


def test_a_notebook_runs_in_a_fresh_folder_and_this_process_stays_where_it_is(monkeypatch):
    """nbclient starts the kernel in the folder the exporter names; the process itself must not move: make serve executes a
    notebook in a thread while MkDocs rebuilds, and a rebuild then found no mkdocs.yml in the working folder."""
    import os

    import nbformat
    from mkdocs_jupyter import nbconvert2

    monkeypatch.setattr(nbconvert2, "HTMLExporter", nbconvert2.HTMLExporter)  # restored after the test
    base = nbconvert2.HTMLExporter
    seen = {}

    def converted(self, nb, resources=None, **kwargs):  # what nbconvert's own conversion is handed, and where this process is
        seen.update(cwd=os.getcwd(), path=resources["metadata"]["path"], exists=os.path.isdir(resources["metadata"]["path"]))
        return "", resources

    monkeypatch.setattr(base, "from_notebook_node", converted)
    notebooks.install_markdown(mkdocs_config.load(FIXTURE / "mkdocs.yml"))
    before = os.getcwd()
    nbconvert2.HTMLExporter().from_notebook_node(nbformat.v4.new_notebook())
    assert seen["cwd"] == before and seen["exists"] and seen["path"] != before  # the kernel's folder, made for it
    assert os.getcwd() == before


def test_a_notebooks_written_numbers_are_checked_once_and_not_while_its_page_test_holds(tmp_path):
    """make build (prose.notebook_mismatches): a wrong number at its line; an unchanged notebook is not run again (make serve's
    rebuilds); a notebook whose passed page test holds is not run at all."""
    import shutil

    from journal_tools.core.code.notebook import run_notebook
    from journal_tools.mkdocs_plugin import prose

    root = shutil.copytree(FIXTURE, tmp_path / "journal")
    src = root / "docs" / "notebooks" / "numbers.py"
    src.write_text("# %%\nx = 2\n\n# %% [markdown]\n# Twice one is [3]{= x}, once [2]{= x}.\n", encoding="utf-8")
    settings = mkdocs_config.load(root / "mkdocs.yml")
    runs = []

    class InProcess:  # the worker's run, in this process
        def run_notebook(self, nb, ran, **_):
            runs.append(nb.path)
            shown = []
            run_notebook(nb, ran, shown=shown)
            return shown

    held = SimpleNamespace(held=lambda *_: ("inputs", {}), latest=lambda *_: None)
    unheld = SimpleNamespace(held=lambda *_: None, latest=lambda *_: None)
    seen = {}
    found = prose.notebook_mismatches(src, settings, unheld, InProcess, seen)
    assert [str(m).split(";")[0] for m in found] == [
        "docs/notebooks/numbers.py:5: the number written is 3 but `x` gives 2"]
    assert prose.notebook_mismatches(src, settings, unheld, InProcess, seen) == found and len(runs) == 1
    assert prose.notebook_mismatches(src, settings, held, InProcess, {}) == [] and len(runs) == 1
    # a pass is kept as a chain's row, which a test build's copy of the record carries: not run again without the page test's row
    from journal_tools.core.record.inputs import Record

    src.write_text("# %%\nx = 2\n\n# %% [markdown]\n# Twice one is [2]{= x}, once [2]{= x}.\n", encoding="utf-8")
    record = Record(root)
    assert prose.notebook_mismatches(src, settings, record, InProcess, {}) == [] and len(runs) == 2
    assert prose.notebook_mismatches(src, settings, record, InProcess, {}) == [] and len(runs) == 2
