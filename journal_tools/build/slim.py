"""Fewer bytes per published page, the same page for the reader.

- ``unwrap_plain_code_spans``: Pygments wraps every name (class ``n``) and every
  run of whitespace (class ``w``) in a ``<span>``. Material colours ``.n`` with
  ``--md-code-hl-name-color``, which both its palettes set to the code's own
  colour (``var(--md-code-fg-color)``), and gives ``.w`` no style at all, so
  these spans draw exactly as the bare text does: on the 2025-07-27 entry, 381
  spans and 8.8 KB. ``PLAIN_IN_MATERIAL`` names what that rests on;
  tests/toolkit/unit/test_slim.py reads the installed Material's stylesheets (and
  ours) and fails when an upgrade gives names a colour of their own.
- ``minify_css``: the site's own stylesheets (extra_css from docs/), through
  rcssmin, in the built site only: the sources keep their comments, and
  ``make serve`` serves them as written.

Not done: collapsing the HTML's whitespace (htmlmin, as mkdocs-minify-plugin
does) saves 5.5 KB on an entry but costs 14 ms a page in pure Python: 16 s
more on the 1,000-entry synthetic journal, 1.33x its build without it.
"""

from __future__ import annotations

import re
from pathlib import Path

# Pygments token classes Material draws as plain code text (see the module doc).
PLAIN_IN_MATERIAL = ("n", "w")
_PLAIN_SPAN = re.compile(r'<span class="(?:%s)">([^<]*)</span>' % "|".join(PLAIN_IN_MATERIAL))


def unwrap_plain_code_spans(html: str) -> str:
    """``html`` without the Pygments spans of :data:`PLAIN_IN_MATERIAL` (their text kept).

    A Pygments token span holds text only (its characters escaped), so the
    pattern cannot cut into other markup; the classes are Pygments' own short
    names, which nothing else on these pages uses.
    """
    return _PLAIN_SPAN.sub(r"\1", html)


def minify_css(site_dir: str | Path, extra_css: list[str], docs_dir: str | Path) -> list[Path]:
    """Minify, in ``site_dir``, each of ``extra_css`` that is a file of ``docs_dir``; the files done."""
    import rcssmin

    done = []
    for rel in extra_css:
        if "://" in rel or not (Path(docs_dir) / rel).is_file():
            continue  # a theme asset or another site's: not ours to rewrite
        path = Path(site_dir) / rel
        if path.is_file():
            path.write_text(rcssmin.cssmin(path.read_text(encoding="utf-8")), encoding="utf-8")
            done.append(path)
    return done
