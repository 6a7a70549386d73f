"""Our templates that re-implement Material's, checked against the installed Material.

Two templates of ``journal_tools/mkdocs_plugin/theme/`` stand in for Material's:
``home.html`` renders the blog index as ``blog.html``'s ``container`` block
does, with the ways into the journal added; ``partials/source.html`` is
Material's repository link without ``data-md-component="source"`` (with it,
Material's script asks api.github.com for the repository's facts on every
page load). Neither can be an edit of Material's file (``theme_patches``):
``home.html`` is a template of its own, and the repository link must not
differ by Material version. So each is compared, at every build and in the
guard tests, with the original it re-implements: the structure of both (HTML
tags with their attributes, text, and every Jinja statement and expression,
whitespace and comments aside) must be the same but for the differences
listed here. When a Material upgrade changes the original, the build stops
with the difference, so the override is updated instead of silently dropping
what Material added.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from journal_tools.compat import installed
from journal_tools.compat.theme_patches import PatchError, material_templates

__all__ = ["OVERRIDES", "Override", "OverrideError", "check", "differences", "skeleton"]

THEME_DIR = Path(__file__).parent.parent / "mkdocs_plugin" / "theme"


class OverrideError(PatchError):
    """Material changed a template one of ours re-implements."""


@dataclass(frozen=True)
class Override:
    """``ours`` (under journal_tools/mkdocs_plugin/theme) re-implements Material's ``material`` (its ``block``, or all of it)."""

    ours: str
    material: str
    block: str | None = None
    added: tuple[str, ...] = ()  # skeleton lines only ours has
    dropped: tuple[str, ...] = ()  # attributes (``tag attr``) of Material's that ours leaves out
    included_by: str | None = None  # the include a Material template must still make for ours to be used
    why: str = ""


OVERRIDES = (
    Override("home.html", "blog.html", block="container",
             added=('{% include "partials/journal-browse.html" %}',),
             why="the blog index with the ways into the journal (archive, categories, tags, feed)"),
    Override("partials/source.html", "partials/source.html",
             dropped=("a data-md-component",), included_by='{% include "partials/source.html" %}',
             why="no request to api.github.com on page load"),
)


class _Skeleton(HTMLParser):
    def __init__(self, dropped: tuple[str, ...]):
        super().__init__(convert_charrefs=False)
        self.lines: list[str] = []
        self.dropped = {tuple(d.split()) for d in dropped}

    def handle_starttag(self, tag, attrs):
        kept = sorted((k, v) for k, v in attrs if (tag, k) not in self.dropped)
        self.lines.append(f"<{tag}" + "".join(f' {k}="{v}"' if v is not None else f" {k}" for k, v in kept) + ">")

    def handle_endtag(self, tag):
        self.lines.append(f"</{tag}>")

    def handle_data(self, data):
        if data.strip():
            self.lines.append(" ".join(data.split()))

    def handle_comment(self, data):  # the Jinja statements (see skeleton)
        self.lines.append(data)


def skeleton(source: str, dropped: tuple[str, ...] = ()) -> list[str]:
    """The structure of a Jinja template, one item a line: start tags (attributes sorted, ``dropped``
    ones left out), end tags, text, and each Jinja statement and expression (whitespace collapsed).

    Jinja's own lexer splits the template; each statement becomes an HTML
    comment so that Python's HTML parser reads the rest as the page's markup.
    """
    import jinja2

    parts: list[str] = []
    tag: list[str] | None = None
    for _, kind, value in jinja2.Environment().lex(source):
        if kind in ("block_begin", "variable_begin"):
            tag = []
        elif kind in ("block_end", "variable_end"):
            text = " ".join("".join(tag).split())
            parts.append(f"<!--{{% {text} %}}-->" if kind == "block_end" else f"{{{{ {text} }}}}")
            tag = None
        elif tag is not None:
            tag.append(value)
        elif kind == "data":
            parts.append(value)
    parser = _Skeleton(dropped)
    parser.feed("".join(parts))
    parser.close()
    return parser.lines


def _block(lines: list[str], name: str) -> list[str] | None:
    """The lines inside ``{% block name %}`` ... its ``{% endblock %}`` (None without the block)."""
    opening = {f"{{% block {name} %}}", f"{{% block {name} scoped %}}"}
    start = next((i for i, line in enumerate(lines) if line in opening), None)
    if start is None:
        return None
    depth = 0
    for i in range(start, len(lines)):
        if lines[i].startswith("{% block "):
            depth += 1
        elif lines[i].startswith("{% endblock"):
            depth -= 1
            if depth == 0:
                return lines[start + 1 : i]
    return None


def differences(override: Override, material: Path | None = None, theme: Path = THEME_DIR) -> list[str]:
    """What differs between ``override`` and the Material template it re-implements (empty: none)."""
    material = material or material_templates()
    original_path = material / override.material
    if not original_path.is_file():
        return [f"Material has no {override.material} any more"]
    original = skeleton(original_path.read_text(encoding="utf-8"), override.dropped)
    ours = [line for line in skeleton((theme / override.ours).read_text(encoding="utf-8")) if line not in override.added]
    problems = []
    if override.block is not None:
        original, ours = _block(original, override.block), _block(ours, override.block)
        if original is None:
            return [f"Material's {override.material} has no block {override.block!r} any more"]
    if original != ours:
        diff = difflib.unified_diff(original, ours or [], f"Material's {override.material}", f"ours ({override.ours})",
                                    lineterm="", n=1)
        problems.append("\n".join(diff))
    if override.included_by and not _included(override.included_by, override.ours, material):
        problems.append(f"no Material template makes {override.included_by} any more, so ours is never used")
    return problems


def _included(statement: str, name: str, material: Path) -> bool:
    """Does a Material template make ``statement`` (only the templates naming ``name`` are parsed)?"""
    texts = (p.read_text(encoding="utf-8") for p in material.rglob("*.html"))
    return any(statement in skeleton(text) for text in texts if name in text)


def check(material: Path | None = None, theme: Path = THEME_DIR) -> None:
    """Raise OverrideError naming each of our templates whose Material original changed."""
    for override in OVERRIDES:
        problems = differences(override, material, theme)
        if problems:
            kept = ", ".join([*override.added, *(f"no {d}" for d in override.dropped)]) or "none"
            raise OverrideError(
                f"{installed('mkdocs-material')}: journal_tools/mkdocs_plugin/theme/{override.ours} re-implements Material's "
                f"{override.material}{f' (block {override.block})' if override.block else ''}, and the two differ:\n"
                + "\n".join(problems)
                + f"\nUpdate journal_tools/mkdocs_plugin/theme/{override.ours} to the new structure, keeping its own differences "
                  f"({kept}; {override.why}), and journal_tools/compat/theme_overrides.py if they change.")
