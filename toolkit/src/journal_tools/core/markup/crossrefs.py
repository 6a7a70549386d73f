"""Numbered equations, figures and listings, and references to them, checked (Quarto's syntax, plus a link for another page).

Labels: ``$$ ... $$ {#eq-softmax}`` (after a display formula's closing ``$$``), ``<!-- journal:figure mod.fn | Caption
{#fig-weights} -->``, a fence ``` ```python {#lst-mask} ``` ``. References: ``@eq-softmax`` (or ``[@eq-softmax]``) on the same
page, ``[@eq-softmax](other-entry.md)`` on another (the link's page, as any Markdown link names it). They become "(3)",
"Figure 2", "Listing 1" (and "(3) in Its Title") linked to the label's anchor. Bare ``@`` and the ``eq-``/``fig-``/``lst-``
prefixes keep them apart from citations (``[@key]``). Numbers are per page, counted in page order per kind.

:func:`resolve` rewrites a page's Markdown before it is converted (the build's ``on_page_markdown``, the ``::render``
test), so the converter needs no page; the equation's number is drawn by ``markdown_math`` in its MathML, counted the same way.
An unknown or duplicated label and a page that does not exist are :class:`ReferenceProblem` at their ``file:line``.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from journal_tools.core.mistake import Mistake
from journal_tools.core.page.fences import FenceError, inside_fence, scan
from journal_tools.core.page.frontmatter import body

__all__ = ["LABEL", "Label", "ReferenceProblem", "labels", "resolve"]

LABEL = r"(?:eq|fig|lst)-[\w-]*\w"  # Quarto's prefixes: the kind is in the name
EQUATION_LABEL = r"[ \t]*\{#(?P<label>eq-[\w-]*\w)\}[ \t]*"  # after a display formula's closing $$ (markdown_math reads it too)
_EQ = re.compile(rf"\$\${EQUATION_LABEL}$")
_FIG = re.compile(r"^[ \t]*<!--\s*journal:figure\s.*?\{#(?P<label>fig-[\w-]*\w)\}\s*-->\s*$")
_LST = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[^{]*\{[^}]*#(?P<label>lst-[\w-]*\w)\b[^}]*\}")
# A code span (left alone), a reference to another page, or one on this page (not an e-mail address, not inside a word).
_REF = re.compile(rf"(?P<code>(?P<ticks>`+).+?(?P=ticks))|\[@(?P<label>{LABEL})\](?:\((?P<page>[^()\s]+)\))?"
                  rf"|(?<![\w.@/\[])@(?P<bare>{LABEL})")
_HEADING = re.compile(r"^#[ \t]+(?P<title>.+?)[ \t#]*$", re.MULTILINE)
SHOWN = {"eq": "({n})", "fig": "Figure {n}", "lst": "Listing {n}"}


class ReferenceProblem(Mistake, ValueError):
    """An unknown or duplicated label, or a reference to a page that does not exist, at its line."""


@dataclass(frozen=True)
class Label:
    """One label: its name (``eq-softmax``), number on its page and 1-based line."""

    name: str
    number: int
    line: int

    def shown(self, title: str = "") -> str:
        """"(3)", "Figure 2", "Listing 1"; with ``title`` another page's: "(3) in Attention Without Weights"."""
        text = SHOWN[self.name.split("-", 1)[0]].format(n=self.number)
        return f"{text} in {title}" if title else text


def labels(markdown: str, path: str, first_line: int = 1) -> dict[str, Label]:
    """The labels of ``markdown`` (whose first line is line ``first_line`` of ``path``), numbered per kind in page order."""
    found: dict[str, Label] = {}
    counts = dict.fromkeys(SHOWN, 0)
    lines = markdown.split("\n")
    for i, line in _outside_code(lines):
        m = _EQ.search(line) or _FIG.match(line) or _LST.match(line)
        if m is None:
            continue
        name, kind = m["label"], m["label"].split("-", 1)[0]
        if name in found:
            raise ReferenceProblem(path, first_line + i, f"label {name!r} is given twice (also at line {found[name].line}): "
                                                         "a label names one equation, figure or listing of the page")
        counts[kind] += 1
        found[name] = Label(name, counts[kind], first_line + i)
    return found


def resolve(markdown: str, path: str, root: Path, first_line: int = 1) -> str:
    """``markdown`` (page ``path`` relative to ``root``, from its line ``first_line``) with its references drawn as numbered links,
    each figure caption and listing title numbered; ReferenceProblem at the first reference it cannot resolve."""
    if "@" not in markdown and "{#" not in markdown:
        return markdown
    own = labels(markdown, path, first_line)
    others: dict[str, tuple[str, dict[str, Label]]] = {}
    lines = markdown.split("\n")
    for i, line in _outside_code(lines):
        if "@" in line and not _LST.match(line):
            lines[i] = _REF.sub(lambda m, n=first_line + i: _reference(m, path, n, own, others, root), line)
        m = _FIG.match(line) or _LST.match(line)
        if m is not None:
            lines[i] = _numbered_caption(lines[i], own[m["label"]])
    return "\n".join(lines)


def _outside_code(lines: list[str]):
    """(index, line) of each line not inside a code fence, but for each fence's opening line (its label)."""
    try:
        fences = scan(lines)
    except FenceError:  # an unclosed fence: the page tests name it
        fences = []
    fenced = inside_fence(fences) - {f.start for f in fences}
    return ((i, line) for i, line in enumerate(lines) if i not in fenced)


def _reference(m: re.Match, path: str, line: int, own: dict[str, Label], others: dict, root: Path) -> str:
    if m["code"]:
        return m[0]
    name = m["label"] or m["bare"]
    if not m["page"]:
        return f"[{_known(name, own, path, line, 'this page').shown()}](#{name})"
    target = _target(path, m["page"])
    if target not in others:
        file = root / target
        if not file.is_file() or not target.endswith(".md"):
            raise ReferenceProblem(path, line, f"{m[0]} refers to {m['page']} ({target}), which is no page of the journal"
                                               if not file.is_file() else f"{m[0]}: only Markdown pages have labels")
        text = file.read_text(encoding="utf-8-sig")
        heading = _HEADING.search(body(text))  # not a comment line of its front matter
        others[target] = (heading["title"] if heading else Path(target).stem, labels(text, target))
    title, theirs = others[target]
    label = _known(name, theirs, path, line, target)
    shown = label.shown(title).replace("[", r"\[").replace("]", r"\]")
    return f"[{shown}]({m['page']}#{name})"


def _target(path: str, link: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(path), link))


def _known(name: str, known: dict[str, Label], path: str, line: int, where: str) -> Label:
    if name in known:
        return known[name]
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else (f"its labels are {', '.join(known)}" if known else "it has no labels")
    raise ReferenceProblem(path, line, f"unknown label {name!r}: {where} labels no equation, figure or listing so; {hint}")


def _numbered_caption(line: str, label: Label) -> str:
    """"Figure 2: " before a figure's caption; "Listing 1" as a listing's title ("Listing 1: a.py" with one)."""
    if label.name.startswith("fig-"):
        return re.sub(r"\|\s*", lambda _: f"| {label.shown()}: ", line, count=1) if "|" in line else line
    title = re.search(r'title="(?P<t>[^"]*)"', line)
    if title:
        return line[:title.start("t")] + f"{label.shown()}: " + line[title.start("t"):]
    return line.replace(f"#{label.name}", f'#{label.name} title="{label.shown()}"', 1)
