"""Exact-text edits of Material's installed templates, written to ``.cache/theme/<digest>/`` at build time, so no
Material template is committed; an edit whose text an upgrade moved stops the build naming it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from journal_tools.compat import installed
from journal_tools.core.record import atomic

__all__ = ["MADE_FROM", "PATCHES", "PatchError", "material_templates", "patched_dir", "patched_templates"]


class PatchError(Exception):
    """A Material template no longer holds the text an edit expects."""


@dataclass(frozen=True)
class Edit:
    """Replace the ``nth`` (1-based) occurrence of ``old`` with ``new``; ``old`` must occur ``count`` times."""

    old: str
    new: str
    count: int
    nth: int = 1
    why: str = ""


PATCHES: dict[str, list[Edit]] = {
    "base.html": [
        Edit('<meta name="description" content="{{ page.meta.description }}">',
             '<meta name="description" content="{{ page.meta.description | e }}">', 1,
             why="an entry's description is its excerpt's text (journal_tools/mkdocs_plugin/preview.py): quotes and < escaped"),
    ],
    "partials/search.html": [
        Edit('<div class="md-search" data-md-component="search" role="dialog">',
             '<div class="md-search" data-md-component="search" role="dialog" aria-label="{{ lang.t(\'search\') }}">', 1,
             why="every role=dialog needs a name (axe: aria-dialog-name)"),
    ],
    "partials/post.html": [
        # An excerpt's authors and its "Continue reading" link sat in unnamed <nav>s,
        # one pair per excerpt: landmarks screen readers cannot tell apart.
        Edit('<nav class="md-post__authors md-typeset">', '<div class="md-post__authors md-typeset">', 1),
        Edit('<nav class="md-post__action">', '<div class="md-post__action">', 1),
        Edit("</nav>", "</div>", 2, nth=1),
        Edit("</nav>", "</div>", 1, nth=1),
        Edit('<a href="{{ post.url | url }}">\n          {{ lang.t("blog.continue") }}',
             '<a href="{{ post.url | url }}" aria-label="{{ lang.t(\'blog.continue\') }}: {{ post.title | e }}">\n'
             '          {{ lang.t("blog.continue") }}', 1, why="each 'Continue reading' link names its entry"),
    ],
    "blog-post.html": [
        Edit('<nav class="md-nav md-nav--primary">', '<nav class="md-nav md-nav--primary" aria-label="About this entry">', 1,
             why="the entry's sidebar: a navigation landmark with a name of its own"),
        # The list of the entry's metadata is no landmark; the references list is named.
        Edit('<nav class="md-nav">', '<div class="md-nav">', 2, nth=1),
        Edit("</nav>", "</div>", 3, nth=1),
        Edit('<nav class="md-nav">', '<nav class="md-nav" aria-label="{{ lang.t(\'blog.references\') }}">', 1),
        Edit('      {% endblock %}\n    </article>',
             '      {% endblock %}\n      {% include "partials/journal-pager.html" %}\n    </article>', 1,
             why="links to the previous and the next entry under the text"),
    ],
    "partials/source.html": [
        Edit('class="md-source" data-md-component="source">', 'class="md-source">', 1,
             why="with it, Material's script asks api.github.com for the repository's facts on every page load"),
    ],
    "home.html": [
        Edit("{{ page.content }}\n      </header>",
             '{{ page.content }}\n        {% include "partials/journal-browse.html" %}\n      </header>', 1,
             why="the blog index (docs/index.md, template: home.html) with the ways into the journal"),
    ],
}
MADE_FROM = {"home.html": "blog.html"}  # a template of ours, made from a Material template of another name


def material_templates() -> Path:
    """The installed Material's template folder."""
    import material

    return Path(material.__file__).parent / "templates"


def patched_templates(source: Path | None = None) -> dict[str, str]:
    """Each patched template's text, from the installed Material (or ``source``)."""
    source = source or material_templates()
    out = {}
    for name, edits in PATCHES.items():
        original = MADE_FROM.get(name, name)
        if not (source / original).is_file():
            raise PatchError(f"{installed('mkdocs-material')} has no {original} any more: "
                             f"review journal_tools/compat/theme_patches.py for this Material version")
        text = (source / original).read_text(encoding="utf-8")
        for edit in edits:
            found = text.count(edit.old)
            if found != edit.count:
                raise PatchError(f"{installed('mkdocs-material')}: Material's {original} holds {edit.old!r} {found} times, "
                                 f"not {edit.count}: review journal_tools/compat/theme_patches.py for this Material version")
            at = -1
            for _ in range(edit.nth):
                at = text.index(edit.old, at + 1)
            text = text[:at] + edit.new + text[at + len(edit.old):]
        out[name] = text
    for name in (n for n in PATCHES if n.startswith("partials/")):
        if not any(f'{{% include "{name}" %}}' in p.read_text(encoding="utf-8") for p in source.rglob("*.html")):
            raise PatchError(f"{installed('mkdocs-material')}: no Material template includes {name} any more, "
                             f"so its edit is never used: review journal_tools/compat/theme_patches.py")
    return out


def patched_dir(cache: Path) -> Path:
    """A folder of the patched templates under ``cache`` (written once per Material version and edit set)."""
    templates = patched_templates()
    digest = hashlib.sha256(repr(sorted(templates.items())).encode()).hexdigest()[:16]
    folder = cache / digest
    for name, text in templates.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic.write_bytes(path, text.encode("utf-8"))
    return folder
