"""Fewer bytes per page, the same page: Pygments' name and whitespace spans that Material draws as plain text
unwrapped (``PLAIN_IN_MATERIAL`` names what that rests on; a test reads Material's CSS), and CSS minified
with rcssmin. No HTML minification (DECISIONS.md).
"""

from __future__ import annotations

import re
from pathlib import Path

# Pygments token classes Material draws as plain code text (see the module doc).
PLAIN_IN_MATERIAL = ("n", "w")
_PLAIN_SPAN = re.compile(r'<span class="(?:%s)">([^<]*)</span>' % "|".join(PLAIN_IN_MATERIAL))


def unwrap_plain_code_spans(html: str) -> str:
    """``html`` without the Pygments spans of :data:`PLAIN_IN_MATERIAL`, their text kept (such a span holds text only)."""
    return _PLAIN_SPAN.sub(r"\1", html)


def minify(css: str) -> str:
    """``css`` minified (rcssmin): the same rules, without comments and spare whitespace."""
    import rcssmin

    return rcssmin.cssmin(css)


def minify_css(site_dir: str | Path, extra_css: list[str], docs_dir: str | Path) -> list[Path]:
    """Minify, in ``site_dir``, each of ``extra_css`` that is a file of ``docs_dir``; the files done."""
    done = []
    for rel in extra_css:
        if "://" in rel or not (Path(docs_dir) / rel).is_file():
            continue  # a theme asset or another site's: not ours to rewrite
        path = Path(site_dir) / rel
        if path.is_file():
            path.write_text(minify(path.read_text(encoding="utf-8")), encoding="utf-8")
            done.append(path)
    return done
