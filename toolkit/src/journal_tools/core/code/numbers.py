r"""Numbers as PyTorch prints them and as TeX writes them (``0.``, ``1.5e-05``, ``nan``/``\text{nan}``,
``inf``/``\infty``, ``True``/``\mathrm{True}``), compared by value: ``0.10 == 0.1000``, ``0. == -0.``,
``nan == nan``, and a boolean equals only itself.
"""

from __future__ import annotations

import re
from decimal import Decimal

_DECIMAL = r"-?(?:\d+\.\d*|\d+)(?:[eE][+-]?\d+)?"
# A number standing alone: not the 0 of "SoftmaxBackward0", not part of "x.y.z" or of a word ("info", "nanny", "Trueness").
NUMBER = re.compile(rf"(?<![\w.])(?:{_DECIMAL}|-?inf|-?nan|True|False)(?![\w.])")
# The same values as a matrix may write them in TeX (group "word": the value inside \text{} / \mathrm{}).
TEX_NUMBER = re.compile(
    r"(?P<infty>-?)[ \t]*\\infty(?![a-zA-Z])"
    r"|\\(?:text|mathrm)\{\s*(?P<word>-?(?:nan|inf)|True|False)\s*\}"
    rf"|(?P<plain>{NUMBER.pattern})"
)


def tex_value(m: re.Match) -> str:
    """The value of a TEX_NUMBER match, written as PyTorch prints it (``\\infty`` -> ``inf``)."""
    if m["plain"] is not None:
        return m["plain"]
    if m["word"] is not None:
        return m["word"]
    return f"{m['infty']}inf"


def as_tex(value: str) -> str:
    """A printed value as a matrix writes it: ``nan`` -> ``\\text{nan}``, ``-inf`` -> ``-\\infty``."""
    if value.lstrip("-") == "inf":
        return value.replace("inf", "\\infty")
    if value.lstrip("-") == "nan" or value in ("True", "False"):
        return f"\\mathrm{{{value}}}"
    return value


def same_number(a: str, b: str) -> bool:
    """Do two printed values mean the same number (see the module docstring)?"""
    bools = ("True", "False")
    if a in bools or b in bools:
        return a == b
    x, y = Decimal(a), Decimal(b)
    if x.is_nan() or y.is_nan():
        return x.is_nan() and y.is_nan()
    return x == y


def is_zero(value: str) -> bool:
    """Is a value zero (``0``, ``0.0000``, ``-0.``; not ``False``)? A matrix of zeros is a placeholder."""
    return value not in ("True", "False") and Decimal(value) == 0


def printed_numbers(text: str) -> list[str]:
    """Every number in ``text`` (printed output or an expected-output fence), in order."""
    return NUMBER.findall(text)
