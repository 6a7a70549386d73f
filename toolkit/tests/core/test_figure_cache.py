"""Build-time figures (core/code/figures.py): drawn in a child process that watches what each
drawing reads, kept in the record. The figure modules here read a data file, no torch or matplotlib.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from journal_tools.core.code import figures
from journal_tools.core.page.limits import Limit
from journal_tools.core.record.inputs import Record

SVG = '<svg role="img" aria-label="{label}"><title>{label}</title>{{}}</svg>'
PAGE = "# A page\n\n<!-- journal:figure figmod.draw | A caption. -->\n\nText.\n\n```md\n<!-- journal:figure figmod.nope -->\n```\n"


def _write_module(snippets: Path, label: str) -> None:
    (snippets / "figmod.py").write_text(
        "from pathlib import Path\n\n"
        f"def draw():\n    data = (Path(__file__).parent / 'data' / 'points.txt').read_text().strip()\n"
        f"    return {SVG.format(label=label)!r}.format(data)\n\ndef broken():\n    raise ValueError('no data')\n"
        # matplotlib's savefig(format="svg") text, as it comes; and an SVG with no accessible name
        "\ndef xml_header():\n    return '<?xml version=\"1.0\"?>\\n<!DOCTYPE svg>\\n<svg role=\"img\" aria-label=\"x\"></svg>'\n"
        "\ndef unlabelled():\n    return '<svg role=\"img\"><title>x</title></svg>'\n",
        encoding="utf-8",
    )


@pytest.fixture
def snippets(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv("FRESH", raising=False)
    monkeypatch.delenv("CI", raising=False)
    d = tmp_path / "snippets"
    (d / "data").mkdir(parents=True)
    (d / "data" / "points.txt").write_text("1 2 3\n")
    _write_module(d, "first drawing")
    return d


def _prepare(snippets: Path, text: str = PAGE) -> dict[str, str]:
    refs = figures.find_figures(text, "docs/page.md")
    return figures.prepare(refs, [snippets], Record(snippets.parent))


def _no_draw(*args, **kwargs):
    raise AssertionError("drawn although the record should have served it")


def test_figure_lines_outside_fences_only():
    refs = figures.find_figures(PAGE, "docs/page.md")
    assert [(r.line, r.target, r.caption) for r in refs] == [(3, "figmod.draw", "A caption.")]


def test_second_build_is_served_from_the_record_without_drawing(snippets, monkeypatch):
    first = _prepare(snippets)
    assert "first drawing" in first["figmod.draw"] and "1 2 3" in first["figmod.draw"]
    monkeypatch.setattr(figures, "draw", _no_draw)
    assert _prepare(snippets) == first
    (snippets / "unrelated.py").write_text("X = 1\n", encoding="utf-8")  # a snippet the drawing does not read
    assert _prepare(snippets) == first


def test_what_the_drawing_read_draws_it_again(snippets):
    _prepare(snippets)
    _write_module(snippets, "second drawing")  # its module
    assert "second drawing" in _prepare(snippets)["figmod.draw"]
    (snippets / "data" / "points.txt").write_text("4 5 6\n")  # the data file it reads
    assert "4 5 6" in _prepare(snippets)["figmod.draw"]


def test_fresh_draws_every_figure(snippets, monkeypatch):
    _prepare(snippets)
    monkeypatch.setenv("FRESH", "1")
    monkeypatch.setattr(figures, "draw", _no_draw)
    with pytest.raises(AssertionError, match="drawn although"):
        _prepare(snippets)


def test_expand_inlines_the_figure_with_its_caption(snippets):
    svgs = _prepare(snippets)
    out = figures.expand_figures(PAGE, svgs, "docs/page.md")
    assert '<figure class="journal-figure">' in out and "<figcaption>A caption.</figcaption>" in out
    assert "<!-- journal:figure figmod.nope -->" in out  # inside a fence: shown, not drawn


@pytest.mark.parametrize("target, message", [
    ("figmod.missing", "figmod has no function 'missing'"),
    ("figmod.broken", r"figmod.broken\(\) raised ValueError: no data"),
    ("nomodule.draw", "cannot import 'nomodule'"),
    # the rules a figure's SVG must follow, said where it breaks them
    ("figmod.xml_header", r"figmod.xml_header\(\) must return SVG text that starts with <svg \(this starts with '<\?xml version=.*keep "
                          "the text from <svg on"),
    ("figmod.unlabelled", r"figmod.unlabelled\(\) returned an <svg> tag without aria-label: write aria-label=\"<what the figure "
                          "shows>\" on it"),
])
def test_bad_figure_fails_with_file_and_line_and_keeps_nothing(snippets, target, message):
    text = f"# A page\n\nText.\n\n<!-- journal:figure {target} | x -->\n"
    refs = figures.find_figures(text, "docs/page.md")
    svgs = figures.prepare(refs, [snippets], Record(snippets.parent))
    (mistake,) = figures.mistakes(refs, svgs, snippets.parent)
    assert re.match(rf"^docs/page\.md:5: .*{message}", str(mistake)), str(mistake)
    assert Record(snippets.parent).latest(figures.KIND, target, "") is None
    assert not (snippets.parent / ".cache" / "record.sqlite").exists()


def test_serve_shows_the_last_drawing_of_a_changed_figure_and_keeps_nothing_stale(snippets, monkeypatch):
    first = _prepare(snippets)
    _write_module(snippets, "second drawing")
    monkeypatch.setattr(figures, "draw", _no_draw)
    stale = {"figmod.draw": first["figmod.draw"]}
    refs = figures.find_figures(PAGE, "docs/page.md")
    served = figures.prepare(refs, [snippets], Record(snippets.parent), stale=stale)
    assert served == first and stale == {"figmod.draw": first["figmod.draw"]}  # left for the redraw
    monkeypatch.undo()
    assert "second drawing" in _prepare(snippets)["figmod.draw"]  # a build afterwards draws the new one


def test_a_figure_that_never_returns_fails_at_its_line_naming_the_loop(snippets, monkeypatch):
    monkeypatch.chdir(snippets.parent)  # as the build runs: the loop's file is named from the journal's root
    (snippets / "spin.py").write_text("def draw():\n    n = 0\n    while True:\n        n += 1\n", encoding="utf-8")
    refs = figures.find_figures("# A page\n\n<!-- journal:figure spin.draw | Never drawn. -->\n", "docs/page.md")
    svgs = figures.prepare(refs, [snippets], Record(snippets.parent), limit=Limit(2, "block_timeout in mkdocs.yml"))
    (mistake,) = figures.mistakes(refs, svgs, snippets.parent)
    assert re.match(r"^docs/page\.md:3: spin\.draw\(\) ran past 2 s, the block limit, stopped at snippets/spin\.py:(3|4)$",
                    str(mistake)), str(mistake)


def test_serve_keeps_a_figure_redrawn_in_the_background_so_the_next_build_settles(snippets, monkeypatch):
    """make serve after a save of a figure's module: the build serves the last drawing, the worker redraws it in a thread of its
    own and asks for one rebuild, which takes the new drawing from the record. The record's write from that thread was lost, so
    every rebuild redrew it and asked for another, for ever."""
    import threading

    from journal_tools.serve.background_figures import BackgroundFigures

    record = Record(snippets.parent)  # the build's record, opened in this thread (MkDocs')
    refs = figures.find_figures(PAGE, "docs/page.md")
    first = figures.prepare(refs, [snippets], record)
    _write_module(snippets, "second drawing")
    rebuilt = threading.Event()
    shared = BackgroundFigures(rebuilt.set)
    shared.stale = dict(first)
    assert figures.prepare(refs, [snippets], record, _no_draw, shared.stale) == first  # served as last drawn
    shared.record = record

    class Runner:  # the warm worker's drawing
        def draw(self, targets, dirs):
            return figures.draw(targets, dirs, snippets.parent)

    shared.redraw_stale(Runner(), [snippets])
    assert rebuilt.wait(120)
    svgs = figures.prepare(refs, [snippets], record, _no_draw, {})  # the rebuild it asked for: nothing left to draw
    assert "second drawing" in svgs["figmod.draw"]
