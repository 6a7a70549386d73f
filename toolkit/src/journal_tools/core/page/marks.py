"""``<!--pytest.mark.X(...)-->`` markers evaluated without pytest (the core must not depend on it): against
:data:`NAMESPACE`, whose ``pytest.mark.<name>`` records a :class:`Mark` as ``MarkDecorator`` does.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

__all__ = ["Mark", "NAMESPACE"]


@dataclass(frozen=True)
class Mark:
    """One marker: its name and the arguments it was given (pytest's ``Mark`` fields)."""

    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)

    def __call__(self, *args, **kwargs) -> Mark:
        """``pytest.mark.skip(reason=...)``: the same mark with these arguments added."""
        return Mark(self.name, self.args + args, {**self.kwargs, **kwargs})


class _MarkGenerator:
    """``pytest.mark``: any attribute is a mark of that name."""

    def __getattr__(self, name: str) -> Mark:
        if name.startswith("__"):
            raise AttributeError(name)
        return Mark(name)


class _NotAMark:
    """What ``pytest.<anything but mark>`` evaluates to: callable, never a mark."""

    def __call__(self, *args, **kwargs) -> _NotAMark:
        return self

    def __getattr__(self, name: str) -> _NotAMark:
        if name.startswith("__"):
            raise AttributeError(name)
        return self


class _Pytest:
    mark = _MarkGenerator()

    def __getattr__(self, name: str) -> _NotAMark:
        if name.startswith("__"):
            raise AttributeError(name)
        return _NotAMark()


# What a marker's text is evaluated against (``sys`` for version conditions, as in pytest-codeblocks).
NAMESPACE = {"pytest": _Pytest(), "sys": sys}
