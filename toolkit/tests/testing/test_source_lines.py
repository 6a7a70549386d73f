"""journal_tools/testing/source_lines.py: an element of a built page back to its source line
(the fixture journal's entry, and a built page written here: no build needed)."""

from __future__ import annotations

from journal_tools.testing.source_lines import SourceLines

from fixture_journal import fixture_project

ENTRY = "docs/blog/posts/2025-07-27-fixture-entry.md"
PAGE = "blog/2025/07/27/fixture-entry/index.html"


def _site(tmp_path):
    project = fixture_project(tmp_path / "journal", caches=False)
    site = tmp_path / "site"
    (site / PAGE).parent.mkdir(parents=True)
    # An entry page names its source by its download links (the journal plugin's, next to the badge).
    (site / PAGE).write_text('<a href="../../../../downloads/2025-07-27-fixture-entry.py" download>.py</a>', encoding="utf-8")
    (site / "index.html").write_text("<p>home</p>", encoding="utf-8")
    return SourceLines(project), site, (project / ENTRY).read_text(encoding="utf-8").split("\n")


def _line(lines: list[str], text: str) -> int:
    return next(n for n, line in enumerate(lines, 1) if line.startswith(text))


def test_a_code_block_is_named_at_its_opening_fence(tmp_path):
    sources, site, lines = _site(tmp_path)
    shown = "scores = torch.tensor([[0.0, 1.0], [2.0, 2.0]])\nweights = softmax_rows(scores)\nprint(weights)\n"
    fence = _line(lines, "scores = ") - 1
    assert sources.code(site, PAGE, shown) == f"{ENTRY}:{fence}"
    # an expected output, and an excerpt's block on the home page (found in the entry all the same)
    assert sources.code(site, PAGE, "tensor([[0.2689, 0.7311],\n        [0.5000, 0.5000]])") == f"{ENTRY}:{_line(lines, 'tensor([[0.2689') - 1}"
    assert sources.code(site, "index.html", shown) == f"{ENTRY}:{fence}"


def test_an_included_block_is_named_at_the_page_fence_that_includes_it(tmp_path):
    sources, site, lines = _site(tmp_path)
    expanded = sources._expanded(sources.project / ENTRY)
    opening = _line(lines, '```python title="weights.py"')
    start = next(i for i, o in enumerate(expanded.origins) if o.line == opening)
    end = next(i for i in range(start + 1, len(expanded.lines)) if expanded.lines[i].startswith("```"))
    shown = "\n".join(expanded.lines[start + 1:end])
    assert sources.code(site, PAGE, shown) == f"{ENTRY}:{opening}"


def test_a_display_formula_is_named_by_its_number(tmp_path):
    sources, site, lines = _site(tmp_path)
    assert sources.display_formula(site, PAGE, "Formula 1") == f"{ENTRY}:{_line(lines, '$$')}"
    # past the last formula, or a page without a source: the page itself, never an error
    assert sources.display_formula(site, PAGE, "Formula 99") == f"{ENTRY}:1"
    assert sources.text(site, "nowhere/index.html", "x").startswith("nowhere/index.html:1 ")


def test_text_is_named_at_the_first_line_holding_it(tmp_path):
    sources, site, lines = _site(tmp_path)
    assert sources.text(site, PAGE, "W = \\begin{bmatrix}") == f"{ENTRY}:{_line(lines, 'W = ')}"
