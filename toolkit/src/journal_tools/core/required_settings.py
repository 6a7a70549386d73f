"""The settings of mkdocs.yml the journal's checks depend on: one table, each with its reason.

The page tests read a page as the build renders it: they count the Python blocks a
reader sees by pymdownx.highlight's language classes, find fences as
pymdownx.superfences does and expand ``--8<--`` includes with pymdownx.snippets'
own preprocessor and options (``core/page/includes.py``). A setting missing there
does not stop anything by itself: a check downstream fails instead, naming
something else ("a reader sees 0 Python code blocks", "SyntaxError: unexpected
indent" in a snippet). So the settings are checked where they are written, when
mkdocs.yml is loaded (``compat/mkdocs_config.py``, for the build, ``make serve``
and the page tests alike), each at its extension's line, with the value it needs
and why.

An option's value is the extension's own: as written, else the extension's default
(asked of the extension itself, so a default that changes upstream is seen).
"""

from __future__ import annotations

from dataclasses import dataclass

import markdown

__all__ = ["REQUIRED", "Required", "Unmet", "unmet"]


@dataclass(frozen=True)
class Required:
    """A Markdown extension a check needs listed (``option`` None), or one of its options at ``value``."""

    extension: str
    option: str | None
    value: object
    reason: str  # which check depends on it, and how


REQUIRED: tuple[Required, ...] = (
    Required("pymdownx.highlight", None, None,
             "the page tests count the code blocks a reader sees by the classes it writes"),
    Required("pymdownx.highlight", "pygments_lang_class", True,
             "the page tests count the Python blocks a reader sees by their language-python class"),
    Required("pymdownx.highlight", "use_pygments", True,
             'the page tests count the code blocks a reader sees by the <div class="language-X highlight"> '
             "Pygments writes"),
    Required("pymdownx.superfences", None, None,
             "the page tests find code fences as it does: inside admonitions, tabs and lists, and ~~~ fences"),
    Required("pymdownx.snippets", None, None,
             "the page tests expand --8<-- includes with it: without it a reader sees the include line, "
             "not the code the tests run"),
    Required("pymdownx.snippets", "check_paths", True,
             "a missing snippet file or section fails at its include line; without it the build leaves "
             "the include out, silently"),
    Required("pymdownx.snippets", "dedent_subsections", True,
             "the page tests run a section cut from inside a function or class as the top-level code a "
             "reader sees; without it the section keeps its indent (SyntaxError: unexpected indent)"),
    Required("pymdownx.snippets", "restrict_base_path", True,
             "an include of a file outside the snippet folders fails at its line"),
)


@dataclass(frozen=True)
class Unmet:
    """One setting missing or set otherwise: ``extension`` (whose entry line it is reported at) and the message, without file and line."""

    extension: str
    listed: bool  # is the extension in markdown_extensions (else: report at markdown_extensions:)
    message: str


def unmet(extensions, configs: dict, required: tuple[Required, ...] = REQUIRED) -> list[Unmet]:
    """What of ``required`` the settings lack, in table order: one Unmet per option of a listed extension, one per unlisted extension."""
    listed = [str(e) for e in extensions]
    found: list[Unmet] = []
    for name in dict.fromkeys(r.extension for r in required):
        needs = [r for r in required if r.extension == name]
        if name not in listed:
            found.append(Unmet(name, False, _missing(name, needs)))
            continue
        values = _options(name, dict(configs.get(name) or {}))
        for r in needs:
            if r.option is not None and values.get(r.option) != r.value:
                written = f", not {_yaml(values[r.option])}" if r.option in (configs.get(name) or {}) else ""
                found.append(Unmet(name, True, f"{name} needs {r.option}: {_yaml(r.value)}{written} ({r.reason})"))
    return found


def _missing(name: str, needs: list[Required]) -> str:
    """Message for an unlisted extension: the options its defaults do not meet and why (each option's reason comes once listed)."""
    defaults = _options(name, {})
    options = [r for r in needs if r.option is not None and defaults.get(r.option) != r.value]
    why = next((r.reason for r in needs if r.option is None), None) or "; ".join(f"{r.option}: {r.reason}" for r in options)
    written = ", ".join(f"{r.option}: {_yaml(r.value)}" for r in options)
    return f"markdown_extensions needs {name}" + (f" with {written}" if written else "") + f" ({why})"


def _options(name: str, written: dict) -> dict:
    """The extension's options as it will use them: ``written`` over its own defaults."""
    try:
        return markdown.Markdown().build_extension(name, written).getConfigs()
    except (ImportError, TypeError, KeyError):  # MkDocs reports an extension it cannot load, at its line
        return written


def _yaml(value) -> str:
    """A value as mkdocs.yml writes it (``true``, not ``True``)."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    return repr(value)
