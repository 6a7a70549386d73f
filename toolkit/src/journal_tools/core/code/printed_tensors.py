"""The tensors a block printed, with their shapes from the nesting of their brackets, so a checked matrix is
compared with one tensor, never with every number printed.

Read: ``tensor(...)`` (``size=`` of an empty one), NumPy's ``array(...)`` and ``str`` form, bare nested lists
of numbers. Not tensors: numbers outside brackets, a call's list argument (``torch.Size([6, 2])``), lists of
other things, ragged lists. A summarised tensor (``...``) is marked so. A marker names one with
``tensor=2[0]`` (1-based, integer and ``start:stop`` subscripts): :func:`parse_selector`, :meth:`Printed.take`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from journal_tools.core.code.numbers import NUMBER

_OPENER = re.compile(r"(?<![\w.])(?:(?P<call>tensor|array)\(|(?P<list>\[))")
_ELLIPSIS = "..."
_SIZE = re.compile(r"\bsize=\((?P<dims>\d+(?:\s*,\s*\d+)*)\s*,?\s*\)")
_SELECTOR = re.compile(r"tensor=(?P<n>-?\d+)(?:\[(?P<sub>[^\]]*)\])?")
_INDEX = re.compile(r"\s*(?P<start>-?\d+)?\s*(?P<colon>:)?\s*(?P<stop>-?\d+)?\s*")


class _NotATensor(Exception):
    """The text at this place is not a printed tensor (internal to the reader)."""


@dataclass(frozen=True)
class Printed:
    """``values`` nested as printed (a scalar: one string), ``shape``, ``start`` offset in the output, ``summarised`` (with ``...``)."""

    values: list | str
    shape: tuple[int, ...]
    start: int
    summarised: bool = False

    def take(self, index: tuple[int | slice, ...]) -> Printed:
        """The part a subscript names (``(0,)``: the first row); IndexError says why not."""
        values = _subscript(self.values, self.shape, index)
        return Printed(values, _shape(values) or (), self.start, self.summarised)


@dataclass(frozen=True)
class Selector:
    """What a marker names: the ``tensor``-th printed tensor (1-based) and a subscript of it."""

    tensor: int
    index: tuple[int | slice, ...] = ()

    def describe(self) -> str:
        """``tensor 2[0, 1:3]`` as the marker wrote it."""
        if not self.index:
            return f"tensor {self.tensor}"
        parts = [str(i) if isinstance(i, int) else f"{'' if i.start is None else i.start}:{'' if i.stop is None else i.stop}"
                 for i in self.index]
        return f"tensor {self.tensor}[{', '.join(parts)}]"


def parse_selector(options: str) -> Selector | None:
    """The selector of a marker's options (``tensor=2[0]``), None for none; ValueError says what is wrong in words the author can act on."""
    options = options.strip()
    if not options:
        return None
    m = _SELECTOR.fullmatch(options)
    if m is None:
        raise ValueError(f"cannot read '{options}': write tensor=N (the N-th tensor the block printed), "
                         "or tensor=N[i] / tensor=N[i:j, k] for a row or slice of it")
    n = int(m["n"])
    if n < 1:
        raise ValueError(f"tensor={n}: tensors are counted from 1 (tensor=1 is the first the block printed)")
    index: list[int | slice] = []
    if m["sub"] is not None:
        for item in m["sub"].split(","):
            part = _INDEX.fullmatch(item)
            if part is None or (part["colon"] is None and part["start"] is None):
                raise ValueError(f"cannot read the subscript [{m['sub']}]: each part is an integer or start:stop")
            if part["colon"] is None and part["stop"] is not None:
                raise ValueError(f"cannot read the subscript [{m['sub']}]: each part is an integer or start:stop")
            if part["colon"] is None:
                index.append(int(part["start"]))
            else:
                index.append(slice(None if part["start"] is None else int(part["start"]),
                                   None if part["stop"] is None else int(part["stop"])))
    return Selector(n, tuple(index))


