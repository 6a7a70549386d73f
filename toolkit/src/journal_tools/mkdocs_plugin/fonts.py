"""The math font served with the site: ``python -m journal_tools.mkdocs_plugin.fonts install`` puts npm's
``@fontsource/noto-sans-math`` (it has a MATH table) in ``.cache/fonts/``; never committed.

A blocks subset (``SUBSET_RANGES``, the stylesheet's unicode-range; fontsource's "latin" file is the whole
font) and, per build, a subset of the code points its MathML holds and of the letters FreeType's auto-hinter
measures the font's zones on (``HINTER_ZONE_LETTERS``; :func:`copy_to_site`, 17 KB woff2 here against 270 KB),
MATH table and layout features kept. woff2 needs ``brotli``. ``root`` is the journal's.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from journal_tools.core.markup import formula_glyphs
from journal_tools.core.record import atomic

PACKAGE = formula_glyphs.FONT_PACKAGE
VERSION = "5.3.0"
CACHE_DIR = Path(".cache") / "fonts"
SITE_FONT_DIR = Path("assets") / "fonts"
FONT_SUFFIXES = (".woff2", ".woff")
SUBSET_DIR = CACHE_DIR / "subset"
STAMP_NAME = "subset.stamp"

# Unicode blocks a formula may draw from this font (inclusive ranges; the stylesheet's unicode-range).
SUBSET_RANGES = (
    (0x0020, 0x007E),    # Basic Latin
    (0x00A0, 0x00FF),    # Latin-1 Supplement
    (0x0300, 0x036F),    # Combining Diacritical Marks (accents, over-bars)
    (0x0370, 0x03FF),    # Greek and Coptic
    (0x2000, 0x206F),    # General Punctuation (spaces, invisible times/apply)
    (0x2100, 0x214F),    # Letterlike Symbols
    (0x2190, 0x21FF),    # Arrows
    (0x2200, 0x22FF),    # Mathematical Operators
    (0x2300, 0x23FF),    # Miscellaneous Technical (bracket pieces, ceilings)
    (0x25A0, 0x25FF),    # Geometric Shapes (\square, \triangle)
    (0x27C0, 0x27FF),    # Miscellaneous Mathematical Symbols-A, Supplemental Arrows-A (angle brackets, long arrows)
    (0x2900, 0x29FF),    # Supplemental Arrows-B, Miscellaneous Mathematical Symbols-B
    (0x2A00, 0x2AFF),    # Supplemental Mathematical Operators
    (0xFE00, 0xFE0F),    # Variation Selectors (\mathcal's chancery letters: U+2112 U+FE00)
    # Mathematical Alphanumeric Symbols, the whole block: browsers draw a single-letter <mi> (x, W, \alpha) with the math italic forms,
    # \mathbf with the bold ones, \mathbb{E} with the double-struck ones. A site's subset holds only the forms its pages use; a character
    # outside these ranges would be drawn by another font.
    (0x1D400, 0x1D7FF),
)
# Letters every subset keeps, whatever its pages use: those FreeType's auto-hinter (Chromium on Linux) measures Latin and Greek alignment
# zones on (its blue strings; 'o' and 'O' for stem widths), in the font it is given. A subset without 'j' (the made journal's maths: d, k)
# got another ascender zone: math italic d and k, and so sqrt(d_k), drawn a pixel taller than with the whole font. The math italic letters
# (U+1D400 on) are hinted on the Latin zones. 58 letters: the made journal's subset went from 7.8 to 10.8 KB (woff2).
HINTER_ZONE_LETTERS = (
    "THEZOCQS" "HEZLOCUS" "fijkdbh" "xzroesc" "pqgjy" "oO"  # Latin
    "ΓΒΕΖΘΟΩ" "ΒΔΖΞΘΟ" "βθδζλξ" "αειοπστω" "βγημρφχψ" "οΟ"  # Greek
)
# Part of the stamp: change it when the subsetting rules change.
SUBSET_RULES = ("v6 " + repr(SUBSET_RANGES) + " layout_features=* keep MATH, cmap aliases, source date, hinter zones "
                + HINTER_ZONE_LETTERS)


def math_codepoints(html: str) -> set[int]:
    """The code points the MathML in ``html`` needs from the font (formula_glyphs.needs: what the glyph checks check), in SUBSET_RANGES.

    One list for the subset and the checks: the subset's own once kept the italic forms of Latin and Greek letters only, so
    ``<mi>∂</mi>``, which Chromium draws as U+1D715, had no glyph in any served font."""
    return {need.cp for need in formula_glyphs.needs(html) if any(lo <= need.cp <= hi for lo, hi in SUBSET_RANGES)}


def package_dir(root: Path) -> Path:
    """Where npm puts the font package's files under ``root``."""
    return root / formula_glyphs.FONT_FILES


