"""Math as a Python-Markdown extension, in place of ``pymdownx.arithmatex``: its patterns reused by subclassing
(same syntax and escapes), MathML out (``mathml.tex_to_mathml``) kept in the raw-HTML stash. Every renderer
of the site's Markdown gets the same MathML; display math is wrapped in ``<div class="math-display">``.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as etree

from pymdownx.arithmatex import ArithmatexExtension, BlockArithmatexProcessor, InlineArithmatexPattern

from journal_tools.core.markup.crossrefs import EQUATION_LABEL
from journal_tools.core.markup.mathml import DISPLAY_CLASS, numbered, tex_to_mathml

__all__ = ["NAMES", "NOWRAP_CLASS", "MathExtension", "display_attributes", "makeExtension"]

NAMES = ("journal_math", "journal_tools.core.markup.markdown_math")  # as mkdocs.yml may list it
NOWRAP_CLASS = "math-nowrap"  # an inline formula and its punctuation (journal.css: white-space: nowrap)


def display_attributes(number: int) -> dict[str, str]:
    """Attributes a scrolling display formula needs (axe: tabindex, role, name); renumbered per page by ``mkdocs_plugin/a11y.py``."""
    return {"class": DISPLAY_CLASS, "role": "region", "tabindex": "0", "aria-label": f"Formula {number}"}


# Punctuation right after an inline formula: kept on its line (a line may not break between "$x$" and ",").
_TRAILING = re.compile(r"[.,;:!?)]+")


class _InlineMath(InlineArithmatexPattern):
    def handleMatch(self, m, data):  # noqa: N802 (Python-Markdown's name)
        """MathML for an inline formula, glued to the punctuation after it; arithmatex's handling of escaped dollars kept."""
        result, start, end = super().handleMatch(m, data)
        if isinstance(result, str):  # an escape sequence, not math
            return result, start, end
        mathml = tex_to_mathml(_tex(result.text, self.wrap), display=False, font=self.font)
        trailing = _TRAILING.match(data, end)
        if trailing:
            mathml, end = f'<span class="{NOWRAP_CLASS}">{mathml}{trailing[0]}</span>', trailing.end()
        return self.md.htmlStash.store(mathml), start, end


class _BlockMath(BlockArithmatexProcessor):
    def __init__(self, pattern, config, md, numbers):
        super().__init__(pattern, config, md)
        self.font = config["font"]
        self.numbers = numbers  # the extension's count of this conversion's display formulas

    def generic_output(self, parent, math):
        """A ``div.math-display`` holding the MathML of a display formula; a labelled one (``$$ {#eq-x}``) numbered, the label its id."""
        attributes = display_attributes(next(self.numbers.count))
        mathml = tex_to_mathml(math, display=True, font=self.font)
        label = self.match["label"]
        if label:  # numbered in page order, as core/markup/crossrefs.py numbers the references to it
            attributes["id"] = label
            mathml = numbered(mathml, next(self.numbers.labelled))
        el = etree.SubElement(parent, "div", attributes)
        el.text = self.parser.md.htmlStash.store(mathml)


def _tex(wrapped: str, wrap: str) -> str:
    """The formula inside arithmatex's generic wrapper (``\\(...\\)`` by default)."""
    opening, _, closing = wrap.partition("{}")
    opening, closing = opening.replace("{{", "{").replace("}}", "}"), closing.replace("{{", "{").replace("}}", "}")
    return wrapped[len(opening) : len(wrapped) - len(closing)]


class MathExtension(ArithmatexExtension):
    """arithmatex's syntax, MathML output (options: arithmatex's, ``generic`` forced on, and ``font``, set by the toolkit)."""

    def __init__(self, *args, font: str = "", **kwargs):
        super().__init__(*args, **kwargs)  # arithmatex's own options (it sets self.config whole)
        # The math font's file (Settings.make sets the installed one): a formula with a symbol it lacks fails at its line.
        self.config["font"] = [font, "the math font's file, whose glyphs every formula must have (empty: not checked)"]

    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        """Register arithmatex's processors, then swap in the MathML ones at the same names."""
        self.setConfig("generic", True)
        super().extendMarkdown(md)
        md.registerExtension(self)  # reset() with each md.reset(): formulas numbered per conversion
        self.reset()
        config = self.getConfigs()
        if "arithmatex-inline" in md.inlinePatterns:
            pattern = md.inlinePatterns["arithmatex-inline"].compiled_re.pattern
            inline = _InlineMath(pattern, config)
            inline.md = md  # arithmatex's constructor takes no md; the stash needs it
            inline.font = config["font"]
            md.inlinePatterns.register(inline, "arithmatex-inline", 189.9)
        if "arithmatex-block" in md.parser.blockprocessors:
            pattern = md.parser.blockprocessors["arithmatex-block"].pattern.pattern
            # arithmatex's block ends "[ ]*$"; a label may follow the closing $$ (Quarto's syntax)
            pattern = pattern.removesuffix("[ ]*$") + f"(?:{EQUATION_LABEL})?[ ]*$"
            md.parser.blockprocessors.register(_BlockMath(pattern, config, md, self), "arithmatex-block", 79.9)

    def reset(self):
        """Number the next conversion's display formulas from 1."""
        self.count = itertools.count(1)
        self.labelled = itertools.count(1)


def makeExtension(**kwargs):  # noqa: N802 (Python-Markdown's name)
    """Python-Markdown's entry point for ``journal_tools.core.markup.markdown_math``."""
    return MathExtension(**kwargs)
