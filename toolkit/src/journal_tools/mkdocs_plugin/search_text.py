"""What Material's search indexes of a formula: its TeX. The index is the page's text, and a formula's MathML
text runs its letters together ("softmax(QK⊤dk)V"); so each ``<math>`` is left out (``data-search-exclude``)
and its TeX (``alttext``, core/markup/mathml.py) follows in a span, for the index only: the page itself is
written without it (:func:`unsearchable`), so no check or reader meets TeX as text.
"""

from __future__ import annotations

import re

__all__ = ["searchable_math", "unsearchable"]

_MATH = re.compile(r'<math(?P<attrs>[^>]*?) alttext="(?P<tex>[^"]*)"(?P<rest>.*?</math>)', re.S)


def searchable_math(html: str) -> str:
    """``html`` with each formula's TeX, not its MathML text, for the search index."""
    return _MATH.sub(lambda m: f'<math{m["attrs"]} alttext="{m["tex"]}" data-search-exclude{m["rest"]}'
                               f'<span hidden data-tex>{m["tex"]}</span>', html)


_TEX_SPAN = re.compile(r"<span hidden data-tex>[^<]*</span>")


def unsearchable(html: str) -> str:
    """The page as written: the spans ``searchable_math`` added for the index left out."""
    return _TEX_SPAN.sub("", html)
