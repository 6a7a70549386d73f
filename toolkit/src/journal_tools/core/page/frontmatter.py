"""One front-matter reader, with the line of every field: the YAML is composed into nodes and built value by
value, so a bad value is reported at its line (MkDocs and the blog name only the file).

Found by MkDocs' rule (``mkdocs.utils.meta``; a compat guard compares); merge keys merged as PyYAML does; a
key given twice is an error (YAML would keep the last silently).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

import yaml

from journal_tools.core.mistake import Mistake

# MkDocs' front-matter rule: ``---`` (trailing blanks allowed) on the first line, the
# YAML, then a line of ``---`` or ``...``; group 1 is the YAML with its last newline.
FENCE = re.compile(r"\A-{3}[ \t]*\n(.*?\n)(?:-{3}|\.{3})[ \t]*\n", re.S | re.M)

__all__ = ["FENCE", "FrontMatter", "FrontMatterError", "body", "read"]


class FrontMatterError(Mistake):
    """Front matter that cannot be used, at the line of the key (or the fence) at fault."""


@dataclass
class FrontMatter:
    """``lines`` maps a key path (``"date.created"``, ``"categories.0"``) to its value's line; ``body_line``: where Markdown starts."""

    path: str
    data: dict = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    present: bool = False
    body_line: int = 1

    def line(self, key: str, default: int | None = None) -> int:
        """The line of ``key`` (a dotted path), else of its parent, else ``default`` or 1."""
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key.rpartition(".")[0]
        return default if default is not None else 1

    def error(self, key: str, problem: str) -> FrontMatterError:
        """An error naming this file and the line of ``key``."""
        return FrontMatterError(self.path, self.line(key), problem)


# libyaml's parser when PyYAML was built with it (the wheels are): the same nodes and marks,
# about 20x faster than the pure-Python one, which was a tenth of a page test at 1,000 entries.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read(text: str, path: str) -> FrontMatter:
    r"""Parse the front matter of ``text`` (read by ``journal_tools.core.page.source``: one ``\n`` per line)."""
    text = text.removeprefix("\ufeff")
    m = FENCE.match(text)
    if m is None:
        return FrontMatter(path)
    body = m[1]
    body_line = text.count("\n", 0, m.end()) + 1
    try:
        node = yaml.compose(body, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise FrontMatterError(path, line, f"front matter is not valid YAML: {problem}") from None
    fm = FrontMatter(path, present=True, body_line=body_line)
    if node is None:
        return fm
    if not isinstance(node, yaml.MappingNode):
        raise FrontMatterError(path, node.start_mark.line + 2, "front matter must be a mapping of `key: value` lines")
    fm.data = _build(node, "", fm)
    return fm


def _build(node: yaml.Node, key: str, fm: FrontMatter):
    """The Python value of ``node``, recording the line of every nested key."""
    if key:
        # +1: 1-based, +1: the opening ---. A mapping key keeps its own line.
        fm.lines.setdefault(key, node.start_mark.line + 2)
    if isinstance(node, yaml.MappingNode):
        own = _merge(node, fm)
        out, merged = {}, set()
        for key_node, value_node in node.value:
            name = _key(key_node, key, fm)
            path = f"{key}.{name}" if key else name
            if id(key_node) not in own:
                merged.add(name)
            elif name in out and name not in merged:  # a key of this mapping overrides a merged one, as in YAML
                raise FrontMatterError(fm.path, key_node.start_mark.line + 2,
                                       f"'{path}' is given twice (also at line {fm.lines[path]}): YAML keeps only the last")
            fm.lines[path] = key_node.start_mark.line + 2
            out[name] = _build(value_node, path, fm)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, f"{key}.{i}", fm) for i, item in enumerate(node.value)]
    return _scalar(node, key, fm)


def _merge(node: yaml.MappingNode, fm: FrontMatter) -> set[int]:
    """Merge ``<<`` keys into ``node`` in place with PyYAML's merge (nodes keep their lines); returns the ids of the keys written here."""
    own = {id(k) for k, _ in node.value}
    loader = yaml.SafeLoader("")
    try:
        loader.flatten_mapping(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or node.start_mark
        raise FrontMatterError(fm.path, mark.line + 2, f"front matter is not valid YAML: {getattr(exc, 'problem', exc)}") from None
    finally:
        loader.dispose()
    return own


def _key(node: yaml.Node, parent: str, fm: FrontMatter) -> str:
    """A mapping key as text; a list or mapping as a key is refused, as PyYAML's loader refuses it."""
    if not isinstance(node, yaml.ScalarNode):
        raise FrontMatterError(fm.path, node.start_mark.line + 2, "a key must be a plain name, not a list or mapping")
    return str(_scalar(node, parent, fm))


def _scalar(node: yaml.Node, key: str, fm: FrontMatter):
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, yaml.YAMLError) as exc:
        # PyYAML builds a date-shaped value with datetime.date(), which raises ValueError for an impossible day or month.
        problem = f"{node.value!r} is not a real date ({exc})" if node.tag.endswith(":timestamp") else str(exc)
        raise FrontMatterError(fm.path, node.start_mark.line + 2, problem) from None
    finally:
        loader.dispose()


def as_date(fm: FrontMatter, key: str) -> dt.date:
    """The value at ``key`` as a date, or an error naming its line."""
    value = fm.data
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, dt.date):  # a datetime is a date too
        return value
    text = "" if value is None else str(value).strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise fm.error(key, f"{key} {text!r} is not a YYYY-MM-DD date")
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise fm.error(key, f"{key} {text!r} is not a real date ({exc})") from None


def body(text: str) -> str:
    """The Markdown MkDocs renders (``mkdocs.utils.meta.get_data``): without a YAML mapping front matter or leading ``Key: value`` lines."""
    m = FENCE.match(text)
    if m is not None:
        try:
            data = yaml.load(m[1], Loader=_LOADER)
        except yaml.YAMLError:
            return text
        return text[m.end():].lstrip("\n") if isinstance(data, dict) else text
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    key = False  # a continuation line counts only after a key
    while lines:
        line = lines[0]
        if not line.strip():
            lines.pop(0)
            break
        if _MMD_KEY.match(line) or (key and _MMD_MORE.match(line)):
            key = True
            lines.pop(0)
            continue
        break
    return "\n".join(lines).lstrip("\n")


# MultiMarkdown metadata, as MkDocs reads it when there are no YAML delimiters: a key (up to three
# spaces in) and a colon, or a continuation line indented by four spaces or a tab.
_MMD_KEY = re.compile(r"^ {0,3}[A-Za-z0-9_-]+:\s*")
_MMD_MORE = re.compile(r"^( {4}|\t)")
