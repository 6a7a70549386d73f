"""Material's templates are edited at build time, never copied into the repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from journal_tools.compat import theme_patches


def test_every_edit_applies_to_the_installed_material():
    templates = theme_patches.patched_templates()
    assert 'role="dialog" aria-label=' in templates["partials/search.html"]
    assert "<nav" not in templates["partials/post.html"]
    post = templates["blog-post.html"]
    assert 'aria-label="About this entry"' in post and 'partials/journal-pager.html' in post
    assert post.count("<nav") == post.count("</nav>")
    assert '<meta name="description" content="{{ page.meta.description | e }}">' in templates["base.html"]
    assert 'data-md-component="source"' not in templates["partials/source.html"]
    assert '{{ page.content }}\n        {% include "partials/journal-browse.html" %}' in templates["home.html"]


def test_a_changed_template_stops_the_build_naming_it(tmp_path):
    shutil.copytree(theme_patches.material_templates(), tmp_path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".icons", "assets"))
    (tmp_path / "partials/search.html").write_text("<div>changed upstream</div>", encoding="utf-8")
    with pytest.raises(theme_patches.PatchError, match=r"partials/search\.html holds .* 0 times, not 1"):
        theme_patches.patched_templates(tmp_path)


def test_patched_dir_writes_each_patched_template_once(tmp_path):
    folder = theme_patches.patched_dir(tmp_path)
    written = {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8") for p in folder.rglob("*.html")}
    assert written == theme_patches.patched_templates()
    stamp = (folder / "partials/search.html").stat().st_mtime_ns
    assert theme_patches.patched_dir(tmp_path) == folder and (folder / "partials/search.html").stat().st_mtime_ns == stamp


def test_no_material_template_is_committed():
    theme = Path(theme_patches.__file__).parent.parent / "mkdocs_plugin" / "theme"
    committed = {str(p.relative_to(theme)) for p in theme.rglob("*.html")}
    assert not committed & set(theme_patches.PATCHES)
