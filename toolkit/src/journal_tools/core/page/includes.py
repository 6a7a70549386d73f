"""A page's snippet includes expanded with pymdownx.snippets' own preprocessor and mkdocs.yml's options, fed a
chunk at a time so each expanded line maps back to its snippet file and page line.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from pymdownx.snippets import SnippetMissingError

from journal_tools.core.mistake import Mistake, Origin
from journal_tools.core.page.source import read_source
from journal_tools.core.settings import Settings

__all__ = ["ExpandedPage", "IncludeError", "Origin", "expand", "expand_file", "included_files"]


class IncludeError(Mistake):
    """An include on a page failed, at the page's include line."""


@dataclass
class ExpandedPage:
    """A page with its includes expanded, and where each of its lines came from."""

    lines: list[str]  # without line endings
    origins: list[Origin]  # one per expanded line

    @property
    def text(self) -> str:
        """The expanded page as one string."""
        return "\n".join(self.lines) + "\n"


# Block form: a line holding only the marker (-8<-, --8<--, ...) opens and closes a group.
_BLOCK_MARKER = re.compile(r"^[ \t]*-+8<-+[ \t]*$")
_INLINE_INCLUDE = re.compile(r"""^(?P<space>[ \t]*)-+8<-+[ \t]+(?P<q>["'])(?P<target>.+?)(?P=q)[ \t]*$""")


def expand_file(page: Path, settings: Settings) -> ExpandedPage:
    """Expand every include of ``page`` (read as MkDocs reads it); IncludeError (SourceError if not UTF-8) naming page and line."""
    return expand(read_source(page, settings.rel(page)), settings.rel(page), settings)


def expand(text: str, rel_page: str, settings: Settings) -> ExpandedPage:
    """Expand every include of ``text`` (the page ``rel_page``) as the build does, each line keeping its origin."""
    source = text.split("\n")
    if source and source[-1] == "":
        source.pop()
    if "8<-" not in text:  # nothing to include: every line is its own origin
        return ExpandedPage(source, [Origin(rel_page, n) for n in range(1, len(source) + 1)])
    pre = settings.snippet_preprocessor()
    out_lines: list[str] = []
    origins: list[Origin] = []
    for start, chunk in _chunks(source):
        if "8<-" not in "".join(chunk):
            out_lines.extend(chunk)
            origins.extend(Origin(rel_page, start + 1 + k) for k in range(len(chunk)))
            continue
        try:
            expanded = pre.run(list(chunk))
        except (SnippetMissingError, OSError, ValueError) as exc:
            hint = _hint(pre, chunk, settings)
            raise IncludeError(rel_page, start + 1, f"snippet include failed: {exc}{hint}") from None
        out_lines.extend(expanded)
        origins.extend(_locate(pre, chunk, expanded, rel_page, start + 1, settings.root))
    return ExpandedPage(out_lines, origins)


def without_failing_includes(text: str, settings: Settings) -> str:
    """``text`` with each failing include blanked out (``make serve`` renders the rest under its panel)."""
    if "8<-" not in text:
        return text
    pre = settings.snippet_preprocessor()
    out: list[str] = []
    for _, chunk in _chunks(text.split("\n")):
        if "8<-" in "".join(chunk):
            try:
                pre.run(list(chunk))
            except (SnippetMissingError, OSError, ValueError):
                chunk = [""] * len(chunk)
        out.extend(chunk)
    return "\n".join(out)


def included_files(text: str, settings: Settings) -> list[Path]:
    """The snippet files ``text`` includes, and the files those include, that exist (absolute, sorted)."""
    if "8<-" not in text:  # most pages include nothing: no preprocessor (a Markdown instance) to build
        return []
    pre = settings.snippet_preprocessor()
    found: set[Path] = set()
    todo = [text]
    while todo:
        source = todo.pop().split("\n")
        for _, chunk in _chunks(source):
            if "8<-" not in "".join(chunk):
                continue
            for target in _targets(chunk):
                parsed = pre.parse_snippet_target(target)
                path = pre.get_snippet_path(parsed["path"]) if parsed else None
                if path and Path(path).resolve() not in found:
                    found.add(Path(path).resolve())
                    todo.append(Path(path).read_text(encoding="utf-8"))
    return sorted(found)


