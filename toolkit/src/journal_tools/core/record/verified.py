"""The "verified" badge: what the last test run proved about a page, shown only while true.

The page tests (``journal_tools.pagetest``) record, for every page whose tests
all passed, whichever command ran them (``make test``, ``make check``, ``make
update-outputs``, which records a page it rewrote under its new digest), a
digest of everything its code depends on, with what ran:

- the page itself (a Markdown page, or a notebook's script);
- every snippet file it includes (``--8<--``), and the files those include;
- every snippet module its code imports (``from self_attention import ...``),
  followed through the modules those import (as the notebook cache does);
- ``requirements.txt`` (the pinned PyTorch and everything else).

The record is ``.cache/verified.json`` beside mkdocs.yml (not committed: it
belongs to one checkout's last run), written once per pytest session by the
controller (the process that collects the reports under pytest-xdist),
atomically. A page whose tests failed in that session loses its entry, and so
does a page that no longer exists; a page not run in it keeps its old one, and a
page whose passed tests were reused (``core/code/render_record.py``) is recorded as a
run of it would be.

The build (the journal plugin) computes the same digest of each entry and
notebook page as it builds it and shows
``N code blocks ran · M numbers checked · PyTorch 2.13.0 · 2026-12-01`` only
when the digests are equal; otherwise ``not verified since the last change``.
So an edited page, snippet or pin built without running the tests again is
never shown as verified.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from journal_tools.core.code.imports import code_of, follow_imports, imported_names_in_text
from journal_tools.core.page.includes import included_files
from journal_tools.core.record import atomic
from journal_tools.core.settings import Settings

__all__ = ["RECORD_NAME", "Entry", "add_badge", "badge_html", "page_digest", "read_record", "record_path",
           "torch_version", "update_record"]

RECORD_NAME = "verified.json"
_VERSION = 1
_REQUIREMENTS = "requirements.txt"


@dataclass(frozen=True)
class Entry:
    """What one passing test run proved about one page."""

    digest: str
    blocks: int  # code blocks (notebook: code cells) that ran
    numbers: int  # numbers compared with what the code printed
    torch: str  # the PyTorch version the code ran on
    date: str  # YYYY-MM-DD, when the run ended (UTC)
    notebook: bool = False


def record_path(settings: Settings) -> Path:
    """``.cache/verified.json`` beside mkdocs.yml."""
    return settings.cache_dir / RECORD_NAME


def page_digest(path: Path, settings: Settings) -> str:
    """sha256 of the page, the snippets it includes or imports, and requirements.txt (see the module docstring)."""
    path = Path(path)
    key = (path, settings.root, tuple(settings.snippet_dirs))
    listing = _listing(settings)
    kept = _kept.get(key)
    if kept is not None and kept[0] == listing and _contents(kept[1]) == kept[2]:
        files, contents = kept[1], kept[2]
    else:
        files = _inputs(path, settings)
        contents = _contents(files)
        _kept[key] = (listing, files, contents)
    h = hashlib.sha256()
    for label, data in zip(_labels(files, settings), contents):
        data = data or b""
        h.update(f"{label}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


# make serve asks for every served page's digest at every rebuild (its code runner, the badge, the
# downloads), and finding what a page includes and imports (the include expander, the import parser)
# costs far more than reading and hashing those files. So the files found are kept per page, with
# their bytes and the names in every folder under the snippet folders, and found again when a byte
# or a name differs: the same bytes and names can only be found to include and import the same files.
_kept: dict[tuple, tuple[tuple, tuple[Path, ...], tuple]] = {}


def _listing(settings: Settings) -> tuple:
    """The names in every folder under the snippet folders (a module or include that appears there changes what is found)."""
    return tuple((root, tuple(sorted(names))) for d in settings.snippet_dirs for root, _, names in os.walk(d))


def _contents(files: tuple[Path, ...]) -> tuple:
    out = []
    for file in files:
        try:
            out.append(file.read_bytes())
        except OSError:
            out.append(None)
    return tuple(out)


def _inputs(path: Path, settings: Settings) -> tuple[Path, ...]:
    """The page, the snippet files it includes or imports (sorted), requirements.txt: what its digest hashes."""
    if settings.is_notebook(path):
        files = follow_imports(imported_names_in_text(code_of(path)), list(settings.snippet_dirs))
    else:
        text = path.read_bytes().decode("utf-8-sig", errors="replace")
        included = included_files(text, settings)
        code = "\n".join([text, *(p.read_text(encoding="utf-8", errors="replace") for p in included)])
        files = included + follow_imports(imported_names_in_text(code), list(settings.snippet_dirs))
    return (path, *sorted({f.resolve() for f in files}), settings.root / _REQUIREMENTS)


def _labels(files: tuple[Path, ...], settings: Settings) -> list[str]:
    page, *snippets, requirements = files
    return [f"page {settings.rel(page)}", *(f"snippet {settings.rel(f)}" for f in snippets), _REQUIREMENTS]


def read_record(settings: Settings) -> dict[str, Entry]:
    """The recorded pages (path relative to the root -> Entry); empty when there is no usable record."""
    try:
        raw = json.loads(record_path(settings).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict) or raw.get("version") != _VERSION:
        return {}
    pages = {}
    for rel, fields in (raw.get("pages") or {}).items():
        try:
            pages[rel] = Entry(**fields)
        except TypeError:  # an entry written by another version: not trusted
            continue
    return pages


def update_record(settings: Settings, passed: dict[str, Entry], failed: set[str]) -> None:
    """Merge one session's results into the record: passed pages replaced, failed pages and
    pages that no longer exist removed (a fresh run would record neither)."""
    pages = read_record(settings)
    for rel in failed:
        pages.pop(rel, None)
    pages.update(passed)
    pages = {rel: entry for rel, entry in pages.items() if (settings.root / rel).is_file()}
    payload = {"version": _VERSION, "pages": {rel: asdict(pages[rel]) for rel in sorted(pages)}}
    path = record_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(path, (json.dumps(payload, indent=1, sort_keys=True) + "\n").encode())


def torch_version() -> str:
    """The installed PyTorch's public version (``2.13.0`` for ``2.13.0+cpu``), or "" without it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch").split("+", 1)[0]
    except PackageNotFoundError:
        return ""


