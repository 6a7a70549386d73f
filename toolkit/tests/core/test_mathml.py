"""TeX -> MathML through the site's Markdown extension (journal_tools.core.markup.markdown_math)."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

import markdown
import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.core.markup.mathml import MathError


def convert(md_text: str, *, name: str = "journal_tools.core.markup.markdown_math") -> str:
    """HTML as the site's math extension makes it (loaded by module path or entry point name)."""
    md = markdown.Markdown(extensions=[name, "admonition", "pymdownx.superfences"])
    return md.convert(md_text)


def located(src: str, path: str) -> MathError:
    """The MathError converting ``src`` raises, located as the plugin locates it."""
    with pytest.raises(MathError) as info:
        convert(src)
    return info.value.located(path, src)


_XML_ENTITIES = {"lt", "gt", "amp", "quot", "apos"}


def _xml_entities(text: str) -> str:
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
    out = convert(src)
    assert 'class="arithmatex"' not in out
    shown = re.sub(r' alttext="[^"]*"', "", out)  # the TeX, for search
    assert "\\frac" not in shown and "\\sqrt" not in shown
    inline, display = maths(out)
    assert (inline.get("alttext"), display.get("alttext")) == ("\\frac{a}{b}", "\\sqrt{d_k}")  # the TeX, as text alternative
    assert inline.get("display") is None
    assert inline.find("mfrac") is not None
    assert display.get("display") == "block"
    assert display.find(".//msqrt") is not None
    # Display math sits in a wrapper that can scroll sideways: a keyboard
    # stop with a role and a name, numbered per page.
    wrapper = re.search(r'<div ([^>]*)><math display="block"', out).group(1)
    assert set(re.findall(r'(\w[\w-]*)="([^"]*)"', wrapper)) == {
        ("class", "math-display"), ("role", "region"), ("tabindex", "0"), ("aria-label", "Formula 1")}


def test_display_wrappers_are_numbered_per_conversion_and_per_whole_page():
    from journal_tools.mkdocs_plugin.a11y import number_formulas

    md = markdown.Markdown(extensions=["journal_tools.core.markup.markdown_math"])
    first = md.convert("$$\\alpha$$\n\n$$\\beta$$\n")
    assert re.findall(r'aria-label="(Formula \d+)"', first) == ["Formula 1", "Formula 2"]
    again = md.reset().convert("$$\\gamma$$\n")  # another page, the same converter: from 1 again
    assert re.findall(r'aria-label="(Formula \d+)"', again) == ["Formula 1"]
    # A blog view is its own content and its excerpts, each converted apart: the plugin numbers
    # the whole page again, so no two regions share a name.
    view = number_formulas(f"<main>{first}<article>{again}</article></main>")
    assert re.findall(r'aria-label="(Formula \d+)"', view) == ["Formula 1", "Formula 2", "Formula 3"]


def test_bmatrix_operatorname_subscripts():
    src = (
        "$$\nW_q = \\begin{bmatrix} 0.29 & 0.51 \\\\ 0.25 & 0.68 \\end{bmatrix}\n$$\n\n"
        "and $\\operatorname{softmax}(\\omega_{2j})$.\n"
    )
    out = convert(src)
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
    out = convert("Compare $a < b \\& c > d$.\n")
    (m,) = maths(out)
    assert [mo.text for mo in m.iter("mo")] == ["<", "&", ">"]
    # and the HTML itself stays escaped (no bare "<" inside an <mo>)
    assert "<mo>&lt;</mo>" in out and "<mo>&amp;</mo>" in out


def test_bad_formula_names_file_and_line():
    src = "---\ndate: 2025-07-26\n---\n\n# T\n\nFine $x$.\n\nBroken $\\frac{a}{$ here.\n"
    err = located(src, "docs/blog/posts/x.md")
    assert err.line == 9
    assert err.tex == "\\frac{a}{"
    assert err.reason
    assert str(err).startswith("docs/blog/posts/x.md:9: bad TeX in formula '\\frac{a}{': ")
    assert err.reason in str(err)
    # math-core's "9: Expected ..." reads as an offset into the formula; with the line named, the message drops it
    assert err.offset == 9 and err.reason.startswith('Expected closing token "}"'), err.reason
    assert "at character" not in str(err)


def test_bad_formula_without_source_has_no_line():
    with pytest.raises(MathError) as info:
        convert("\\(\\sqrt{\\)")
    assert info.value.line is None and info.value.src_path is None
    assert str(info.value).startswith("bad TeX in formula '\\sqrt{': at character 6: ")
    assert str(info.value.located("docs/y.md", None)).startswith("docs/y.md: bad TeX")


# A display formula over three lines (4-6), the mistake on one of them: the error names that line.
THREE_LINES = "# T\n\n$$\n{one} \\\\\n{two} \\\\\n{three}\n$$\n"


