"""The journal files an entry's code reads, written into its downloads (text as text, others as base64) and
written out beside the script when it runs, where a snippet's ``__file__`` points; a reader's own copy is
kept. A file above :data:`LIMIT` is not carried: the download says where to get it and the build warns.
"""

from __future__ import annotations

import base64
import textwrap
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from journal_tools.core.mistake import Mistake
from journal_tools.core.settings import Settings

__all__ = ["LIMIT", "Carried", "ReadFile", "TooBig", "carry"]

LIMIT = 1_048_576  # bytes a file (1 MiB): twice that in a .py and its .ipynb, still a quick download

HELPER = '''\
def journal_file(path, data):
    """Put ``data`` where the page's code reads the journal's file ``path``: beside this file."""
    target = HERE / path
    if not target.exists():  # a copy already there is the reader's: kept
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
'''

MISSING_HELPER = '''\
def journal_file_elsewhere(path, size, url):
    """A file the page's code reads, too big to carry here: stop at once, saying where to get it."""
    if not (HERE / path).exists():
        raise SystemExit(f"{path} ({size:,} bytes) is not in this download: get it from {url} and "
                         f"put it at {HERE / path}")
'''


@dataclass(frozen=True)
class ReadFile:
    """A journal file the page's code read: path from the journal root, and the page line of the block that read it (None: unknown)."""

    path: Path
    line: int | None = None


class TooBig(Mistake):
    """A file the page's code reads is above the downloads' limit."""


@dataclass
class Carried:
    """The files of one download: the code that writes them (or says where to get them), and the mistake of each file too big to carry."""

    code: list[str]  # one piece per file, in path order
    helpers: list[str]
    too_big: list[TooBig]


def carry(files, settings: Settings, page_path: str, default_line: int | None) -> Carried:
    """The code carrying ``files`` (Paths or ReadFiles relative to the journal root)."""
    reads = sorted({_read(f) for f in files}, key=lambda r: r.path.as_posix())
    code, too_big, helpers = [], [], set()
    for read in reads:
        rel = PurePosixPath(read.path.as_posix())
        try:
            data = (settings.root / read.path).read_bytes()
        except FileNotFoundError:  # read in an earlier run, gone now: the page's own code fails where it reads it (its test says)
            continue
        if len(data) > LIMIT:
            url = _url(settings.repo_url, rel)
            too_big.append(TooBig(page_path, read.line or default_line,
                                  f"{rel}, which this page's code reads, is {len(data):,} bytes: above the downloads' "
                                  f"limit of {LIMIT:,} bytes a file, so its .py and .ipynb do not carry it (they say to "
                                  f"get it from {url}); make the file smaller, or have the code make it"))
            code.append(f"\n# {rel} ({len(data):,} bytes) is too big to carry here: get it from\n# {url}\n"
                        f"journal_file_elsewhere({str(rel)!r}, {len(data)}, {url!r})\n")
            helpers.add(MISSING_HELPER)
            continue
        code.append(f"\n# {rel}, which the page's code reads\njournal_file({str(rel)!r}, {_literal(data)})\n")
        helpers.add(HELPER)
    return Carried(code, sorted(helpers), too_big)


def _read(f) -> ReadFile:
    read = f if isinstance(f, ReadFile) else ReadFile(Path(f))
    if read.path.is_absolute() or ".." in read.path.parts:
        raise ValueError(f"{read.path}: a file read is given relative to the journal root, inside it")
    return read


def _url(repo_url: str, rel: PurePosixPath) -> str:
    if not repo_url:
        return f"the journal's repository (the file {rel}; mkdocs.yml has no repo_url)"
    return f"{repo_url.rstrip('/')}/blob/HEAD/{rel}"


def _literal(data: bytes) -> str:
    """``data`` as an expression giving its bytes: text as a raw string when it round-trips, else base64."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and "\r" not in text and "\x00" not in text:
        for q in ("'''", '"""'):
            if q not in text and not text.endswith(("\\", q[0])):
                return f"r{q}\n{text}{q}.removeprefix('\\n').encode()"
    lines = textwrap.wrap(base64.b64encode(data).decode("ascii"), 76) or [""]
    body = "\n".join(f"    {line!r}" for line in lines)
    return f"base64.b64decode(\n{body}\n)"
