"""What a served page's status line and panel say (journal_tools.serve.panels): every block of the page
counted, and a mistake of the page's own named once, as the build's, above its code's failures."""

from __future__ import annotations

from journal_tools.core.page.includes import IncludeError
from journal_tools.serve import panels


def test_the_status_line_counts_every_block_and_every_output_to_fill():
    fills = [{"where": f"docs/a.md:{n}", "line": n - 4} for n in (20, 40)]
    line = panels.status_html({"ran": 12, "blocks": 12, "seconds": 0.4, "failures": [], "to_fill": fills, "at": "14:02:11"})
    assert "✓ 12 code blocks ran in 0.4 s · 2 outputs to fill" in line, line
    failure = {"where": "docs/a.md:50", "line": 48, "message": "NameError: name 'x' is not defined", "report": "Traceback ..."}
    panel = panels.status_html({"ran": 5, "blocks": 12, "seconds": 0.1, "failures": [failure], "at": "14:02:11"})
    assert "✗ 1 failing block (5 of 12 ran · 14:02:11)" in panel, panel


def test_a_mistake_the_build_met_heads_the_panel_once():
    mistake = IncludeError("docs/a.md", 38, "snippet include failed: ... (did you mean 'wrapper'? ...)")
    problem = panels.build_problem(mistake)
    read = {"where": "docs/a.md:38", "line": 38, "message": problem["message"], "report": str(mistake)}  # the code's reading
    failures = panels.with_build_problems([problem], [read])
    assert failures == [problem]
    panel = panels.status_html({"ran": 0, "blocks": 0, "seconds": 0.0, "failures": failures, "at": "14:02:11"})
    assert "1 mistake in this page's sources: <code>make build</code> stops at it" in panel, panel
    assert "failing block" not in panel and "<pre>" not in panel  # a one-line mistake: said once, no report under it
    assert "<strong>docs/a.md:38</strong>: snippet include failed: ... (did you mean &#x27;wrapper&#x27;? ...)" in panel
