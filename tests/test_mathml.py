"""Build-time LaTeX -> MathML (journal_tools.mathml)."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

import markdown
import pytest

from journal_tools.mathml import MathError, render_math


def arithmatex(md_text: str) -> str:
    """HTML as the site's Markdown config makes it (generic arithmatex)."""
    md = markdown.Markdown(
        extensions=["pymdownx.arithmatex", "admonition", "pymdownx.superfences"],
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )
    return md.convert(md_text)


_XML_ENTITIES = {"lt", "gt", "amp", "quot", "apos"}


def _xml_entities(text: str) -> str:
    """Replace HTML named entities (e.g. &ApplyFunction;) with characters."""
    return re.sub(
        r"&(\w+);",
        lambda m: m[0] if m[1] in _XML_ENTITIES else html.unescape(m[0]),
        text,
    )


def maths(out: str) -> list[ET.Element]:
    """Parse every <math> element in out (each must be well-formed XML)."""
    found = re.findall(r"<math\b.*?</math>", out, re.DOTALL)
    return [ET.fromstring(_xml_entities(m)) for m in found]


def test_inline_and_display_become_mathml():
    src = "Inline $\\frac{a}{b}$ here.\n\n$$\n\\sqrt{d_k}\n$$\n"
    out = render_math(arithmatex(src), src_path="docs/x.md", markdown_source=src)
    assert 'class="arithmatex"' not in out
    assert "\\frac" not in out and "\\sqrt" not in out
    inline, display = maths(out)
    assert inline.get("display") is None
    assert inline.find("mfrac") is not None
    assert display.get("display") == "block"
    assert display.find(".//msqrt") is not None
    # Display math sits in a wrapper that can scroll sideways: a keyboard
    # stop with a role and a name, numbered per page.
    assert re.search(r'<div class="math-display" role="region" tabindex="0" aria-label="Formula 1">'
                     r'<math display="block">', out)


def test_display_wrappers_are_numbered_after_those_already_converted():
    src = "$$\\alpha$$\n\n$$\\beta$$\n"
    first = render_math(arithmatex(src), src_path="docs/x.md", markdown_source=src)
    assert re.findall(r'aria-label="(Formula \d+)"', first) == ["Formula 1", "Formula 2"]
    # A second pass (the blog views' excerpts, on_post_page) continues the count.
    again = render_math(first + arithmatex("$$\\gamma$$\n"), src_path="docs/x.md")
    assert re.findall(r'aria-label="(Formula \d+)"', again) == ["Formula 1", "Formula 2", "Formula 3"]


def test_bmatrix_operatorname_subscripts():
    src = (
        "$$\nW_q = \\begin{bmatrix} 0.29 & 0.51 \\\\ 0.25 & 0.68 \\end{bmatrix}\n$$\n\n"
        "and $\\operatorname{softmax}(\\omega_{2j})$.\n"
    )
    out = render_math(arithmatex(src), src_path="docs/x.md", markdown_source=src)
    matrix, softmax = maths(out)
    table = matrix.find(".//mtable")
    assert table is not None
    rows = table.findall("mtr")
    assert [[td.findtext("mn") for td in row.findall("mtd")] for row in rows] == [
        ["0.29", "0.51"],
        ["0.25", "0.68"],
    ]
    assert [mo.text for mo in matrix.iter("mo")][-2:] == ["[", "]"]
    assert matrix.find("msub/mi").text == "W"
    assert "softmax" in [mi.text for mi in softmax.iter("mi")]
    sub = softmax.find(".//msub")
    assert sub.find("mi").text == "ω"
    assert "".join(sub[1].itertext()) == "2j"


def test_escaping_round_trips():
    src = "Compare $a < b \\& c > d$.\n"
    html_in = arithmatex(src)
    assert "&lt;" in html_in and "&amp;" in html_in  # arithmatex escaped the TeX
    out = render_math(html_in, src_path="docs/x.md", markdown_source=src)
    (m,) = maths(out)
    assert [mo.text for mo in m.iter("mo")] == ["<", "&", ">"]
    # and the HTML itself stays escaped (no bare "<" inside an <mo>)
    assert "<mo>&lt;</mo>" in out and "<mo>&amp;</mo>" in out


def test_bad_formula_names_file_and_line():
    src = "---\ndate: 2025-07-26\n---\n\n# T\n\nFine $x$.\n\nBroken $\\frac{a}{$ here.\n"
    with pytest.raises(MathError) as info:
        render_math(arithmatex(src), src_path="docs/blog/posts/x.md", markdown_source=src)
    err = info.value
    assert err.line == 9
    assert err.tex == "\\frac{a}{"
    assert err.reason
    assert str(err).startswith("docs/blog/posts/x.md:9: bad TeX in formula '\\frac{a}{': ")
    assert err.reason in str(err)


def test_bad_formula_without_source_has_no_line():
    html_in = '<p><span class="arithmatex">\\(\\sqrt{\\)</span></p>'
    with pytest.raises(MathError) as info:
        render_math(html_in, src_path="docs/y.md")
    assert info.value.line is None
    assert str(info.value).startswith("docs/y.md: bad TeX in formula '\\sqrt{': ")


def test_display_math_in_admonition_found_on_its_line():
    src = "# T\n\n!!! note\n    $$\n    \\left( x \\right\n    $$\n"
    with pytest.raises(MathError) as info:
        render_math(arithmatex(src), src_path="docs/z.md", markdown_source=src)
    assert info.value.line == 5


def test_code_is_left_alone_and_plain_html_unchanged():
    src = "Cost `$5` and\n\n```\n$$x$$ \\(y\\)\n```\n"
    html_in = arithmatex(src)
    assert render_math(html_in, src_path="docs/x.md", markdown_source=src) == html_in
    assert render_math("<p>no math</p>", src_path="docs/x.md") == "<p>no math</p>"