def font_files(root: Path) -> list[Path]:
    """The installed woff2/woff files (empty if the font is not installed)."""
    files_dir = package_dir(root)
    if not files_dir.is_dir():
        return []
    return sorted(
        p
        for p in files_dir.iterdir()
        if p.suffix in FONT_SUFFIXES and "-400-normal" in p.name
    )


def _have_brotli() -> bool:
    try:
        import brotli  # noqa: F401  (fontTools needs it to write woff2)
    except ImportError:
        return False
    return True


def _stamp(originals: list[Path]) -> str:
    h = hashlib.sha256(SUBSET_RULES.encode())
    for p in originals:
        h.update(b"\0" + p.name.encode() + b"\0" + p.read_bytes())
    h.update(b"\0brotli=" + str(_have_brotli()).encode())
    return h.hexdigest()


def _aliases(font, unicodes: set[int]) -> set[int]:
    """Other code points mapped to ``unicodes``' glyphs (U+210E, U+1D629): kept, as Chromium hinted a glyph otherwise with fewer."""
    cmap = font.getBestCmap()
    glyphs = {cmap[cp] for cp in unicodes if cp in cmap}
    return {cp for cp, glyph in cmap.items() if glyph in glyphs}


def subset_font(source: Path, flavor: str | None, codepoints: set[int] | None = None) -> bytes:
    """The subset of ``source`` (woff/woff2/ttf) as ``flavor``: the SUBSET_RANGES blocks, or only ``codepoints`` when given."""
    import io

    from fontTools import subset as ft_subset
    from fontTools.ttLib import TTFont

    options = ft_subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.glyph_names = False
    options.hinting = True
    # Keep MATH (default drop_tables does not list it; make sure).
    options.drop_tables = [t for t in options.drop_tables if t != "MATH"]
    options.flavor = flavor
    font = TTFont(str(source), recalcTimestamp=False)  # the source's date: the same bytes at every build
    subsetter = ft_subset.Subsetter(options=options)
    if codepoints is None:
        unicodes = {cp for lo, hi in SUBSET_RANGES for cp in range(lo, hi + 1)}
    else:
        unicodes = set(codepoints) | set(map(ord, HINTER_ZONE_LETTERS))
    subsetter.populate(unicodes=sorted(unicodes | _aliases(font, unicodes)))
    subsetter.subset(font)
    if "MATH" not in font:
        raise RuntimeError(f"subsetting {source.name} dropped the MATH table")
    buf = io.BytesIO()
    font.flavor = flavor
    font.save(buf)
    return buf.getvalue()


