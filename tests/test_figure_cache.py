"""The on-disk figure cache of journal_tools/figures.py (.cache/figures/).

Each test builds a throw-away snippets directory in tmp_path with a small
figure module (no torch, no matplotlib), so counting calls is exact.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from journal_tools import figures

SVG = '<svg role="img" aria-label="{label}"><title>{label}</title></svg>'

PAGE = "# A page\n\n<!-- journal:figure {module}.draw | A caption. -->\n\nText.\n"


def _write_module(snippets: Path, module: str, label: str) -> None:
    (snippets / f"{module}.py").write_text(
        f"CALLS = []\n\ndef draw():\n    CALLS.append(1)\n    return {SVG.format(label=label)!r}\n",
        encoding="utf-8",
    )


@pytest.fixture
def project(tmp_path, request):
    """A project root with mkdocs.yml, snippets/ holding a uniquely named module."""
    module = f"figcache_{request.node.name.replace('[', '_').replace(']', '_').replace('-', '_')}"
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    _write_module(snippets, module, "first drawing")
    yield SimpleNamespace(root=tmp_path, snippets=snippets, module=module, dirs=[str(snippets)])
    figures.forget_snippet_modules([str(snippets)])
    while str(snippets) in sys.path:
        sys.path.remove(str(snippets))


def _config(root: Path):
    return SimpleNamespace(
        config_file_path=str(root / "mkdocs.yml"),
        mdx_configs={"pymdownx.snippets": {"base_path": ["snippets"]}},
    )


def _render(p) -> str:
    """One build's worth of the hook for one page (fresh imports each time)."""
    md = PAGE.format(module=p.module)
    return figures.on_page_markdown(md, config=_config(p.root), src_path="blog/page.md", source=md)


def _no_call(*args, **kwargs):
    raise AssertionError("figure function called although the cache should have served it")


def test_second_render_is_served_from_disk_without_calling(project, monkeypatch):
    first = _render(project)
    assert "first drawing" in first
    entries = list((project.root / figures.CACHE_DIR).glob("*.svg"))
    assert len(entries) == 1, entries
    assert entries[0].read_text(encoding="utf-8") == SVG.format(label="first drawing")
    # No leftover temporary files from the atomic write.
    assert [p.name for p in (project.root / figures.CACHE_DIR).iterdir()] == [entries[0].name]

    monkeypatch.setattr(figures, "_call", _no_call)
    monkeypatch.setattr(figures.importlib, "import_module", _no_call)
    second = _render(project)
    assert second == first
    assert project.module not in sys.modules  # nothing imported on a hit


def test_editing_a_snippet_invalidates_the_cache(project):
    assert "first drawing" in _render(project)
    _write_module(project.snippets, project.module, "second drawing")
    out = _render(project)
    assert "second drawing" in out and "first drawing" not in out


def test_editing_another_snippet_file_invalidates_too(project, monkeypatch):
    _render(project)
    key_before = figures.cache_key(f"{project.module}.draw", figures.snippets_digest(project.dirs))
    (project.snippets / "unrelated_helper.py").write_text("X = 1\n", encoding="utf-8")
    key_after = figures.cache_key(f"{project.module}.draw", figures.snippets_digest(project.dirs))
    assert key_before != key_after
    calls = []
    real_call = figures._call

    def counting_call(target, dirs):
        calls.append(target)
        return real_call(target, dirs)

    monkeypatch.setattr(figures, "_call", counting_call)
    _render(project)
    assert calls == [f"{project.module}.draw"]


def test_key_depends_on_target_and_hook_source(project, monkeypatch, tmp_path):
    digest = figures.snippets_digest(project.dirs)
    assert figures.cache_key("a.draw", digest) != figures.cache_key("b.draw", digest)
    # The hook's own bytes are part of the digest.
    fake_hook = tmp_path / "figures_copy.py"
    fake_hook.write_text(Path(figures.__file__).read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    monkeypatch.setattr(figures, "__file__", str(fake_hook))
    assert figures.snippets_digest(project.dirs) != digest


def test_bad_figure_still_fails_with_file_and_line(project):
    from mkdocs.exceptions import PluginError

    md = "# A page\n\nText.\n\n<!-- journal:figure " + project.module + ".missing | x -->\n"
    with pytest.raises(PluginError, match=r"blog/page\.md:5: .*has no function 'missing'"):
        figures.on_page_markdown(md, config=_config(project.root), src_path="blog/page.md", source=md)
    assert not list((project.root / figures.CACHE_DIR).glob("*.svg"))


def test_corrupt_free_atomic_write_replaces_existing(project):
    """A stale entry under the same key is replaced whole, not appended to."""
    _render(project)
    (entry,) = (project.root / figures.CACHE_DIR).glob("*.svg")
    figures._cache_write(project.root / figures.CACHE_DIR, entry.stem, SVG.format(label="x"))
    assert entry.read_text(encoding="utf-8") == SVG.format(label="x")
