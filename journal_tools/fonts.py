"""The math font served with the site (installed at set-up, never committed).

    python -m journal_tools.fonts install

installs the npm package ``@fontsource/noto-sans-math`` (Noto Sans Math: it
has an OpenType MATH table, so browsers lay out MathML fractions, roots and
stretchy brackets with it) into ``.cache/fonts/``. The MkDocs hook copies the
font files into the built site at ``assets/fonts/``; without them the
stylesheet falls back to the reader's own math font.

Note: fontsource names its only file "latin", but the file holds the whole
font (math italic letters, operators, the MATH table); the site's @font-face
therefore sets no unicode-range.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = "@fontsource/noto-sans-math"
VERSION = "5.3.0"
REPO_ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = Path(".cache") / "fonts"
SITE_FONT_DIR = Path("assets") / "fonts"
FONT_SUFFIXES = (".woff2", ".woff")


def package_dir(root: Path = REPO_ROOT) -> Path:
    return root / CACHE_DIR / "node_modules" / PACKAGE / "files"


def font_files(root: Path = REPO_ROOT) -> list[Path]:
    """The installed woff2/woff files (empty if the font is not installed)."""
    files_dir = package_dir(root)
    if not files_dir.is_dir():
        return []
    return sorted(
        p
        for p in files_dir.iterdir()
        if p.suffix in FONT_SUFFIXES and "-400-normal" in p.name
    )


def copy_to_site(site_dir: str | Path, root: Path = REPO_ROOT) -> list[Path]:
    """Copy the font files into ``site_dir/assets/fonts``; return the copies."""
    sources = font_files(root)
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


def install(root: Path = REPO_ROOT) -> int:
    npm = shutil.which("npm")
    if npm is None:
        print(
            "journal_tools.fonts: npm not found; install Node.js/npm to serve the "
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
        print(f"journal_tools.fonts: `{' '.join(cmd)}` failed", file=sys.stderr)
        return result.returncode
    found = font_files(root)
    if not found:
        print(f"journal_tools.fonts: no font files under {package_dir(root)}", file=sys.stderr)
        return 1
    for path in found:
        print(f"installed {path.relative_to(root)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["install"]:
        print("usage: python -m journal_tools.fonts install", file=sys.stderr)
        return 2
    return install()


if __name__ == "__main__":
    sys.exit(main())