def printed_tensors(text: str) -> list[Printed]:
    """Every tensor in a block's printed output, in the order printed (see the module docstring)."""
    found: list[Printed] = []
    pos = 0
    while (m := _OPENER.search(text, pos)) is not None:
        if m["call"]:
            try:
                printed, end = _call(text, m.end(), m.start())
            except _NotATensor:  # e.g. a sparse tensor's repr: the tensors inside it are read
                pos = m.end()
                continue
            found.append(printed)
            pos = end
            continue
        if _is_call_argument(text, m.start()):  # torch.Size([6, 2]): a shape, not a tensor
            pos = _closing(text, m.start())
            continue
        try:
            values, end, summarised = _value(text, m.start())
        except _NotATensor:
            pos = m.end()  # a list of other things: the tensors inside it are read
            continue
        shape = _shape(values)
        if shape is not None:  # a ragged list is no tensor (nor are its rows)
            found.append(Printed(values, shape, m.start(), summarised))
        pos = end
    return found


def _call(text: str, pos: int, start: int) -> tuple[Printed, int]:
    """``tensor(`` / ``array(`` read from after its parenthesis: (the tensor, the offset after ``)``)."""
    values, pos, summarised = _value(text, pos)
    pos = _skip_space(text, pos)
    if pos < len(text) and text[pos] == ",":  # dtype=..., grad_fn=<...>, size=(0, 3)
        close = _closing(text, start + text[start:].index("("))
        keywords, pos = text[pos:close - 1], close
        size = _SIZE.search(keywords)
        if size is not None and values == []:
            return Printed([], tuple(int(d) for d in size["dims"].split(",")), start, summarised), pos
    elif pos < len(text) and text[pos] == ")":
        pos += 1
    else:
        raise _NotATensor
    shape = () if isinstance(values, str) else _shape(values)
    if shape is None:
        raise _NotATensor
    return Printed(values, shape, start, summarised), pos


def _value(text: str, pos: int) -> tuple[list | str, int, bool]:
    """A number or bracketed list from ``pos``: (values, offset after it, whether a ``...`` stood for entries left out)."""
    pos = _skip_space(text, pos)
    number = NUMBER.match(text, pos)
    if number is not None:
        return number.group(0), number.end(), False
    if not text.startswith("[", pos):
        raise _NotATensor
    pos += 1
    items: list = []
    summarised = False
    while True:
        pos = _skip_space(text, pos)
        if text.startswith("]", pos):
            return items, pos + 1, summarised
        if text.startswith(_ELLIPSIS, pos):
            summarised, pos = True, pos + len(_ELLIPSIS)
        else:
            item, pos, inner = _value(text, pos)
            items.append(item)
            summarised = summarised or inner
        pos = _skip_space(text, pos)
        if text.startswith(",", pos):
            pos += 1
        elif not text.startswith("]", pos) and not (pos > 0 and text[pos - 1].isspace()):
            raise _NotATensor  # neither a comma nor NumPy's spaces between two entries


def _shape(values: list | str) -> tuple[int, ...] | None:
    """The shape of nested lists of values; None when they are ragged or mixed."""
    if isinstance(values, str):
        return ()
    shapes = {_shape(v) for v in values}
    if not shapes:
        return (0,)
    if len(shapes) != 1 or None in shapes:
        return None
    return (len(values), *shapes.pop())


def _subscript(values: list | str, shape: tuple[int, ...], index: tuple[int | slice, ...]) -> list | str:
    if not index:
        return values
    if isinstance(values, str):
        raise IndexError(f"a subscript of {len(index)} more part{'s' if len(index) > 1 else ''} than the tensor has dimensions")
    first, rest = index[0], index[1:]
    if isinstance(first, int):
        if not -len(values) <= first < len(values):
            raise IndexError(f"index {first} is out of range for a dimension of {len(values)}")
        return _subscript(values[first], shape[1:], rest)
    return [_subscript(v, shape[1:], rest) for v in values[first]]


def _is_call_argument(text: str, pos: int) -> bool:
    """Is the ``[`` at ``pos`` the first argument of a call, as in ``Size([6, 2])``?"""
    j = pos - 1
    while j >= 0 and text[j] in " \t\n":
        j -= 1
    return j >= 1 and text[j] == "(" and (text[j - 1].isalnum() or text[j - 1] == "_")


def _closing(text: str, pos: int) -> int:
    """The offset after the bracket that closes the one at ``pos`` (the end of text if none)."""
    pairs = {"(": ")", "[": "]"}
    stack = []
    for i in range(pos, len(text)):
        ch = text[i]
        if ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
    return len(text)


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos
