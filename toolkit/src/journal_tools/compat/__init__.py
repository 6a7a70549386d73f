"""Every touch of another library's internals (a private name, a replaced class, an edited template, parsed
message text), each in a function that says what it relies on; ``toolkit/tests/compat/test_compat.py`` guards
each, naming the library and version, and checks no other module makes such a touch.

- :mod:`.blog`: Material's blog config classes, run on the journal's options and posts;
- :mod:`.jupyter`: mkdocs-jupyter's and nbconvert's exporter, preprocessor and cache key replaced;
- :mod:`.livereload`: MkDocs' live-reload server (rebuild epochs, its script, its builder and app);
- :mod:`.mkdocs_config`: mkdocs.yml into ``Settings``; MkDocs' config messages given their line;
- :mod:`.mkdocs_log`: MkDocs' link warnings given their line; serve's rebuild lines left out;
- :mod:`.pages`: a page's ``render`` replaced on the instance;
- :mod:`.rss`: mkdocs-rss-plugin's per-build state reset between serve rebuilds;
- :mod:`.theme_patches`: exact-text edits of Material's installed templates.

pymdownx.arithmatex's processors and pymdownx.snippets' ``SnippetPreprocessor`` (public names, undocumented)
are guarded there too, without living here.
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["CompatError", "installed", "require"]


class CompatError(RuntimeError):
    """An installed library no longer offers what a compat function relies on."""


def installed(dist: str) -> str:
    """``"mkdocs 1.6.1"``: the distribution and its installed version, for messages."""
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        return f"{dist} (not installed)"


def require(obj, name: str, dist: str, why: str):
    """``obj.name``, or CompatError naming the library's version, the missing name and what needs it."""
    try:
        return getattr(obj, name)
    except AttributeError:
        owner = getattr(obj, "__name__", None) or type(obj).__name__  # a module or class, else an instance's class
        raise CompatError(f"{installed(dist)}: {owner} has no {name!r}, which journal_tools/compat relies on "
                          f"to {why}; check this release's changes and update journal_tools/compat") from None
