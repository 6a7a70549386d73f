"""Page checks that passed, remembered by what they read, so an unchanged page is not checked again.

Two kinds use it: the render check of a page (below), and a page's whole test
(its render check and every code block), keyed on the page digest
(``verified.page_digest``: the page, its includes, the snippets its code
imports, requirements.txt) with the installed PyTorch, the toolkit's code and
the library versions: after a one-entry edit, ``make test`` runs that entry's
code and not the others'. The pytest plugin says in one line how many it reused.

A page's render check (``render_check.check_render``) is a function of the page with
its snippet includes, the site's Markdown settings, the BibTeX file, and the
toolkit's code and library versions: nothing else reaches the render. The key
is a digest of exactly these; a check that passed leaves an empty file named by
its key under ``.cache/render-checks/``, and the next session's check of the
same key passes without rendering. Rendering is most of what the page tests do
besides running code (about 18 ms a page with syntax highlighting and MathML),
so at 1,000 entries this is what ``make test`` saves after a one-entry edit.

A page's whole test also keeps what it proved (code blocks run, numbers checked):
a reused page goes into the verified record as a run of it would, so the record and
every badge after any sequence of runs equal what a ``FRESH=1`` run writes.

Any change to an input is a new key, so the check runs; a failed check leaves
nothing. ``FRESH=1`` and CI (``CI`` set) use no remembered result, but record what passed.
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path

from journal_tools.core.settings import Settings, env_flag

__all__ = ["RenderChecks"]

FOLDER = "render-checks"
RUNS_FOLDER = "page-runs"  # whole page tests: render check and code
# The libraries a render goes through: their versions are part of every key.
VERSIONED = ("mkdocs", "mkdocs-material", "Markdown", "pymdown-extensions", "Pygments", "math-core", "pybtex", "journal-tools")
PACKAGE = Path(__file__).resolve().parents[2]  # journal_tools/


def _hasher():
    return hashlib.blake2b(digest_size=20)


class RenderChecks:
    """The passed checks of one kind of a session's project (``settings.cache_dir / folder``); ``versioned``:
    more distributions whose versions are part of every key (PyTorch, for the code a page runs)."""

    def __init__(self, settings: Settings, *, enabled: bool | None = None, folder: str = FOLDER, versioned: tuple = ()):
        self.folder = settings.cache_dir / folder
        self.enabled = not (env_flag("FRESH") or env_flag("CI")) if enabled is None else enabled
        h = _hasher()
        for name in VERSIONED + versioned:
            try:
                h.update(f"{name}={metadata.version(name)}\n".encode())
            except metadata.PackageNotFoundError:
                h.update(f"{name}=none\n".encode())
        for path in sorted(PACKAGE.rglob("*.py")):  # the toolkit's code: its Markdown extensions and readers render
            h.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
        h.update(settings.markdown_key().encode())
        bib = settings.bibliography
        h.update(bib.read_bytes() if bib is not None and bib.is_file() else b"no bibliography")
        self._shared = h.digest()
        self.reused = 0

    def key(self, path: str, expanded_text: str) -> str:
        """The key of the check of page ``path`` (relative to the root), includes expanded."""
        h = _hasher()
        h.update(self._shared)
        h.update(path.encode() + b"\0" + expanded_text.encode())
        return h.hexdigest()

    def passed(self, key: str) -> bool:
        """Did a check of this key pass before (and may that be reused)?"""
        if self.enabled and (self.folder / key[:2] / key).is_file():
            self.reused += 1
            return True
        return False

    def result(self, key: str) -> dict | None:
        """What the check of ``key`` proved when it passed (``record``'s ``proved``), if it may be
        reused; None to run it (never passed, reuse off, or a record without what it proved)."""
        if not self.enabled:
            return None
        try:
            proved = json.loads((self.folder / key[:2] / key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(proved, dict):
            return None
        self.reused += 1
        return proved

    def record(self, key: str, proved: dict | None = None) -> None:
        """Remember that the check of ``key`` passed, and what it ``proved`` (best effort: a
        read-only cache only costs time).

        Also under FRESH=1 and CI, which reuse nothing but may leave a record: what passed there
        is what the next ``make test`` may reuse."""
        target: Path = self.folder / key[:2] / key
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(proved) if proved is not None else "", encoding="utf-8")
        except OSError:
            pass
