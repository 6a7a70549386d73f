"""One front-matter reader, with the line of every field.

MkDocs and the blog plugin read front matter too, but report a bad value with
the file and no line ("month must be in 1..12"). Here the YAML is composed
into nodes first, so every key and value keeps its position (``start_mark``)
in the file; values are then built from the nodes one by one, and a value
that does not build (``date: 2025-02-30``) is reported at its own line.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

import yaml

__all__ = ["FrontMatter", "FrontMatterError", "read"]

# The same delimiters MkDocs accepts (mkdocs.utils.meta): a first line of
# ---, then YAML, then --- or ... on a line of its own.
_DELIMITED = re.compile(r"\A(?:---|\+\+\+)[ \t]*\r?\n(?P<body>.*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)


class FrontMatterError(Exception):
    """Front matter that cannot be used; the message is ``path:line: problem``."""

    def __init__(self, path: str, line: int, problem: str):
        self.path, self.line, self.problem = path, line, problem
        super().__init__(f"{path}:{line}: {problem}")


@dataclass
class FrontMatter:
    """The fields of a page's front matter and the 1-based file line of each.

    ``lines`` maps a key path (``"date"``, ``"date.created"``,
    ``"categories.0"``) to the line of its value. ``body_line`` is the line
    where the Markdown after the front matter starts (1 without front matter).
    """

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


def read(text: str, path: str) -> FrontMatter:
    """Parse the front matter at the top of ``text`` (a page's whole source)."""
    text = text.lstrip("\ufeff")
    m = _DELIMITED.match(text)
    if m is None:
        return FrontMatter(path)
    body = m["body"] or ""
    body_line = text.count("\n", 0, m.end()) + 1
    try:
        node = yaml.compose(body, Loader=yaml.SafeLoader)
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
        out = {}
        for key_node, value_node in node.value:
            name = str(_scalar(key_node, key, fm))
            path = f"{key}.{name}" if key else name
            fm.lines[path] = key_node.start_mark.line + 2
            out[name] = _build(value_node, path, fm)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, f"{key}.{i}", fm) for i, item in enumerate(node.value)]
    return _scalar(node, key, fm)


def _scalar(node: yaml.Node, key: str, fm: FrontMatter):
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, yaml.YAMLError) as exc:
        # PyYAML builds a date-shaped value with datetime.date(), which raises
        # ValueError for an impossible day or month.
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
