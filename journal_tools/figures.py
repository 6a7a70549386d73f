"""Figures drawn by snippet code at build time, inlined into pages as SVG.

A page asks for a figure with one line of its own:

    <!-- journal:figure attention_basics.unmasked_heatmap | Caption text. -->

``attention_basics.unmasked_heatmap`` is a function in a module of
``snippets/`` (the pymdownx.snippets base path), taking no arguments and
returning SVG text (see ``snippets/figures.py``: transparent background, text
in ``currentColor``, an accessible name in ``aria-label`` and ``<title>``).
The page usually shows that function through a snippet include, so the tests
run the very code that draws the figure; the build calls it and replaces the
line with

    <figure class="journal-figure"><svg role="img" aria-label="..."> ... </svg>
    <figcaption>Caption text.</figcaption></figure>

No image is committed. A missing module or function, an exception, or output
that is not SVG stops the build with the page and line.

Cache: calling a figure function means importing torch and matplotlib (seconds
per build), so each validated SVG is kept in ``.cache/figures/`` (beside
mkdocs.yml; gitignored) under the sha256 of the figure reference, the bytes of
every ``*.py`` file in the snippet directories and the bytes of this file. Any
edit to a snippet (or to this hook) therefore misses the cache, and a hit
imports nothing. Entries are written to a temporary file and renamed into
place, so parallel builds never read half a file.
"""

from __future__ import annotations

import hashlib
import html
import importlib
import os
import re
import sys
from pathlib import Path

from journal_tools import atomic

__all__ = [
    "CACHE_DIR", "FigureError", "FIGURE_LINE", "cache_key", "expand_figures",
    "forget_snippet_modules", "on_page_markdown", "snippet_dirs",
]

CACHE_DIR = Path(".cache") / "figures"  # relative to the mkdocs.yml folder

FIGURE_LINE = re.compile(
    r"^(?P<indent>[ \t]*)<!--\s*journal:figure\s+(?P<target>[A-Za-z_][\w.]*)\s*"
    r"(?:\|\s*(?P<caption>.*?))?\s*-->\s*$"
)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


class FigureError(Exception):
    """A figure line that could not be turned into a figure."""


def snippet_dirs(config) -> list[str]:
    """Absolute snippet base paths from the pymdownx.snippets options."""
    root = Path(config.config_file_path).resolve().parent
    opts = (config.mdx_configs or {}).get("pymdownx.snippets", {})
    bases = opts.get("base_path", ["."])
    if isinstance(bases, str):
        bases = [bases]
    return [str((root / b).resolve()) for b in bases]


def forget_snippet_modules(dirs: list[str]) -> None:
    """Drop snippet modules imported by an earlier build (``mkdocs serve``
    rebuilds in one process: edited snippets must be re-imported)."""
    prefixes = tuple(os.path.join(d, "") for d in dirs)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if path and os.path.abspath(path).startswith(prefixes):
            del sys.modules[name]


def snippets_digest(dirs: list[str]) -> str:
    """sha256 over this file and every ``*.py`` in the snippet directories
    (names and bytes): any edit there changes every figure's cache key."""
    h = hashlib.sha256()
    h.update(Path(__file__).read_bytes())
    for d in dirs:
        h.update(b"\0dir\0" + d.encode())
        base = Path(d)
        if not base.is_dir():
            continue
        for path in sorted(base.glob("*.py")):
            data = path.read_bytes()
            h.update(b"\0file\0" + path.name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


def cache_key(target: str, digest: str) -> str:
    """The cache file stem for ``target`` given :func:`snippets_digest`."""
    return hashlib.sha256(f"{target}\0{digest}".encode()).hexdigest()


def _cache_read(cache_dir: Path, key: str) -> str | None:
    try:
        return (cache_dir / f"{key}.svg").read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None


def _cache_write(cache_dir: Path, key: str, svg: str) -> None:
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(cache_dir / f"{key}.svg", svg.encode("utf-8"))
    except OSError:
        pass  # a read-only tree still builds, just without the cache


def _call(target: str, dirs: list[str]) -> str:
    module_name, _, func_name = target.rpartition(".")
    if not module_name:
        raise FigureError(f"{target!r} is not module.function")
    for d in reversed(dirs):
        if d not in sys.path:
            sys.path.insert(0, d)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise FigureError(f"cannot import {module_name!r} from {', '.join(dirs)}: {exc}") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise FigureError(f"{module_name} has no function {func_name!r}")
    try:
        svg = func()
    except Exception as exc:  # the page names the culprit; the traceback is in the tests
        raise FigureError(f"{target}() raised {type(exc).__name__}: {exc}") from None
    if not isinstance(svg, str) or not svg.lstrip().startswith("<svg"):
        raise FigureError(f"{target}() must return SVG text starting with <svg")
    if "aria-label=" not in svg.split(">", 1)[0]:
        raise FigureError(f"{target}() returned an SVG without aria-label (its accessible name)")
    return svg.strip()


def expand_figures(
    markdown: str,
    *,
    dirs: list[str],
    src_path: str,
    source: str | None = None,
    cache_dir: str | Path | None = None,
) -> str:
    """Replace each figure line (outside code fences) with the inlined figure.

    ``source``: the whole file, front matter included, for error line numbers.
    ``cache_dir``: the on-disk SVG cache (None: no disk cache).
    """
    out: list[str] = []
    digest = snippets_digest(dirs) if cache_dir is not None else None
    fence: str | None = None
    cache: dict[str, str] = {}
    for lineno, line in enumerate(markdown.split("\n"), start=1):
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):].strip():
                fence = None
            out.append(line)
            continue
        fm = None if fence is not None else FIGURE_LINE.match(line)
        if fm is None:
            out.append(line)
            continue
        target = fm["target"]
        try:
            svg = cache.get(target)
            if svg is None and cache_dir is not None:
                key = cache_key(target, digest)
                svg = _cache_read(Path(cache_dir), key)
                if svg is None:
                    svg = _call(target, dirs)
                    _cache_write(Path(cache_dir), key, svg)
            elif svg is None:
                svg = _call(target, dirs)
        except FigureError as exc:
            if source is not None and line in source.split("\n"):
                lineno = source.split("\n").index(line) + 1
            raise FigureError(f"{src_path}:{lineno}: {exc}") from None
        cache[target] = svg
        caption = fm["caption"]
        parts = ['<figure class="journal-figure">', svg]
        if caption:
            parts.append(f"<figcaption>{html.escape(caption)}</figcaption>")
        parts.append("</figure>")
        # Blank lines around: Markdown treats it as one raw HTML block.
        out.extend(["", *parts, ""])
    return "\n".join(out)


def on_page_markdown(markdown: str, *, config, src_path: str, source: str | None = None) -> str:
    """The MkDocs event, called from journal_tools/hooks.py."""
    if "journal:figure" not in markdown:
        return markdown
    from mkdocs.exceptions import PluginError

    dirs = snippet_dirs(config)
    forget_snippet_modules(dirs)  # a serve rebuild sees edited snippets
    cache_dir = Path(config.config_file_path).resolve().parent / CACHE_DIR
    try:
        return expand_figures(markdown, dirs=dirs, src_path=src_path, source=source, cache_dir=cache_dir)
    except FigureError as exc:
        raise PluginError(str(exc)) from None
