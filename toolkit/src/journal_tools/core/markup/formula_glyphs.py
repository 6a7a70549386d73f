"""The glyphs a formula needs from the math font: each token's characters, a one-letter ``mi``'s math italic form
(Chromium draws ``<mi>x</mi>``, ``<mi>∂</mi>`` as U+1D465, U+1D715; h is U+210E), ``msqrt``'s radical.

- :func:`undrawable`: what the whole installed font lacks, a page's mistake at the formula's line (the Markdown
  extension raises it, so the render check, the build and serve say the same). Text (``mtext``) is the page's
  text font's, spacing accents (˜ ¯ ˙: the font has only their combining forms) too; invisible operators and variation
  selectors have no glyph of their own.
- :func:`check`: the served subset draws each need as the whole font does, glyph for glyph with its MATH
  variants and parts (the build's last check; ``mkdocs_plugin/fonts.py`` cuts the subset from :func:`needs`).
- ``PROMISED``: the commands whose every glyph the font must draw (toolkit/tests/core/test_formula_glyphs.py).
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

__all__ = ["FONT_FILES", "FONT_PACKAGE", "PROMISED", "Need", "Pages", "check", "needs", "undrawable", "whole_font"]

# The math font, installed from npm at set-up (``python -m journal_tools.mkdocs_plugin.fonts install``), never committed.
FONT_PACKAGE = "@fontsource/noto-sans-math"
FONT_FILES = Path(".cache") / "fonts" / "node_modules" / FONT_PACKAGE / "files"  # under the journal's root

_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi rho varrho "
          "sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega").split()
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Every TeX command here converts to characters the math font draws, each as Chromium asks for it (a promise, checked against
# the font a site ships by the toolkit's suite). Greek, operators, relations, arrows, the calculus symbols, \mathbb/\mathcal/\mathbf.
PROMISED = (
    *(f"\\{name}" for name in _GREEK),
    *r"+ - = < > \pm \mp \times \div \cdot \ast \star \circ \bullet \oplus \otimes \odot \cap \cup \wedge \vee \setminus".split(),
    *r"\sum \prod \int \oint \iint \sqrt{x} \sqrt[3]{x} \frac{a}{b} \langle\rangle \lVert\rVert \lfloor\rfloor \lceil\rceil".split(),
    *r"\le \ge \neq \approx \equiv \sim \simeq \cong \propto \in \notin \subset \subseteq \supset \supseteq \ll \gg".split(),
    *r"\mid \parallel \perp \to \gets \leftrightarrow \Rightarrow \Leftarrow \Leftrightarrow \mapsto \uparrow \downarrow".split(),
    *r"\longrightarrow \implies \iff \partial \nabla \infty \ell \forall \exists \emptyset \hbar \ldots \cdots \top \sin{x}".split(),
    *(f"\\{font}{{{letter}}}" for font in ("mathbb", "mathcal", "mathbf") for letter in _LETTERS),
    *(f"\\mathbf{{{letter}}}" for letter in _LETTERS.lower()),
)

_TOKENS = {"mi", "mn", "mo", "mtext", "ms"}
_RADICAL = {"msqrt": 0x221A, "mroot": 0x221A}
_MATH = re.compile(r"<math\b.*?</math>", re.S | re.I)
_ITALIC_H = 0x210E  # MATHEMATICAL ITALIC SMALL H is unassigned: Unicode points to the Planck constant


@dataclass(frozen=True, order=True)
class Need:
    """A character a formula needs from the font, and why."""

    cp: int
    why: str  # "in <mi>", "<msqrt>", "math italic of 'x'"

    def __str__(self) -> str:
        return f"U+{self.cp:04X} {chr(self.cp)} ({self.why})"


def _italic(char: str) -> int | None:
    """The math italic form a browser draws a one-letter <mi> in, or None (drawn as is)."""
    if char == "h":
        return _ITALIC_H
    name = unicodedata.name(char, "")
    for script in ("LATIN ", "GREEK "):
        name = name.removeprefix(script)
    try:
        return ord(unicodedata.lookup("MATHEMATICAL ITALIC " + name.replace(" LETTER", "")))
    except KeyError:
        return None


class _Formula(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: set[Need] = set()
        self._open: list[tuple[str, dict]] = []
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in _RADICAL:
            self.found.add(Need(_RADICAL[tag], f"<{tag}>"))
        if tag in _TOKENS:
            self._open.append((tag, dict(attrs)))
            self._text = []

    def handle_endtag(self, tag):
        if not self._open or self._open[-1][0] != tag:
            return
        _, attrs = self._open.pop()
        text = "".join(self._text).strip()
        self.found.update(Need(ord(c), f"in <{tag}>") for c in text if not c.isspace())
        if tag == "mi" and len(text) == 1 and attrs.get("mathvariant", "") != "normal":
            italic = _italic(text)
            if italic is not None:
                self.found.add(Need(italic, f"math italic of {text!r}"))

    def handle_data(self, data):
        if self._open:
            self._text.append(data)


def needs(html: str) -> set[Need]:
    """What the formulas of one built page need from the math font."""
    found: set[Need] = set()
    for formula in _MATH.findall(html):
        found |= _formula_needs(formula)
    return found


# Cached per formula: each serve rebuild meets the same formulas again, and what one needs depends on its text alone.
@functools.lru_cache(maxsize=None)
def _formula_needs(formula: str) -> frozenset[Need]:
    parser = _Formula()
    parser.feed(formula)
    parser.close()
    return frozenset(parser.found)


def _drawn_elsewhere(need: Need) -> bool:
    """Drawn by the page's text font, or no glyph of its own: text, a spacing accent (˜ ¯; the math font has the combining
    forms, which Chromium would place otherwise), an invisible operator (U+2061 after sin), a variation selector (it picks a
    form of the letter before it)."""
    return (need.why in ("in <mtext>", "in <ms>") or unicodedata.category(chr(need.cp)) in ("Sk", "Cf")
            or 0xFE00 <= need.cp <= 0xFE0F)


def whole_font(root: Path) -> Path | None:
    """The installed math font under the journal's ``root`` (the woff: reading woff2 needs brotli), or None without one."""
    found = sorted((root / FONT_FILES).glob("*-400-normal.woff"))
    return found[0] if found else None


