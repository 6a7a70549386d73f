"""6. Weight of a page beyond the theme's own assets.

Counts the page's HTML plus every file it makes the browser load that does not
come from the theme (mkdocs-material's templates): the site's own stylesheets
(extra_css), scripts, images, and the fonts its stylesheets declare in
@font-face (the first woff2/woff source, counted when the page has <math>,
the only thing set in that font). The built site is the real mkdocs.yml's (with
the notebook executed). KB = 1,000 bytes, uncompressed.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from benchmarks.rows import Row

# (reader with a local math font, reader without one): the @font-face lists
# local() sources first, so the first reader downloads no font.
ENTRY_GOAL_KB = (60, 120)
NOTEBOOK_GOAL_KB = (150, 200)

_REFS = re.compile(r'<(?:link|script|img|source)\b[^>]*?\b(?:href|src)="(?P<url>[^"]+)"[^>]*>', re.I)
_FONT_FACE = re.compile(r"@font-face\s*\{(?P<body>.*?)\}", re.S)
_URL = re.compile(r"""url\(\s*['"]?(?P<url>[^'")]+)['"]?\s*\)""")


def _theme_dir() -> Path | None:
    try:
        import material
    except ImportError:
        return None
    return Path(material.__file__).resolve().parent / "templates"


def _loaded(tag: str) -> bool:
    t = tag.lower()
    if t.startswith("<link"):
        return bool(re.search(r'rel="(stylesheet|preload|icon|shortcut icon|modulepreload)"', t))
    return True  # script src, img src, source src


def weigh(site: Path, page: Path, local_font: bool = False) -> tuple[int, list[tuple[str, int]], int]:
    """(total bytes, [(what, bytes)], gzip total) of the page and its non-theme assets.

    ``local_font``: the reader has a math font installed (the site's font is not fetched).
    """
    theme = _theme_dir()
    html = page.read_text(encoding="utf-8")
    parts = [(str(page.relative_to(site)), len(html.encode()))]
    gz = len(gzip.compress(html.encode()))
    page_url = "/" + str(page.relative_to(site).parent.as_posix()) + "/"
    seen = set()

    def local(url: str, base: str) -> Path | None:
        split = urlsplit(url)
        if split.scheme in ("http", "https") or url.startswith("//"):
            parts.append((f"EXTERNAL {url}", 0))
            return None
        if split.scheme == "data" or url.startswith("data:"):
            return None
        path = urljoin(base, split.path).lstrip("/")
        return site / path

    def add(file: Path, label: str) -> None:
        nonlocal gz
        if file in seen or not file.is_file():
            return
        seen.add(file)
        rel = file.relative_to(site).as_posix()
        if theme and (theme / rel).is_file():
            return  # the theme's own asset
        data = file.read_bytes()
        parts.append((f"{label} {rel}", len(data)))
        gz += len(data) if rel.endswith((".woff2", ".woff", ".png", ".jpg", ".svg.gz")) else len(gzip.compress(data))
        if rel.endswith(".css"):
            css = data.decode("utf-8", "replace")
            css_url = "/" + rel
            for face in _FONT_FACE.finditer(css):
                urls = _URL.findall(face["body"])
                if urls and "<math" in html and not local_font:
                    target = local(urls[0], css_url)
                    if target is not None:
                        add(target, "font")

    for m in _REFS.finditer(html):
        if not _loaded(m.group(0)):
            continue
        target = local(m["url"], page_url)
        if target is not None:
            add(target, "asset")
    return sum(b for _, b in parts), parts, gz


_PARTS = {
    "code blocks (Pygments spans)": re.compile(r'<div class="language-.*?</code></pre></div>', re.S),
    "MathML": re.compile(r"<math\b.*?</math>", re.S),
    "inline SVG figures": re.compile(r"<svg\b.*?</svg>", re.S),
    "Material's navigation": re.compile(r"<nav\b.*?</nav>", re.S),
    "Material's header": re.compile(r"<header\b.*?</header>", re.S),
}


def html_parts(page: Path) -> dict[str, int]:
    """Bytes of the page's HTML by kind (the profile of a page that misses its goal)."""
    html = page.read_text(encoding="utf-8")
    out = {name: sum(len(m.encode()) for m in rx.findall(html)) for name, rx in _PARTS.items()}
    out["the rest"] = len(html.encode()) - sum(out.values())
    return out


def _row(name: str, site: Path, pages: list[Path], goals: tuple[int, int]) -> Row:
    goal = f"<= {goals[0]} / {goals[1]} KB"
    if not pages:
        return Row(name, "n/a: no such page", goal)
    weighed = [(p, *weigh(site, p)) for p in pages]
    page, total, parts, gz = max(weighed, key=lambda w: w[1])
    with_font = weigh(site, page, local_font=True)[0]
    notes = [f"heaviest: {page.relative_to(site)} ({len(pages)} pages weighed); gzip without a local font: {gz / 1000:.0f} KB"]
    notes += [f"  {b / 1000:8.1f} KB  {what}" for what, b in parts]
    notes.append("  where the HTML's bytes go: " + ", ".join(f"{k} {v / 1000:.1f} KB" for k, v in html_parts(page).items()))
    met = with_font <= goals[0] * 1000 and total <= goals[1] * 1000
    return Row(name, f"{with_font / 1000:.0f} KB with a local math font / {total / 1000:.0f} KB without", goal, met, notes=notes)


def measure(site: Path) -> list[Row]:
    """6a/6b: the heaviest entry and notebook page, for a reader with and without a local math font."""
    entries = sorted(site.glob("blog/[0-9]*/**/index.html"))
    notebooks = sorted(site.glob("notebooks/**/index.html"))
    rows = [_row("6a. entry page weight beyond theme assets", site, entries, ENTRY_GOAL_KB)]
    if notebooks:
        rows.append(_row("6b. notebook page weight beyond theme assets", site, notebooks, NOTEBOOK_GOAL_KB))
    else:
        rows.append(Row("6b. notebook page weight beyond theme assets", "n/a: no notebooks", "-"))
    return rows
