"""journal_tools/notebooks.py: the post-processing of notebook pages."""

from types import SimpleNamespace

import pytest

from journal_tools import notebooks


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


def test_math_only_in_markdown_cells_and_not_in_code():
    cell = ('<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput" data-mime-type="text/markdown">'
            "<p>Weights $W^Q$ and <code>$not math$</code>:</p>\n<p>$$\nA = Q K^{\\top}\n$$</p></div>")
    other = '<div class="jp-OutputArea-output"><pre>cost: $5 and $6</pre></div>'
    out = notebooks.wrap_notebook_math(cell + other)
    assert '<span class="arithmatex">\\(W^Q\\)</span>' in out
    assert '<div class="arithmatex">\\[\nA = Q K^{\\top}\n\\]</div>' in out
    assert "<code>$not math$</code>" in out and other in out
    assert "<p><div" not in out


def test_md_links_resolve_and_unknown_fails():
    page_file = SimpleNamespace(src_uri="notebooks/nb.py")
    target = SimpleNamespace(url_relative_to=lambda f: "../../blog/2025/07/26/x/")
    files = SimpleNamespace(get_file_from_path=lambda p: target if p == "blog/posts/x.md" else None)
    page = SimpleNamespace(file=page_file)
    out = notebooks.resolve_md_links('<a href="../blog/posts/x.md#sec">x</a>', page=page, files=files)
    assert out == '<a href="../../blog/2025/07/26/x/#sec">x</a>'
    with pytest.raises(notebooks.NotebookError):
        notebooks.resolve_md_links('<a href="../nope.md">x</a>', page=page, files=files)
