"""2. TeX to MathML per formula (journal_tools.core.markup.mathml), over the real pages' formulas.

The formulas are read from the plain-Material build of measurement 1 (the
arithmatex spans and divs the hook would convert, entry pages and the home
page; blog index views repeat the excerpts and are left out) and from the
Markdown cells of the notebooks.
"""

from __future__ import annotations

import html as html_lib
import re
import statistics
import time
from pathlib import Path

from benchmarks.rows import Row

_ARITHMATEX = re.compile(r'<(?P<tag>span|div) class="arithmatex">(?P<body>.*?)</(?P=tag)>', re.DOTALL)
_DELIMS = re.compile(r"\A\\[\(\[](?P<tex>.*)\\[\)\]]\Z", re.DOTALL)
_NB_DISPLAY = re.compile(r"\$\$(?P<tex>.+?)\$\$", re.DOTALL)
_NB_INLINE = re.compile(r"(?<![\\$])\$(?!\s)(?P<tex>[^$]+?)(?<![\s\\])\$(?!\$)")


def page_htmls(site: Path) -> list[Path]:
    pages = [site / "index.html"]
    pages += sorted(p for p in (site / "blog").glob("[0-9]*/**/index.html"))
    return [p for p in pages if p.exists()]


def notebook_formulas(project: Path) -> list[tuple[str, bool]]:
    out = []
    try:
        import jupytext
    except ImportError:
        return out
    for nb_file in sorted((project / "docs" / "notebooks").glob("*.py")):
        nb = jupytext.read(nb_file)
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            text = cell.source
            out += [(m["tex"], True) for m in _NB_DISPLAY.finditer(text)]
            text = _NB_DISPLAY.sub("", text)
            out += [(m["tex"], False) for m in _NB_INLINE.finditer(text)]
    return out


def _per_call(fn, n_items: int, rounds: int = 5, min_time: float = 0.2) -> float:
    """Median over rounds of seconds per item; each round loops until min_time."""
    results = []
    for _ in range(rounds):
        loops, elapsed = 0, 0.0
        start = time.perf_counter()
        while elapsed < min_time:
            fn()
            loops += 1
            elapsed = time.perf_counter() - start
        results.append(elapsed / (loops * n_items))
    return statistics.median(results)


def measure(plain_site: Path, project: Path) -> list[Row]:
    from journal_tools.core.markup.mathml import tex_to_mathml

    htmls = [p.read_text(encoding="utf-8") for p in page_htmls(plain_site)]
    formulas = []
    for h in htmls:
        for m in _ARITHMATEX.finditer(h):
            d = _DELIMS.match(m["body"])
            if d:
                formulas.append((html_lib.unescape(d["tex"]), m["tag"] == "div"))
    nb = notebook_formulas(project)
    formulas += nb
    n = len(formulas)
    if not n:
        return [Row("2. math: TeX to MathML per formula", "n/a: no formulas")]

    def convert_all():
        for tex, display in formulas:
            tex_to_mathml(tex, display=display)

    per = _per_call(convert_all, n)
    kinds = f"{sum(d for _, d in formulas)} display, {sum(not d for _, d in formulas)} inline"
    return [
        # No second pass over finished HTML exists any more: the Markdown
        # extension converts each formula as it parses it.
        Row("2. math: tex_to_mathml per formula", f"{per * 1e6:.1f} us ({n} formulas: {kinds}; {len(nb)} from notebooks)"),
    ]
