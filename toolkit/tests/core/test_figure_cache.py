"""Build-time figures (journal_tools/core/code/figures.py): drawn in a child process, cached on disk.

Each test writes a throw-away snippets folder in tmp_path with a small figure
module (no torch, no matplotlib), so what is drawn and what is served from the
cache is exact.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from journal_tools.core.code import figures

SVG = '<svg role="img" aria-label="{label}"><title>{label}</title></svg>'
PAGE = "# A page\n\n<!-- journal:figure figmod.draw | A caption. -->\n\nText.\n\n```md\n<!-- journal:figure figmod.nope -->\n```\n"


def _write_module(snippets: Path, label: str) -> None:
    (snippets / "figmod.py").write_text(
        f"def draw():\n    return {SVG.format(label=label)!r}\n\ndef broken():\n    raise ValueError('no data')\n",
        encoding="utf-8",
    )


@pytest.fixture
def snippets(tmp_path) -> Path:
    d = tmp_path / "snippets"
    d.mkdir()
    _write_module(d, "first drawing")
    return d


def _prepare(snippets: Path, text: str = PAGE) -> dict[str, str]:
    refs = figures.find_figures(text, "docs/page.md")
    return figures.prepare(refs, [snippets], snippets.parent / ".cache" / "figures")


def _no_draw(*args, **kwargs):
    raise AssertionError("drawn although the cache should have served it")


def test_figure_lines_outside_fences_only():
    refs = figures.find_figures(PAGE, "docs/page.md")
    assert [(r.line, r.target, r.caption) for r in refs] == [(3, "figmod.draw", "A caption.")]


def test_second_build_is_served_from_disk_without_drawing(snippets, monkeypatch):
    first = _prepare(snippets)
    assert "first drawing" in first["figmod.draw"]
    cache = snippets.parent / ".cache" / "figures"
    entries = list(cache.iterdir())
    assert len(entries) == 1 and entries[0].suffix == ".svg"  # no temporary files left
    monkeypatch.setattr(figures, "draw", _no_draw)
    assert _prepare(snippets) == first


def test_editing_any_snippet_file_invalidates(snippets):
    digest = figures.snippets_digest([snippets])
    _prepare(snippets)
    _write_module(snippets, "second drawing")
    assert "second drawing" in _prepare(snippets)["figmod.draw"]
    (snippets / "unrelated.py").write_text("X = 1\n", encoding="utf-8")
    assert figures.snippets_digest([snippets]) != digest


def test_key_depends_on_target():
    assert figures.cache_key("a.draw", "d") != figures.cache_key("b.draw", "d")


def test_expand_inlines_the_figure_with_its_caption(snippets):
    svgs = _prepare(snippets)
    out = figures.expand_figures(PAGE, svgs, "docs/page.md")
    assert '<figure class="journal-figure">' in out and "<figcaption>A caption.</figcaption>" in out
    assert "<!-- journal:figure figmod.nope -->" in out  # inside a fence: shown, not drawn


@pytest.mark.parametrize("target, message", [
    ("figmod.missing", "figmod has no function 'missing'"),
    ("figmod.broken", r"figmod.broken\(\) raised ValueError: no data"),
    ("nomodule.draw", "cannot import 'nomodule'"),
])
def test_bad_figure_fails_with_file_and_line_and_caches_nothing(snippets, target, message):
    text = f"# A page\n\nText.\n\n<!-- journal:figure {target} | x -->\n"
    with pytest.raises(figures.FigureError, match=rf"^docs/page\.md:5: .*{message}"):
        _prepare(snippets, text)
    assert not (snippets.parent / ".cache" / "figures").exists()


def test_atomic_write_replaces_an_existing_entry(tmp_path):
    figures._cache_write(tmp_path, "k", "old")
    figures._cache_write(tmp_path, "k", "new")
    assert (tmp_path / "k.svg").read_text(encoding="utf-8") == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["k.svg"]


def test_serve_shows_the_last_drawing_of_a_changed_figure_and_caches_nothing_stale(snippets, monkeypatch):
    first = _prepare(snippets)
    _write_module(snippets, "second drawing")
    monkeypatch.setattr(figures, "draw", _no_draw)
    stale = {"figmod.draw": first["figmod.draw"]}
    refs = figures.find_figures(PAGE, "docs/page.md")
    served = figures.prepare(refs, [snippets], snippets.parent / ".cache" / "figures", stale=stale)
    assert served == first and stale == {"figmod.draw": first["figmod.draw"]}  # left for the redraw
    assert len(list((snippets.parent / ".cache" / "figures").glob("*.svg"))) == 1  # the first drawing only
    monkeypatch.undo()
    assert "second drawing" in _prepare(snippets)["figmod.draw"]  # a build afterwards draws the new one


def test_a_moved_checkout_keeps_its_cache(snippets, tmp_path):
    """Same snippets in another folder: same key (CI, a copy or a second clone reuse the
    cache); the folder's place in the list still counts."""
    moved = tmp_path / "elsewhere" / "snippets"
    moved.parent.mkdir()
    moved.mkdir()
    (moved / "figmod.py").write_bytes((snippets / "figmod.py").read_bytes())
    assert figures.snippets_digest([moved]) == figures.snippets_digest([snippets])
    other = tmp_path / "other"
    other.mkdir()
    assert figures.snippets_digest([other, snippets]) != figures.snippets_digest([snippets, other])