def _targets(chunk: list[str]) -> list[str]:
    """The include targets a chunk names (``file.py:section``, ``file.py:1:5``)."""
    m = _INLINE_INCLUDE.match(chunk[0]) if len(chunk) == 1 else None
    if m is not None:
        return [m.group("target")]
    return [c.strip() for c in chunk[1:-1] if c.strip() and not c.strip().startswith(";")]


_SECTION_START = re.compile(r"-+8<-+[ \t]+\[[ \t]*start[ \t]*:[ \t]*([a-z][-_0-9a-z]*)[ \t]*\]", re.I)


def _hint(pre, chunk: list[str], settings: Settings) -> str:
    """A hint for a failed include: the file's sections, a close file name, or that the path leaves the snippet folders."""
    names = ", ".join(_rel(d, settings.root) + "/" for d in settings.snippet_dirs)
    for target in _targets(chunk):
        parsed = pre.parse_snippet_target(target)
        if not parsed:
            continue
        found = pre.get_snippet_path(parsed["path"])
        if found is None:
            try:
                inside = [d for d in settings.snippet_dirs if (d / parsed["path"]).resolve().is_relative_to(d)]
            except (OSError, ValueError):  # a NUL byte, say: no file can have that name
                return f" ({parsed['path']!r} cannot be a file name)"
            if not inside:
                return f" (includes name files under {names}; '{parsed['path']}' is outside)"
            files = sorted(p.relative_to(d).as_posix() for d in settings.snippet_dirs for p in d.rglob("*")
                           if p.is_file() and "__pycache__" not in p.parts)
            close = difflib.get_close_matches(parsed["path"], files, n=1)
            return f" (did you mean '{close[0]}'?)" if close else f" (files in {names}: {', '.join(files) or 'none'})"
        section = parsed.get("section")
        if section:
            text = Path(found).read_text(encoding="utf-8")
            sections = list(dict.fromkeys(_SECTION_START.findall(text)))
            if section not in sections:
                close = difflib.get_close_matches(section, sections, n=1)
                listed = f"{_rel(Path(found), settings.root)} has the sections: {', '.join(sections) if sections else 'none'}"
                return f" (did you mean '{close[0]}'? {listed})" if close else f" ({listed})"
    return ""


def _chunks(source: list[str]):
    """(0-based start, lines): single lines, and block-form groups from marker to marker."""
    i = 0
    while i < len(source):
        if _BLOCK_MARKER.match(source[i]):
            j = i + 1
            while j < len(source) and not _BLOCK_MARKER.match(source[j]):
                j += 1
            yield i, source[i : j + 1]
            i = j + 1
        else:
            yield i, [source[i]]
            i += 1


def _locate(pre, chunk, expanded, rel_page, page_line, root) -> list[Origin]:
    """Map each line an include produced to its snippet line, matched in order; unmatched lines keep the include line."""
    fallback = [Origin(rel_page, page_line) for _ in expanded]
    m = _INLINE_INCLUDE.match(chunk[0]) if len(chunk) == 1 else None
    if m is None:
        targets, space = [c.strip() for c in chunk[1:-1] if c.strip()], ""
    else:
        targets, space = [m.group("target")], m.group("space")
    files = []
    for target in targets:
        parsed = pre.parse_snippet_target(target)
        found = pre.get_snippet_path(parsed["path"]) if parsed else None
        if found:
            files.append(Path(found))
    if not files:
        return fallback
    candidates = []
    for f in files:
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeError):
            # A name the preprocessor did not take as an include (a folder, a file it did
            # not read): nothing to match against; its lines keep the include line.
            continue
        candidates += [(f, n, line) for n, line in enumerate(text.split("\n"), start=1)]
    result = []
    pos = 0
    rels = {f: _rel(f, root) for f in files}  # once per file, not per line (resolve() reads the disk)
    for line in expanded:
        body = line[len(space) :] if line.startswith(space) else line
        k = pos
        while k < len(candidates) and not _same(candidates[k][2], body):
            k += 1
        if k == len(candidates):
            result.append(Origin(rel_page, page_line))
            continue
        f, n, _ = candidates[k]
        result.append(Origin(rels[f], n, included_at=(rel_page, page_line)))
        pos = k + 1
    return result


def _same(file_line: str, body: str) -> bool:
    # dedent_subsections may strip a common indent from a section, so compare
    # the text and accept a file line that is the body with more indent.
    return file_line.rstrip() == body.rstrip() or (body.strip() != "" and file_line.strip() == body.strip())


def _rel(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
