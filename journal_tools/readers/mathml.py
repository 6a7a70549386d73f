"""LaTeX to MathML Core, one formula at a time (the ``math-core`` package).

The Markdown extension (``journal_tools.readers.markdown_math``) calls
:func:`tex_to_mathml` for every formula of every page, excerpt and feed
description; the notebook pages reach it through the same extension. A
formula that does not convert raises :class:`MathError`, which names the
source file, the line of the formula and math-core's reason ("at character N").
"""

from __future__ import annotations

import re

import math_core
from markdown.util import HTML_PLACEHOLDER

__all__ = ["DISPLAY_CLASS", "MathError", "find_line", "tex_to_mathml"]

# One converter for the whole process: it is cheap to call (microseconds a
# formula). Local state per formula, so a page's \def or \tag cannot leak into
# the next page.
_CONVERTER = math_core.LatexToMathML(fancy_error=False)

_OFFSET = re.compile(r"^(\d+): ")
# What Python-Markdown leaves in a formula for a block it has already rendered (a code
# fence between $$ lines, say): not in the source, so not searched for, and not shown.
_STASHED = re.compile(r"\d+".join(re.escape(part) for part in HTML_PLACEHOLDER.split("%s")))

# Class of the wrapper around display math (scrolls sideways on narrow
# screens; see journal_tools/build/assets/journal.css).
DISPLAY_CLASS = "math-display"


class MathError(ValueError):
    """A formula that math-core cannot convert.

    Attributes: ``tex`` (the formula), ``line`` (1-based line of its first
    occurrence in the source, or None), ``reason`` (math-core's message),
    ``src_path`` (the file named in the message, or None).
    """

    def __init__(self, *, tex: str, reason: str, src_path: str | None = None, line: int | None = None):
        # math-core says "7: Expected closing token ...": 7 is the offset in the formula.
        reason = _OFFSET.sub(r"at character \1: ", reason, count=1)
        self.tex, self.reason, self.src_path, self.line = tex, reason, src_path, line
        where = "" if src_path is None else (f"{src_path}: " if line is None else f"{src_path}:{line}: ")
        formula = " ".join(_STASHED.sub(" ... ", tex).split())  # one line, even for display math
        super().__init__(f"{where}bad TeX in formula '{formula}': {reason}")

    def located(self, src_path: str, source: str | None) -> MathError:
        """The same error naming ``src_path`` and the formula's line in ``source``."""
        return MathError(tex=self.tex, reason=self.reason, src_path=src_path, line=find_line(self.tex, source))


def tex_to_mathml(tex: str, *, display: bool) -> str:
    """Convert one formula (unescaped TeX) to a ``<math>`` element; MathError on bad TeX."""
    try:
        return _CONVERTER.convert_with_local_state(tex, displaystyle=display)
    except math_core.LatexError as exc:
        raise MathError(tex=tex, reason=str(exc)) from None


def find_line(tex: str, source: str | None) -> int | None:
    """1-based line where ``tex`` first occurs in ``source``.

    Tries the whole formula, then its first non-blank line (display math in an
    indented block has its lines re-indented in the source), then the formula
    with all whitespace left out (Python-Markdown turns tabs into spaces before
    the math extension sees the formula). None if absent.
    """
    if not source:
        return None
    tex = _STASHED.sub("\n", tex)
    lines = [ln.strip() for ln in tex.splitlines() if ln.strip()]
    for needle in [tex.strip(), *lines[:1]]:
        pos = source.find(needle) if needle else -1
        if pos >= 0:
            return source.count("\n", 0, pos) + 1
    squeezed_tex = "".join(tex.split())
    if squeezed_tex:
        kept = [i for i, ch in enumerate(source) if not ch.isspace()]  # squeezed index -> source index
        pos = "".join(source[i] for i in kept).find(squeezed_tex)
        if pos >= 0:
            return source.count("\n", 0, kept[pos]) + 1
    return None
