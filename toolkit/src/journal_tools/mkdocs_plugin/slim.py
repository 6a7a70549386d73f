"""Fewer bytes per published page, the same page for the reader.

- ``unwrap_plain_code_spans``: Pygments wraps every name (class ``n``) and every
  run of whitespace (class ``w``) in a ``<span>``. Material colours ``.n`` with
  ``--md-code-hl-name-color``, which both its palettes set to the code's own
  colour (``var(--md-code-fg-color)``), and gives ``.w`` no style at all, so
  these spans draw exactly as the bare text does: on the 2025-07-27 entry, 381
  spans and 8.8 KB. ``PLAIN_IN_MATERIAL`` names what that rests on;
  toolkit/tests/mkdocs_plugin/test_slim.py reads the installed Material's stylesheets (and
  ours) and fails when an upgrade gives names a colour of their own.
- ``minify``: CSS through rcssmin (a kept, tested minifier; comments and
  whitespace go, rules stay). The toolkit's own stylesheets are minified as
  they are added to the site (``site_assets.add_files``); ``minify_css`` does
  the site's own (extra_css from docs/) in the built site. The sources keep
  their comments; ``make serve`` serves what ``make build`` publishes.

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
