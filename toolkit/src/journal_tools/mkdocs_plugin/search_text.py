"""What Material's search indexes of a formula: its TeX as words. The index is the page's text, and a formula's
MathML text runs its letters together ("softmax(QK⊤dk)V"), while its TeX shows in a result's snippet as
``\\operatorname{softmax}``; so each ``<math>`` is left out (``data-search-exclude``) and a plain-text reading of its
TeX follows in a span, for the index only: ``softmax(Q K^⊤/sqrt(d_k)) V``. The page itself is written without it
(:func:`unsearchable`), so no check or reader meets it. The words come from pylatexenc's LaTeX-to-text, a parser of
TeX (groups, arguments, environments) with a reading for every common macro; only ``\\sqrt`` is read
``sqrt(...)``, not ``√(...)``, so a search for "sqrt d_k" finds it (the site's search splits words at brackets
and slashes: ``plugins: search: separator`` in mkdocs.yml).
"""

from __future__ import annotations

import functools
import html
import re

__all__ = ["searchable_math", "tex_words", "unindexed_boxes", "unsearchable"]

_MATH = re.compile(r'<math(?P<attrs>[^>]*?) alttext="(?P<tex>[^"]*)"(?P<rest>.*?</math>)', re.S)


@functools.cache
def _reader():
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    context.add_context_category("journal-search", prepend=True,
                                 macros=[MacroTextSpec("sqrt", simplify_repl="sqrt(%(2)s)")])
    return LatexNodes2Text(math_mode="text", latex_context=context)


def tex_words(tex: str) -> str:
    """A formula's TeX read as plain text, on one line: ``\\frac{1}{\\sqrt{d_k}}`` -> ``1/sqrt(d_k)``."""
    return " ".join(_reader().latex_to_text(tex).split())


def searchable_math(html_text: str) -> str:
    """``html_text`` with each formula's words, not its MathML text or TeX, for the search index."""
    return _MATH.sub(lambda m: f'<math{m["attrs"]} alttext="{m["tex"]}" data-search-exclude{m["rest"]}'
                               f'<span hidden data-tex>{html.escape(tex_words(html.unescape(m["tex"])), quote=False)}'
                               "</span>", html_text)


_TEX_SPAN = re.compile(r"<span hidden data-tex>[^<]*</span>")


def unsearchable(html_text: str) -> str:
    """The page as written: the spans ``searchable_math`` added for the index left out."""
    return _TEX_SPAN.sub("", html_text)


# An admonition's opening tag and its title, as Python-Markdown's admonition extension writes them.
_BOX = re.compile(r'<div class="(?P<classes>admonition\b[^"]*)">(?P<gap>\s*)<p class="admonition-title">(?P<title>[^<]*)')


def unindexed_boxes(html_text: str, titles: list[str] | tuple[str, ...] = ()) -> str:
    """``html_text`` with the boxes every page of a series repeats left out of search: an admonition of class
    ``series`` (``!!! info series "..."``), or one whose title starts with one of ``titles`` (the ``journal`` plugin's
    ``unindexed_boxes`` option). Else a search for "softmax" finds the series' reading lists before the text."""
    def sub(m: re.Match) -> str:
        title = html.unescape(m["title"]).strip()
        if "series" not in m["classes"].split() and not any(title.startswith(t) for t in titles if t):
            return m.group(0)
        return f'<div class="{m["classes"]}" data-search-exclude>{m["gap"]}<p class="admonition-title">{m["title"]}'

    return _BOX.sub(sub, html_text)
