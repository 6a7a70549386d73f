"""Figures drawn by snippet code at build time, inlined into pages as SVG.

A page asks for a figure with one line of its own:

    <!-- journal:figure attention_basics.unmasked_heatmap | Caption text. -->

``attention_basics.unmasked_heatmap`` is a function in a module of
``snippets/`` (the pymdownx.snippets base path), taking no arguments and
returning SVG text (see ``snippets/figures.py``: transparent background, text
in ``currentColor``, an accessible name in ``aria-label`` and ``<title>``).
The page usually shows that function through a snippet include, so the tests
run the very code that draws the figure; the build replaces the line with

    <figure class="journal-figure"><svg role="img" aria-label="..."> ... </svg>
    <figcaption>Caption text.</figcaption></figure>

No image is committed. A missing module or function, an exception, or output
that is not SVG stops the build with the page and line.

Drawing runs in a child process (``python -m journal_tools.core.code.figure_child``)
whose ``PYTHONPATH`` holds the snippet folders: snippet modules import each
other by bare name, the build process never imports them (so ``mkdocs serve``
always draws with the code as saved, and no ``sys.path`` is edited), and all
the figures a build misses are drawn by one child. Each validated SVG is kept
in ``.cache/figures/`` under the sha256 of the figure reference, the bytes of
every ``*.py`` file in the snippet folders and the bytes of the drawing code,
so any edit there misses the cache and a hit starts no process.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from journal_tools.core.mistake import Mistake
from journal_tools.core.page.fences import inside_fence, scan
from journal_tools.core.record import atomic

__all__ = ["FigureError", "FigureRef", "cache_store", "draw", "expand_figures", "find_figures", "prepare", "snippets_digest"]

FIGURE_LINE = re.compile(
    r"^(?P<indent>[ \t]*)<!--\s*journal:figure\s+(?P<target>[A-Za-z_][\w.]*)\s*"
    r"(?:\|\s*(?P<caption>.*?))?\s*-->\s*$"
)
_WORKER = Path(__file__).with_name("figure_child.py")


class FigureError(Mistake):
    """A figure line that could not be turned into a figure, at that line."""


@dataclass(frozen=True)
class FigureRef:
    """One figure line: where it is and what it asks for."""

    path: str
    line: int  # 1-based
    target: str
    caption: str


def find_figures(text: str, path: str) -> list[FigureRef]:
    """The figure lines of a page's source, outside code fences (one fence scanner)."""
    if "journal:figure" not in text:
        return []
    lines = text.split("\n")
    try:
        fenced = inside_fence(scan(lines))
    except Exception:  # an unclosed fence: the page tests name it; draw what is outside
        fenced = set()
    refs = []
    for i, line in enumerate(lines):
        m = FIGURE_LINE.match(line) if i not in fenced else None
        if m:
            refs.append(FigureRef(path, i + 1, m["target"], m["caption"] or ""))
    return refs


def snippets_digest(dirs: list[Path]) -> str:
    """sha256 over the drawing code and every ``*.py`` in the snippet folders (names
    and bytes): any edit there changes every figure's cache key. The folders count by
    their order, not their absolute paths, so the cache survives a move of the checkout."""
    h = hashlib.sha256(Path(__file__).read_bytes() + _WORKER.read_bytes())
    for i, d in enumerate(dirs):
        h.update(b"\0dir\0" + str(i).encode())
        for path in sorted(Path(d).glob("*.py")) if Path(d).is_dir() else []:
            data = path.read_bytes()
            h.update(b"\0file\0" + path.name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


def cache_key(target: str, digest: str) -> str:
    """The cache file stem for ``target`` given :func:`snippets_digest`."""
    return hashlib.sha256(f"{target}\0{digest}".encode()).hexdigest()


def draw(targets: list[str], dirs: list[Path]) -> dict[str, str]:
    """Call each figure function in one child process; {target: svg or error text}.

    An error comes back as text starting with ``error: ``.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, dirs), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run(
        [sys.executable, "-m", "journal_tools.core.code.figure_child"],
        input=json.dumps(targets), capture_output=True, text=True, env=env,
    )
    if proc.returncode != 0:
        return {t: f"error: the figure process failed: {proc.stderr.strip()[-400:]}" for t in targets}
    return json.loads(proc.stdout)


def prepare(refs: list[FigureRef], dirs: list[Path], cache_dir: Path | None, draw_with=None,
            stale: dict[str, str] | None = None) -> dict[str, str]:
    """Every figure of ``refs`` as SVG: from the cache, or drawn (all misses in one process).

    ``draw_with``: how to draw the misses (default :func:`draw`, a child process;
    ``make serve`` passes its warm worker's). ``stale``: ``make serve`` only, the
    SVGs of the last build: a missed figure found there is served as it was (not
    cached, its target left in ``stale`` for the caller to redraw after the
    build) and the figures without one are drawn now; every other target is
    removed from ``stale``.

    Raises FigureError naming the first figure line whose drawing failed.
    """
    targets = sorted({r.target for r in refs})
    if not targets:
        return {}
    digest = snippets_digest(dirs)
    found: dict[str, str] = {}
    for target in targets:
        svg = _cache_read(cache_dir, cache_key(target, digest)) if cache_dir else None
        if svg is not None:
            found[target] = svg
    missing = [t for t in targets if t not in found]
    deferred = {t: stale[t] for t in missing if t in stale} if stale is not None else {}
    if stale is not None:
        stale.clear()
        stale.update(deferred)
    missing = [t for t in missing if t not in deferred]
    drawn = (draw_with or draw)(missing, dirs) if missing else {}
    drawn.update(deferred)
    for ref in refs:
        result = found.get(ref.target) or drawn.get(ref.target, "error: not drawn")
        if result.startswith("error: "):
            raise FigureError(ref.path, ref.line, result[len("error: "):])
        found[ref.target] = result
    if cache_dir:
        for target in missing:
            cache_store(cache_dir, target, digest, found[target])
    return found


def expand_figures(markdown: str, svgs: dict[str, str], path: str) -> str:
    """Replace each figure line (outside code fences) with its inlined figure."""
    refs = {r.line: r for r in find_figures(markdown, path)}
    if not refs:
        return markdown
    out: list[str] = []
    for n, line in enumerate(markdown.split("\n"), start=1):
        ref = refs.get(n)
        if ref is None:
            out.append(line)
            continue
        if ref.target not in svgs:
            raise FigureError(path, n, f"figure {ref.target} was not prepared")
        parts = ['<figure class="journal-figure">', svgs[ref.target]]
        if ref.caption:
            parts.append(f"<figcaption>{html.escape(ref.caption)}</figcaption>")
        parts.append("</figure>")
        # Blank lines around: Markdown treats it as one raw HTML block.
        out.extend(["", *parts, ""])
    return "\n".join(out)


def _cache_read(cache_dir: Path, key: str) -> str | None:
    try:
        return (cache_dir / f"{key}.svg").read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None


def cache_store(cache_dir: Path, target: str, digest: str, svg: str) -> None:
    """Keep ``target``'s SVG under its cache key (``make serve`` stores background redraws too)."""
    _cache_write(cache_dir, cache_key(target, digest), svg)


def _cache_write(cache_dir: Path, key: str, svg: str) -> None:
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(cache_dir / f"{key}.svg", svg.encode("utf-8"))
    except OSError:
        pass  # a read-only tree still builds, just without the cache
