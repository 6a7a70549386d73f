"""MkDocs' log messages (1.6): its broken-link warnings given the link's ``file:line:`` (their wording, hence
here); its lines for each serve rebuild left out (:func:`quiet_rebuilds`).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

__all__ = ["LinkLocator", "locate_link", "quiet_rebuilds"]


_LINK_WARNING = re.compile(r"^Doc file '(?P<file>[^']+)' contains (?:a|an [\w ]+?) link (?:to )?'(?P<link>[^']+)'")


def locate_link(message: str, docs_dir: Path, root: Path) -> str:
    """MkDocs' link warning as ``docs/x.md:12: ...``, with the file from ``root`` and the link's line; unchanged when not found."""
    m = _LINK_WARNING.match(message)
    if m is None:
        return message
    path = docs_dir / m["file"]
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError:
        return message
    link = m["link"]
    for needle in (f"]({link}", f"]: {link}", f'"{link}"', f"({link})", link):
        pos = text.find(needle)
        if pos >= 0:
            line = text.count("\n", 0, pos) + 1
            try:
                rel = path.resolve().relative_to(root).as_posix()
            except ValueError:
                rel = str(path)
            return f"{rel}:{line}: {message}"
    return message


class LinkLocator(logging.Filter):
    """Puts ``file:line:`` in front of MkDocs' link warnings (a filter on ``mkdocs.structure.pages``)."""

    LOGGER = "mkdocs.structure.pages"

    def __init__(self, docs_dir: Path, root: Path):
        super().__init__()
        self.docs_dir, self.root = Path(docs_dir), Path(root).resolve()

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message in place; never drops a record."""
        if record.levelno >= logging.INFO:
            located = locate_link(record.getMessage(), self.docs_dir, self.root)
            if located is not record.getMessage():
                record.msg, record.args = located, ()
        return True

    @classmethod
    def install(cls, docs_dir: Path, root: Path) -> LinkLocator:
        """Install one locator on MkDocs' page logger, replacing any from an earlier build."""
        logger = logging.getLogger(cls.LOGGER)
        for old in [f for f in logger.filters if isinstance(f, cls)]:
            logger.removeFilter(old)
        locator = cls(docs_dir, root)
        logger.addFilter(locator)
        return locator


# What MkDocs 1.6 logs at every serve rebuild, by logger (the live-reload server's lines carry a "[HH:MM:SS] " prefix), and mkdocs-jupyter's
# line for a notebook it did not execute again: make serve's own line per save (journal_tools.serve.save_log) says all of it; an error or
# warning still shows, and so does a notebook that executes ("Cache miss, writing"). A post the blog refuses is served as a draft page
# (mkdocs_plugin/plugin.py): MkDocs lists it as preview-only and the RSS plugin finds no date in it; its line says so.
_REBUILD_LINES = {
    "mkdocs.commands.serve": re.compile(r"Building documentation\.\.\.$"),
    "mkdocs.commands.build": re.compile(r"(Cleaning site directory|Documentation built in [\d.]+ seconds$"
                                        r"|The following pages are being built only for the preview)"),
    "mkdocs.plugins.[RSS-plugin]": re.compile(r"\[RSS-plugin\]: (Creation date of .* has not been recognized"
                                                   r"|Dates could not be retrieved for page: )"),
    "mkdocs.livereload": re.compile(r"(\[\d\d:\d\d:\d\d\] )?(Detected file changes|Reloading browsers)$"),
    "mkdocs.plugins.mkdocs_jupyter": re.compile(r"Cache hit: "),
}


class _RebuildLines(logging.Filter):
    def __init__(self, pattern: re.Pattern):
        super().__init__()
        self.pattern = pattern

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.INFO or not self.pattern.match(record.getMessage())


def quiet_rebuilds() -> None:
    """Leave out MkDocs' info lines of each rebuild from now on (once per process)."""
    for name, pattern in _REBUILD_LINES.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, _RebuildLines) for f in logger.filters):
            logger.addFilter(_RebuildLines(pattern))
