"""The math font's @font-face: local fonts first, the subset's unicode-range."""

from __future__ import annotations

import posixpath
import re

from journal_tools.mkdocs_plugin import site_assets
from journal_tools.mkdocs_plugin.fonts import SITE_FONT_DIR, SUBSET_RANGES

CSS = site_assets.ASSET_DIR / "journal.css"  # the packaged stylesheet every site gets


def _face() -> str:
    return re.search(r"@font-face\s*\{(.*?)\}", CSS.read_text(encoding="utf-8"), re.S).group(1)


def test_local_math_fonts_come_before_any_download():
    src = re.search(r"src:(.*?);", _face(), re.S).group(1)
    sources = [s.strip() for s in src.split(",")]
    first_url = next(i for i, s in enumerate(sources) if s.startswith("url("))
    assert all(s.startswith("local(") for s in sources[:first_url])
    names = " ".join(sources[:first_url])
    for font in ("Cambria Math", "STIX Two Math", "Latin Modern Math", "Noto Sans Math"):
        assert f'local("{font}")' in names


def test_font_urls_point_where_the_build_copies_the_font():
    """Each url() resolves, from where the stylesheet lands in the site, into assets/fonts/ (that the files
    are there: tests/sites/test_wheel.py on the fixture journal, tests/test_site_build.py on docs/)."""
    src = re.search(r"src:(.*?);", _face(), re.S).group(1)
    urls = re.findall(r'url\("([^"]+)"\)', src)
    assert urls
    here = posixpath.dirname(site_assets.site_uri("journal.css"))
    for url in urls:
        target = posixpath.normpath(posixpath.join(here, url))
        assert posixpath.dirname(target) == SITE_FONT_DIR.as_posix(), (url, target)


def test_unicode_range_is_the_subset_the_build_writes():
    declared = re.search(r"unicode-range:(.*?);", _face(), re.S).group(1)
    ranges = [tuple(int(x, 16) for x in part.strip()[2:].split("-")) for part in declared.split(",")]
    assert ranges == [tuple(r) for r in SUBSET_RANGES]
