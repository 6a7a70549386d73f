"""Figures drawn by snippet code at build time, inlined as SVG: ``<!-- journal:figure module.function | Caption -->``.

No image is committed; a missing function, an exception or output that is not SVG stops the build at the line.
The page-code worker (``core.code.sandbox``, the one that runs page code, under its clock) draws all a build misses,
so the build never imports snippet code and serve draws what is saved; each SVG is kept in the record under what it read.
"""

from __future__ import annotations

import html
import importlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from journal_tools.core.mistake import Mistake
from journal_tools.core.page.fences import inside_fence, scan
from journal_tools.core.page.limits import Limit
from journal_tools.core.record.inputs import Inputs, Record, environment

__all__ = ["KIND", "FigureError", "FigureRef", "call", "draw", "draw_in", "expand_figures", "find_figures", "keep", "mistakes", "prepare"]

KIND = "figure"  # the record's kind: subject the figure's target, result its SVG

FIGURE_LINE = re.compile(
    r"^(?P<indent>[ \t]*)<!--\s*journal:figure\s+(?P<target>[A-Za-z_][\w.]*)\s*"
    r"(?:\|\s*(?P<caption>.*?))?\s*-->\s*$"
)
_LABEL = re.compile(r"\s*\{#(fig-[\w-]*\w)\}$")


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


def draw(targets: list[str], dirs: list[Path], root: Path | None = None,
         limit: Limit | None = None) -> dict[str, tuple[str, dict | None]]:
    """Call each figure function in a page-code worker of its own, ``limit`` each; {target: (svg or ``error: ...``, what it read)}."""
    from journal_tools.core.code.sandbox import Sandbox
    from journal_tools.core.page.limits import DEFAULT_TIMEOUT

    sandbox = Sandbox()
    try:
        return draw_in(sandbox, targets, dirs, root, limit or Limit(DEFAULT_TIMEOUT, "the default block limit"))
    finally:
        sandbox.close()


def prepare(refs: list[FigureRef], dirs: list[Path], record: Record | None, draw_with=None,
            stale: dict[str, str] | None = None, limit: Limit | None = None) -> dict[str, str]:
    """Every figure of ``refs`` as SVG (``error: ...`` for one that failed: :func:`mistakes`), from the record or drawn (misses in one
    ``draw_with`` call). ``stale`` (make serve): last build's SVGs, served for a miss and left to redraw after the build."""
    targets = sorted({r.target for r in refs})
    if not targets:
        return {}
    found: dict[str, str] = {}
    for target in targets:
        kept = record.find(KIND, target, environment()) if record is not None else None
        if kept is not None:
            found[target] = kept["svg"]
    missing = [t for t in targets if t not in found]
    deferred = {t: stale[t] for t in missing if t in stale} if stale is not None else {}
    if stale is not None:
        stale.clear()
        stale.update(deferred)
    missing = [t for t in missing if t not in deferred]
    root = record.root if record is not None else None
    drawn = ((draw_with or draw)(missing, dirs, root, limit) if missing else {})
    svgs = {t: svg for t, (svg, _) in drawn.items()} | deferred
    for target in targets:
        found.setdefault(target, svgs.get(target, "error: not drawn"))
    if record is not None:
        keep(record, {t: drawn[t] for t in missing})
    return found


def mistakes(refs: list[FigureRef], svgs: dict[str, str], root: Path) -> list[FigureError]:
    """A FigureError at each figure line whose figure failed (paths of the journal named from its top folder): each is its page's own."""
    prefix = f"{root}{os.sep}"
    return [FigureError(ref.path, ref.line, svgs[ref.target].removeprefix("error: ").replace(prefix, ""))
            for ref in refs if svgs.get(ref.target, "").startswith("error: ")]