@functools.lru_cache(maxsize=4)
def _code_points(path: str, stamp: tuple) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(path, lazy=True).getBestCmap())


def undrawable(mathml: str, font: Path) -> list[Need]:
    """What the formula ``mathml`` needs that ``font`` has no glyph for (text, spacing accents and variation selectors aside)."""
    stat = font.stat()
    drawn = _code_points(str(font), (stat.st_mtime_ns, stat.st_size))
    return sorted(need for need in _formula_needs(mathml) if need.cp not in drawn and not _drawn_elsewhere(need))


class _Font:
    """A font file's glyphs as outlines, its cmap and its MATH constructions."""

    def __init__(self, path: Path):
        from fontTools.ttLib import TTFont

        self.path = path
        self.font = TTFont(str(path), lazy=True)  # only the glyphs and constructions asked for are read
        self.cmap = self.font.getBestCmap()
        self.glyphs = self.font.getGlyphSet()
        self.hmtx = self.font["hmtx"]
        self.variants = self.font["MATH"].table.MathVariants if "MATH" in self.font else None
        self._index: dict[str, dict[str, int]] = {}

    def construction(self, axis: str, glyph: str):
        """The glyph's MATH construction on ``axis`` ("Vert", "Horiz"), or None."""
        coverage = getattr(self.variants, f"{axis}GlyphCoverage", None) if self.variants else None
        if coverage is None:
            return None
        if axis not in self._index:
            self._index[axis] = {name: i for i, name in enumerate(coverage.glyphs)}
        i = self._index[axis].get(glyph)
        return None if i is None else getattr(self.variants, f"{axis}GlyphConstruction")[i]

    def drawing(self, glyph: str):
        """Outline (components drawn in) and advance: equal in two fonts means the same glyph, whatever its name there."""
        from fontTools.pens.recordingPen import DecomposingRecordingPen

        pen = DecomposingRecordingPen(self.glyphs)
        self.glyphs[glyph].draw(pen)
        return self.hmtx[glyph][0], tuple(pen.value)

    def parts(self, axis: str, glyph: str):
        """The glyph's size variants and assembly parts on ``axis``, as drawings."""
        construction = self.construction(axis, glyph)
        if construction is None:
            return None
        variants = tuple(self.drawing(r.VariantGlyph) for r in construction.MathGlyphVariantRecord)
        assembly = construction.GlyphAssembly
        pieces = () if assembly is None else tuple(
            (self.drawing(p.glyph), p.StartConnectorLength, p.EndConnectorLength, p.FullAdvance, p.PartFlags)
            for p in assembly.PartRecords)
        return variants, pieces