def subset_files(root: Path, codepoints: set[int] | None = None) -> list[Path]:
    """The subset files, written if missing or stale; [] if the font is missing or subsetting fails (the caller copies the whole font)."""
    originals = font_files(root)
    if not originals:
        return []
    out_dir = root / SUBSET_DIR
    stamp = _stamp(originals)
    if codepoints is not None:
        stamp = hashlib.sha256(f"{stamp} {sorted(codepoints)}".encode()).hexdigest()
        out_dir = out_dir / stamp[:16]
    stamp_path = out_dir / STAMP_NAME
    flavors = ["woff2", "woff"] if _have_brotli() else ["woff"]
    by_suffix = {p.suffix: p for p in originals}
    wanted = [out_dir / by_suffix[f".{f}"].name for f in flavors if f".{f}" in by_suffix]
    try:
        current = stamp_path.read_text(encoding="utf-8").strip()
    except OSError:
        current = ""
    if current == stamp and all(p.is_file() for p in wanted):
        return wanted
    # Read the woff (zlib) when there is one: reading woff2 needs brotli too.
    source = by_suffix.get(".woff") or by_suffix.get(".woff2")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for stale in out_dir.iterdir():
            if stale.suffix in FONT_SUFFIXES and stale not in wanted:
                stale.unlink()
        for dest in wanted:
            atomic.write_bytes(dest, subset_font(source, dest.suffix.lstrip("."), codepoints))
        atomic.write_bytes(stamp_path, (stamp + "\n").encode())
        if codepoints is not None:
            _prune_site_subsets(root / SUBSET_DIR, keep=out_dir)
    except Exception as exc:  # noqa: BLE001 - fall back to the whole font
        print(f"journal_tools.mkdocs_plugin.fonts: could not subset {source.name}: {exc}", file=sys.stderr)
        return []
    return wanted


def _prune_site_subsets(parent: Path, keep: Path, count: int = 8) -> None:
    """Keep the ``count`` newest per-site subsets (each edit that adds a symbol makes one)."""
    subsets = sorted((d for d in parent.iterdir() if d.is_dir() and d != keep),
                     key=lambda d: d.stat().st_mtime, reverse=True)
    for old in subsets[count - 1:]:
        shutil.rmtree(old, ignore_errors=True)


def copy_to_site(site_dir: str | Path, root: Path, codepoints: set[int] | None = None) -> list[Path]:
    """Copy the font files to ``site_dir/assets/fonts``; ``codepoints``: the site's maths (none: the blocks' subset, so CSS resolves)."""
    sources = subset_files(root, codepoints or None) or font_files(root)
    if not sources:
        return []
    dest_dir = Path(site_dir) / SITE_FONT_DIR
    dest_dir.mkdir(parents=True, exist_ok=True)
    copies = []
    for src in sources:
        dest = dest_dir / src.name
        shutil.copyfile(src, dest)
        copies.append(dest)
    return copies


def install(root: Path) -> int:
    """Install the font package with npm into ``root/.cache/fonts`` and subset it."""
    npm = shutil.which("npm")
    if npm is None:
        print(
            "journal_tools.mkdocs_plugin.fonts: npm not found; install Node.js/npm to serve the "
            f"math font ({PACKAGE}@{VERSION}). Pages still work: they fall back "
            "to the reader's math font.",
            file=sys.stderr,
        )
        return 2
    prefix = root / CACHE_DIR
    prefix.mkdir(parents=True, exist_ok=True)
    cmd = [
        npm, "install", "--prefix", str(prefix),
        "--no-save", "--no-audit", "--no-fund",
        f"{PACKAGE}@{VERSION}",
    ]
    result = subprocess.run(cmd)
    if result.returncode != 0:
        print(f"journal_tools.mkdocs_plugin.fonts: `{' '.join(cmd)}` failed", file=sys.stderr)
        return result.returncode
    found = font_files(root)
    if not found:
        print(f"journal_tools.mkdocs_plugin.fonts: no font files under {package_dir(root)}", file=sys.stderr)
        return 1
    for path in found:
        print(f"installed {path.relative_to(root)} ({path.stat().st_size} bytes)")
    subset = subset_files(root)
    if not subset:
        print("journal_tools.mkdocs_plugin.fonts: subsetting failed; the site gets the whole font", file=sys.stderr)
    for path in subset:
        print(f"subset    {path.relative_to(root)} ({path.stat().st_size} bytes)")
    if not _have_brotli():
        print("journal_tools.mkdocs_plugin.fonts: no brotli module, so no woff2 subset (browsers use the woff one)",
              file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m journal_tools.mkdocs_plugin.fonts install``."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["install"]:
        print("usage: python -m journal_tools.mkdocs_plugin.fonts install", file=sys.stderr)
        return 2
    from journal_tools.core.settings import find_root

    return install(find_root())


if __name__ == "__main__":
    sys.exit(main())
