"""MkDocs' pages (``mkdocs.structure.pages.Page``, MkDocs 1.6).

MkDocs has no event between a page's Markdown and its HTML that sees the
conversion fail, and mkdocs-jupyter gives notebook pages their HTML by
replacing ``render`` on the page instance. So the plugin wraps that method,
on the instance, as mkdocs-jupyter does: the build calls
``page.render(config, files)`` through the instance.
"""

from __future__ import annotations

from journal_tools.compat import require

__all__ = ["page_render_result", "replace_render", "restore_page_render"]


def replace_render(page, render) -> None:
    """Make the build call ``render(config, files)`` for ``page`` instead of its own render."""
    page.render = render


# Page.render (MkDocs 1.6) sets content, toc, present_anchor_ids, links_to_anchors
# and the private _title_from_render (the first <h1> of the HTML, which `title`
# prefers). A cached render (journal_tools.build.incremental) must set all five, or
# titles would fall back to the Markdown's first heading; MkDocs has no public
# setter for the rendered title.

def page_render_result(page) -> dict:
    """What ``Page.render`` left on ``page``, to keep (links to anchors by target path)."""
    links = page.links_to_anchors
    return {
        "content": page.content,
        "toc": page.toc,
        "title": require(page, "_title_from_render", "mkdocs", "keep the title a cached render found"),
        "anchors": set(page.present_anchor_ids or ()),
        "links": None if links is None else {f.src_uri: dict(v) for f, v in links.items()},
    }


def restore_page_render(page, result: dict, files) -> None:
    """Set what ``Page.render`` would have set, from ``page_render_result``'s dict."""
    require(page, "_title_from_render", "mkdocs", "give a cached render its title")
    page.content = result["content"]
    page.toc = result["toc"]
    page._title_from_render = result["title"]
    page.present_anchor_ids = set(result["anchors"])
    if result["links"] is not None:
        page.links_to_anchors = {files.get_file_from_path(uri): dict(v) for uri, v in result["links"].items()}
