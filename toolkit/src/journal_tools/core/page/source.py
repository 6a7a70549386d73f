"""A page's text as MkDocs reads it (``utf-8-sig``, universal newlines), so a line number means the same line
everywhere; a file that is not UTF-8 is an error at the line of its first bad byte.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from journal_tools.core.mistake import Mistake

__all__ = ["SourceError", "decode", "read_source"]


class SourceError(Mistake):
    """A page that cannot be read as text, at the line of its first undecodable byte."""


def read_source(path: Path, rel: str) -> str:
    """The text of the page at ``path`` (named ``rel`` in errors), as MkDocs reads it."""
    return decode(Path(path).read_bytes(), rel)


def decode(data: bytes, rel: str) -> str:
    """``data`` as MkDocs decodes a page; SourceError at the line of the first bad byte."""
    if data.startswith(codecs.BOM_UTF8):  # what "utf-8-sig" drops
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = _newlines(data[: exc.start].decode("utf-8"))
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        raise SourceError(rel, line, f"not UTF-8 text: byte 0x{data[exc.start]:02x} at column {column} "
                                     "does not decode (save the file as UTF-8)") from None
    return _newlines(text)


def _newlines(text: str) -> str:
    # Text mode's universal newlines, as open() applies them (decoding the whole
    # file first gives the bad byte's offset in the file, which open() does not).
    return text.replace("\r\n", "\n").replace("\r", "\n")
