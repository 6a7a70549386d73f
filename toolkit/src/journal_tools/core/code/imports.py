"""The top-level modules a page's code names in its import lines (the downloads write in the
snippet modules among them). What a page's code really imports is observed while it runs
(``core.code.observe``); this reads the text only, for what is made from the text."""

from __future__ import annotations

import re

_IMPORT_LINE = re.compile(r"^[ \t>]*(?:from[ \t]+(?P<module>[A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+(?P<names>[\w., \t]+))",
                          re.MULTILINE)


def imported_names_in_text(text: str) -> set[str]:
    """Top-level modules named by the import lines of ``text`` (code in a page, indented or not)."""
    names = set()
    for m in _IMPORT_LINE.finditer(text):
        if m["module"]:
            names.add(m["module"])
        else:
            names.update(n.split()[0].split(".")[0] for n in m["names"].split(",") if n.strip())
    return names