def keep(record: Record, drawn: dict[str, tuple[str, dict | None]]) -> None:
    """Record each drawing that succeeded under what it read (``make serve`` keeps its background redraws too)."""
    for target, (svg, read) in drawn.items():
        if read is not None and not svg.startswith("error: "):
            record.passed(KIND, target, environment(), Inputs(read["files"], read["folders"]), {"svg": svg})


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
        if svgs[ref.target].startswith("error: "):  # the page's panel (make serve) names it; make build stopped before
            out.append(line)
            continue
        label = _LABEL.search(ref.caption)  # {#fig-x}: the figure's anchor (core/markup/crossrefs.py numbered its caption)
        caption = ref.caption[:label.start()].rstrip(": ") if label else ref.caption
        anchor = f' id="{label[1]}"' if label else ""
        parts = [f'<figure class="journal-figure"{anchor}>', svgs[ref.target]]
        if caption:
            parts.append(f"<figcaption>{html.escape(caption)}</figcaption>")
        parts.append("</figure>")
        # Blank lines around: Markdown treats it as one raw HTML block.
        out.extend(["", *parts, ""])
    return "\n".join(out)


def draw_in(sandbox, targets: list[str], dirs, root: Path | None, limit: Limit) -> dict[str, tuple[str, dict | None]]:
    """Each figure target's SVG (or ``error: ...``) and what drawing it read, in one request to ``sandbox``'s worker, each function
    under ``limit`` (what all read counts for each)."""
    from journal_tools.core.code.sandbox import Stopped, Unit, stopped_at

    units = [Unit("figure function") for _ in targets]
    read: dict = {}
    try:
        drawn = sandbox.call(draw_figures, (targets,), limit, units, dirs, root=root, observed=read)
    except Stopped as stop:
        stuck = targets[stop.index]
        if stop.hung:  # named from the journal's root, where the build runs
            at = stopped_at(stop, root)
            why = f"ran past {limit.seconds:g} s, the block limit{f', stopped at {at.describe()}' if at else ''}"
        else:
            why = stop.reason.removeprefix("the figure function ")
        return {t: (f"error: {t}() {why}" if t == stuck else f"error: not drawn: {stuck}() stopped the worker", None)
                for t in targets}
    return {t: (svg, read or None) for t, svg in drawn.items()}


def draw_figures(progress, targets: list[str]) -> dict[str, str]:
    """In the worker: each target's SVG (or ``error: ...``), each function's clock started by ``progress``."""
    drawn = {}
    for index, target in enumerate(targets):
        progress(index)
        drawn[target] = call(target)
    return drawn


def call(target: str) -> str:
    """In the worker: the SVG drawn by ``target``, or ``error: <why>``, in a fresh empty folder with every generator seeded, as a page's
    blocks run."""
    from journal_tools.core.code.run import fresh_folder, reset_global_state

    with fresh_folder():
        reset_global_state()
        return _call(target)


def _call(target: str) -> str:
    module_name, _, func_name = target.rpartition(".")
    if not module_name:
        return f"error: {target!r} is not module.function"
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        return f"error: cannot import {module_name!r} from the snippet folders: {exc}"
    except Exception as exc:  # a snippet that raises on import: name it, keep the process alive
        return f"error: importing {module_name!r} raised {type(exc).__name__}: {exc}"
    func = getattr(module, func_name, None)
    if not callable(func):
        return f"error: {module_name} has no function {func_name!r}"
    try:
        svg = func()
    except Exception as exc:  # the page names the culprit; the traceback is in the page tests
        return f"error: {target}() raised {type(exc).__name__}: {exc}"
    if not isinstance(svg, str) or not svg.lstrip().startswith("<svg"):
        got = repr(svg.lstrip()[:24]) if isinstance(svg, str) else f"a {type(svg).__name__}"
        return (f"error: {target}() must return SVG text that starts with <svg (this starts with {got}; matplotlib's "
                "savefig(format='svg') writes an <?xml ...?> line and a DOCTYPE first: keep the text from <svg on)")
    if "aria-label=" not in svg.split(">", 1)[0]:
        return (f'error: {target}() returned an <svg> tag without aria-label: write aria-label="<what the figure shows>" on it '
                '(role="img" too), the name screen readers give the figure')
    return svg.strip()
