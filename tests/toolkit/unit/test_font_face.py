"""The math font's @font-face: local fonts first, the subset's unicode-range."""

from __future__ import annotations

import re
from pathlib import Path

from journal_tools.build.fonts import SUBSET_RANGES

CSS = Path(__file__).resolve().parents[3] / "docs" / "stylesheets" / "journal.css"


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


def test_unicode_range_is_the_subset_the_build_writes():
    declared = re.search(r"unicode-range:(.*?);", _face(), re.S).group(1)
    ranges = [tuple(int(x, 16) for x in part.strip()[2:].split("-")) for part in declared.split(",")]
    assert ranges == [tuple(r) for r in SUBSET_RANGES]
