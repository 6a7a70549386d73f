"""MkDocs hooks (listed under `hooks:` in mkdocs.yml). Thin: each event
dispatches to a module of journal_tools."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

# MkDocs loads this file by path. Make its own project importable even when
# the package is not installed (e.g. a fresh clone before `make setup`).
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from journal_tools import a11y, feeds, fonts, nbids, nbtoc  # noqa: E402
from journal_tools.mathml import MathError, render_math  # noqa: E402
from journal_tools.validate import on_files, on_pre_page  # noqa: E402,F401  (file:line for bad posts, includes, notebook cells)
from journal_tools.reproducible import on_startup  # noqa: E402,F401  (SOURCE_DATE_EPOCH = last commit: same tree, same bytes)

log = logging.getLogger("mkdocs.hooks.journal")


def _src_path(page, config) -> str:
    """The page's source path relative to the project (e.g. docs/blog/posts/x.md)."""
    abs_src = getattr(page.file, "abs_src_path", None)
    if abs_src:
        root = os.path.dirname(os.path.abspath(config.config_file_path))
        return os.path.relpath(abs_src, root)
    return page.file.src_uri


def _source(page) -> str | None:
    """The raw file (front matter included), so line numbers match the editor."""
    try:
        return page.file.content_string
    except (OSError, TypeError, ValueError):
        return page.markdown


def on_config(config):
    # mkdocs-jupyter's cache key learns the snippets each notebook imports.
    from journal_tools import notebook_cache
    notebook_cache.install(Path(config.config_file_path).resolve().parent / "snippets")
    nbids.install()  # notebook pages: cell ids from the cells, stdout merged after execution
    return config


def on_page_markdown(markdown, *, page, config, files):
    # Build-time SVG figures (`<!-- journal:figure module.function | caption -->`).
    from journal_tools import figures
    return figures.on_page_markdown(markdown, config=config, src_path=_src_path(page, config), source=_source(page))


def on_page_content(html, *, page, config, files):
    try:
        html = render_math(html, src_path=_src_path(page, config), markdown_source=_source(page))
    except MathError as exc:
        raise PluginError(str(exc)) from None
    # Notebook pages: strip Jupyter's inline CSS, MathML for their $...$, .ipynb download.
    from journal_tools import notebooks
    html = notebooks.on_page_content(html, page=page, config=config, files=files, src_path=_src_path(page, config))
    html = a11y.label_notebook_outputs(html)  # printed outputs: named keyboard-reachable scroll regions
    nbtoc.align_toc(html, page.toc)  # notebook TOC links to the headings' real ids (inline code in headings)
    if notebooks.is_notebook_page(page):
        nbids.stabilise_download(page, config)  # the .ipynb download: the page's cell ids
    feeds.set_feed_description(html, page)  # RSS/JSON feed item: the rendered excerpt, absolute links, no <h1>
    return html


def on_post_page(output, *, page, config):
    # Blog views (index, archive, categories) render post excerpts on their
    # own, after on_page_content: convert whatever math they carry.
    try:
        return render_math(output, src_path=_src_path(page, config), markdown_source=None)
    except MathError as exc:
        raise PluginError(str(exc)) from None


def on_post_build(*, config):
    root = os.path.dirname(os.path.abspath(config.config_file_path))
    copied = fonts.copy_to_site(config.site_dir, root=Path(root))
    if not copied:
        log.info("math font not installed (python -m journal_tools.fonts install): "
                 "pages fall back to the reader's math font")