def today() -> str:
    """The date a run ends, UTC."""
    return dt.datetime.now(dt.timezone.utc).date().isoformat()


def _plural(n: int, one: str) -> str:
    return f"{n} {one}" if n == 1 else f"{n} {one}s"


def badge_html(entry: Entry | None, current_digest: str) -> str:
    """The badge for a page whose digest as built is ``current_digest``."""
    if entry is None or entry.digest != current_digest:
        return ('<p class="journal-verified journal-verified--stale" data-verified="false">'
                "Not verified since the last change: <code>make test</code> runs this page's code.</p>")
    parts = [f"{_plural(entry.blocks, 'code cell' if entry.notebook else 'code block')} ran",
             f"{_plural(entry.numbers, 'number')} checked"]
    if entry.torch:
        parts.append(f"PyTorch {entry.torch}")
    parts.append(entry.date)
    text = " · ".join(html.escape(p) for p in parts)
    return (f'<p class="journal-verified" data-verified="true">'
            f'<span class="journal-verified__label">Verified:</span> {text}</p>')


_H1_END = re.compile(r"</h1>", re.IGNORECASE)


def add_badge(page_html: str, badge: str) -> str:
    """``badge`` right after the page's title (its first ``</h1>``), or first when it has none."""
    m = _H1_END.search(page_html)
    if m is None:
        return badge + "\n" + page_html
    return page_html[: m.end()] + "\n" + badge + page_html[m.end():]
