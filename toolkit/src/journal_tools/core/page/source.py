"""One way to read a page's text: as MkDocs reads it, or an error naming the line.

MkDocs (``File.content_string``) and the blog plugin open a page with
``encoding="utf-8-sig"`` in text mode: a byte-order mark is dropped and
``\\r\\n`` and a lone ``\\r`` become ``\\n``. Every reader of a page here uses
the same rules, so a line number means the same line everywhere and a BOM
never hides the first line's fence or front matter. A file that is not UTF-8
fails MkDocs with "Encoding error reading file" and no line; here it is
``path:line: ...`` at the first byte that does not decode.
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