@pytest.mark.parametrize("one, two, three, line", [
    (r"a + b", r"\undefinedcommand{x}", r"c", 5),  # math-core stops at the unknown command
    (r"\frac{a}{b}", r"x^{2", r"= 1", 6),  # an unclosed brace: math-core stops at the end of the formula
    (r"\frac{a}{b}", r"x", r"\left( y", 6),
    (r"\mathrm{x} + \foo", r"x", r"y", 4),
])
def test_bad_tex_names_the_line_that_holds_the_offending_character(one, two, three, line):
    src = THREE_LINES.format(one=one, two=two, three=three)
    err = located(src, "docs/m.md")
    assert str(err).startswith(f"docs/m.md:{line}: bad TeX in formula"), (str(err), src)


@pytest.mark.parametrize("src, line", [
    ("# T\n\n!!! note\n    $$\n    a \\\\\n      \\foo{x} \\\\\n    c\n    $$\n", 6),  # indented deeper than the formula
    ("# T\n\n!!! note\n    $$\n    \\left( x \\right\n    $$\n", 5),
])
def test_bad_tex_in_an_admonition_is_found_on_its_line(src, line):
    assert located(src, "docs/z.md").line == line


def test_code_is_left_alone_and_plain_html_unchanged():
    src = "Cost `$5` and\n\n```\n$$x$$ \\(y\\)\n```\n"
    out = convert(src)
    assert "<math" not in out
    assert "<code>$5</code>" in out and "$$x$$ \\(y\\)" in out
    assert convert("no math") == "<p>no math</p>"


def test_escaped_dollars_stay_text_and_entry_point_name_loads():
    out = convert("It costs \\$5 and \\$6, not $x$.", name="journal_math")
    assert out.count("<math") == 1 and "$5" in out and "$6" in out


def test_excerpt_views_and_feeds_use_the_same_extension():
    """The fixture journal's mkdocs.yml lists the extension, not arithmatex (one path for all
    renders); the author's site is checked by its built pages (tests/test_site_build.py)."""
    from fixture_journal import FIXTURE


    names = mkdocs_config.load(FIXTURE / "mkdocs.yml").markdown_extensions
    assert "journal_math" in names and "pymdownx.arithmatex" not in names


# -- set as TeX sets it, where Chromium draws math-core's MathML otherwise -----------------------------

def test_a_prime_follows_its_letter_in_line_not_as_a_superscript():
    """U+2032 is drawn raised already: as <msup>'s script it was a detached speck above the j."""
    (formula,) = maths(convert(r"$$\sum_{j' \le i} A_{ij'}$$"))
    assert not [sup for sup in formula.iter("msup") if sup[1].text == "′"]
    for row in [r for r in formula.iter("mrow") if [c.tag for c in r] == ["mi", "mo"] and r[1].text == "′"]:
        assert row[0].text == "j" and row[1].get("lspace") == row[1].get("rspace") == "0"
    assert sum(1 for mo in formula.iter("mo") if mo.text == "′") == 2


def test_a_comma_after_cases_ends_its_last_row():
    (formula,) = maths(convert(r"$$M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}, \qquad x$$"))
    last_row = list(formula.iter("mtr"))[-1]
    assert [mo.text for mo in last_row[-1].iter("mo")][-1] == ","  # beside the last row, at its baseline
    assert "," not in [child.text for child in formula]  # not after the table, beside the axis


def test_rows_of_tables_side_by_side_are_the_same_height_and_an_arrow_keeps_its_space():
    """A matrix and its labels: a strut starts every row (one a row: the row is as tall as its tallest cell)."""
    (formula,) = maths(convert(r"$$\begin{bmatrix} 0.43 & 0.15 \\ 0.55 & 0.87 \end{bmatrix}"
                               r"\begin{matrix} \leftarrow \text{Your} \\ \leftarrow \text{journey} \end{matrix}$$"))
    rows = list(formula.iter("mtr"))
    assert len(rows) == 4
    for row in rows:
        struts = [s for s in row.iter("mspace") if s.get("height")]
        assert [(s.get("height"), s.get("depth")) for s in struts] == [("0.75em", "0.25em")]
        assert row[0][0] is struts[0]
    for label in rows[2:]:
        assert [c.tag for c in label[0]] == ["mspace", "mo", "mspace", "mtext"]
        assert label[0][2].get("width") == "0.2778em"  # "← journey", TeX's thick space after a relation


def test_the_tex_rides_along_as_alttext():
    (formula,) = maths(convert("$$\n\\sqrt{d_k}\n  + 1\n$$"))
    assert formula.get("alttext") == r"\sqrt{d_k} + 1"


@pytest.mark.parametrize("after", [",", ".", ";", ":", ")", ").", "?"])
def test_punctuation_after_inline_math_stays_on_its_line(after):
    out = convert(f"scaled by $1/\\sqrt{{d_k}}${after} then")
    assert re.search(rf'<span class="math-nowrap"><math\b.*?</math>{re.escape(after)}</span> then', out), out


def test_inline_math_with_no_punctuation_after_it_is_left_as_it_is():
    out = convert("$x$ and $y$-axis and $z$")
    assert "math-nowrap" not in out and out.count("<math") == 3