def _missing(cp: int, whole: _Font, served: _Font) -> str | None:
    glyph = whole.cmap.get(cp)
    if glyph is None:
        return None  # the whole font cannot draw it either
    got = served.cmap.get(cp)
    if got is None:
        return "no glyph"
    if served.drawing(got) != whole.drawing(glyph):
        return "a glyph unlike the whole font's"
    for axis, name in (("Vert", "vertical"), ("Horiz", "horizontal")):
        expected = whole.parts(axis, glyph)
        if expected is not None and served.parts(axis, got) != expected:
            return f"not the whole font's {name} size variants and assembly parts"
    return None


# (served file's digest, whole file's digest) -> {code point: what is wrong, or None}:
# a rebuild of make serve reads the fonts again only for a character no page needed before.
_VERDICTS: dict[tuple[str, str], dict[int, str | None]] = {}


def _verdicts(whole: Path, served: Path, cps: set[int], reference: dict[str, _Font]) -> dict[int, str | None]:
    key = tuple(hashlib.sha256(p.read_bytes()).hexdigest() for p in (served, whole))
    if key not in _VERDICTS and len(_VERDICTS) >= 4:
        _VERDICTS.pop(next(iter(_VERDICTS)))
    known = _VERDICTS.setdefault(key, {})
    todo = cps - known.keys()
    if todo:
        if "whole" not in reference:  # read once for all served files
            reference["whole"] = _Font(whole)
        font = _Font(served)
        known.update({cp: _missing(cp, reference["whole"], font) for cp in todo})
    return known


def check(pages: dict[str, set[Need]], whole: Path, served: list[Path]) -> list[str]:
    """One line per page whose formulas need a glyph a served font lacks (``pages``: name -> ``needs`` of its HTML)."""
    cps = {need.cp for found in pages.values() for need in found}
    reference: dict[str, _Font] = {}
    verdicts = {path.name: _verdicts(whole, path, cps, reference) for path in served} if cps else {}
    problems = []
    for page in sorted(pages):
        wrong = []
        for need in sorted(pages[page]):
            found = {verdict[need.cp] for verdict in verdicts.values()} - {None}
            if found:
                files = ", ".join(name for name, verdict in verdicts.items() if verdict[need.cp])
                wrong.append(f"{need}: {' / '.join(sorted(found))} in {files}")
        if wrong:
            problems.append(f"{page}: the math font served with the site cannot draw its formulas as the whole "
                            f"font {whole.name} does: " + "; ".join(wrong))
    return problems


class Pages:
    """What each page of one build needs from the math font, gathered as pages are written."""

    def __init__(self) -> None:
        self.needs: dict[str, set[Need]] = {}

    def add(self, page: str, html: str) -> None:
        """Note the formulas of ``page`` (its final HTML, excerpt views included)."""
        found = needs(html)
        if found:
            self.needs[page] = found

    def check(self, originals: list[Path], served: list[Path]) -> list[str]:
        """``check`` against the whole installed font, read as woff (woff2 needs brotli); nothing to check without it or a served font."""
        whole = next((p for p in originals if p.suffix == ".woff"), None)
        if whole is None or not served:
            return []
        return check(self.needs, whole, served)
