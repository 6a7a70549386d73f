"""Notebook pages (mkdocs-jupyter) fitted to the site: nbconvert's inline JupyterLab CSS and loaders dropped
(``assets/notebook.css`` instead), Markdown cells rendered with the site's Markdown (math, heading ids,
citations), ``.md`` links resolved to URLs, and an ``.ipynb`` download beside the page.
"""

from __future__ import annotations

import html as html_lib
import math
import posixpath
import re
from pathlib import Path
from urllib.parse import urlsplit

from journal_tools.compat import jupyter
from journal_tools.core.code import prose_numbers
from journal_tools.core.markup import citations
from journal_tools.core.page import limits
from journal_tools.core.settings import Settings
from journal_tools.mkdocs_plugin import downloads, nbids

__all__ = ["NotebookError", "install_markdown", "is_notebook_page", "on_page_content",
           "resolve_md_links", "strip_jupyter_assets"]


class NotebookError(Exception):
    """A notebook page that cannot be made to fit (bad link, and so on)."""


def is_notebook_page(page) -> bool:
    """Is ``page`` one of mkdocs-jupyter's (a notebook under notebooks/)?"""
    src = page.file.src_uri
    return src.startswith("notebooks/") and src.endswith((".py", ".ipynb"))


# The regexes below read nbconvert's own template output (exact strings, fixed by the pinned versions), not arbitrary HTML: re-serialising
# the whole page would rewrite every other byte of it (attribute quoting, entities, MathML) to change these few.

# -- 1. weight ---------------------------------------------------------------

_STYLE = re.compile(r"<style\b[^>]*>.*?</style>\s*", re.DOTALL | re.IGNORECASE)
_SCRIPT = re.compile(r"<script\b(?P<attrs>[^>]*)>(?P<body>.*?)</script>\s*", re.DOTALL | re.IGNORECASE)


_CLIPBOARD = re.compile(
    r'<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>\s*'
    r"|<script>\s*\(function \(global, factory\).*?</script>\s*"
    r"|<script>\s*document\.addEventListener\('clipboard-copy'.*?</script>\s*"
    # The hidden plain-text copy of each cell the buttons copied from.
    r'|<div class="clipboard-copy-txt"[^>]*>.*?</div>\s*',
    re.DOTALL,
)
_CODE_CELL = re.compile(r'<div class="highlight-ipynb hl-python"><pre>(?:<span></span>)?(?P<code>.*?)</pre>', re.DOTALL)
_WHITESPACE_SPAN = re.compile(r'<span class="w">(\s*)</span>')


def strip_jupyter_assets(html: str) -> str:
    """Drop inlined CSS, the MathJax config and empty loader, the Mermaid loader."""
    html = _STYLE.sub("", html)

    def script(m: re.Match[str]) -> str:
        attrs, body = m["attrs"], m["body"]
        if 'src=""' in attrs or "text/x-mathjax-config" in attrs:
            return ""
        if "mermaid" in body:
            return ""
        return m.group(0)

    html = _SCRIPT.sub(script, html)
    # Jupyter's own copy buttons (and their script): Material adds its own to every <pre><code>, which the code cells become below.
    html = _CLIPBOARD.sub("", html)
    # Code cells as Material's code blocks: its syntax colours (light and
    # dark), its copy button, no extra CSS. Whitespace tokens need no <span>.
    html = _CODE_CELL.sub(lambda m: f'<div class="highlight"><pre><code>{m["code"]}</code></pre>', html)
    return _WHITESPACE_SPAN.sub(r"\1", html)


# -- 2. Markdown cells -------------------------------------------------------

def install_markdown(settings: Settings) -> None:
    """Render notebook Markdown cells with the site's Markdown, and run code cells as the page tests do, through an exporter subclass
    (idempotent per settings)."""
    from jinja2 import pass_context

    # The kernel starts as the page tests' worker runs a notebook: snippet folders first on the import path, every
    # generator seeded (core/code/run.py's reset_global_state), in a fresh empty folder (from_notebook_node).
    start = [f"import sys; sys.path[:0] = {[str(d) for d in settings.snippet_dirs]!r}",
             "from journal_tools.core.code.run import reset_global_state; reset_global_state()"]

    def site_markdown_exporter(original):
        class SiteMarkdownExporter(original):
            _md = None

            def __init__(self, *args, config=None, **kwargs):
                from traitlets.config import Config

                config = Config(config or {})
                config.ExecutePreprocessor.extra_arguments = [f"--IPKernelApp.exec_lines={start!r}"]
                super().__init__(*args, config=config, **kwargs)

            @pass_context  # as nbconvert's own filter: Jinja passes the cell's context
            def markdown2html(self, context, source):
                """A Markdown cell through the site's Python-Markdown (one converter per notebook)."""
                if self._md is None:  # each cell is a document: the page gets one reference list instead
                    self._md = settings.markdown(options={citations.listed_name(settings.mdx_configs): {"reference_list": False}})
                return self._md.reset().convert(prose_numbers.shown(source))  # a number in the text as written, checked by the tests

            def from_notebook_node(self, nb, resources=None, **kwargs):
                """Each cell executed under the notebook's limit (nbclient has none: a looping cell hung the build for ever), in a fresh
                empty folder (nbclient starts the kernel in ``resources["metadata"]["path"]``). This process stays where it is: make
                serve executes a notebook in a thread while MkDocs rebuilds, reading mkdocs.yml from the working folder."""
                import tempfile

                for preprocessor in self._preprocessors:
                    if type(preprocessor).__name__ == "ExecutePreprocessor":
                        preprocessor.timeout = math.ceil(_cell_limit(nb.metadata, settings))
                resources = dict(resources or {})
                with tempfile.TemporaryDirectory(prefix="pagetest-") as folder:  # as core/code/run.py's fresh_folder, no chdir
                    resources["metadata"] = {**resources.get("metadata", {}), "path": folder}
                    return super().from_notebook_node(nb, resources, **kwargs)

        return SiteMarkdownExporter

    jupyter.replace_exporter(site_markdown_exporter)


def _cell_limit(metadata: dict, settings: Settings) -> float:
    """The notebook's ``execution: timeout:``, else the journal's block limit (a bad value is the notebook's page test's to report)."""
    execution = metadata.get("execution")
    if isinstance(execution, dict) and "timeout" in execution:
        try:
            return limits.seconds(execution["timeout"])
        except ValueError:
            pass
    return settings.block_timeout.seconds


# -- 3. links ----------------------------------------------------------------

_HREF = re.compile(r'href="(?P<url>[^"#?]+\.md)(?P<frag>#[^"]*)?"')


def resolve_md_links(html: str, *, page, files) -> str:
    """``href="../x/y.md"`` (relative to the notebook's source) to the page URL."""
    base = posixpath.dirname(page.file.src_uri)

    def link(m: re.Match[str]) -> str:
        url = html_lib.unescape(m["url"])
        if urlsplit(url).scheme or url.startswith("/"):
            return m.group(0)
        target_path = posixpath.normpath(posixpath.join(base, url))
        target = files.get_file_from_path(target_path)
        if target is None:
            raise NotebookError(f"link to {url!r}: no such page ({target_path})")
        return f'href="{target.url_relative_to(page.file)}{m["frag"] or ""}"'

    return _HREF.sub(link, html)


# -- 4. download ---------------------------------------------------------------

def write_ipynb(page, config) -> str:
    """Write the notebook as .ipynb next to the page, with the page's cell ids; return its file name."""
    import jupytext

    src = Path(page.file.abs_src_path)
    nb = jupytext.read(src)
    meta = nb.metadata.get("jupytext", {})
    meta.pop("text_representation", None)  # of the .py only, as jupytext's own .ipynb writer drops it
    if not meta:
        nb.metadata.pop("jupytext", None)
    nbids.stable_ids(nb)
    for cell in nb.cells:  # its reader sees a number in the text as written, as on the page
        if cell.cell_type == "markdown":
            cell.source = prose_numbers.shown(cell.source)
    path = Path(config.site_dir) / Path(page.file.dest_path).parent / src.with_suffix(".ipynb").name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(downloads.ipynb_text(nb), encoding="utf-8")
    return path.name


def _add_download_link(html: str, name: str) -> str:
    link = (f'<p class="notebook-download"><a href="{name}" download>'
            f"Download this notebook (.ipynb)</a>: it imports the repository's "
            f"<code>snippets/</code> modules, so open it from a clone's <code>snippets/</code> folder.</p>")
    end_h1 = html.find("</h1>")
    if end_h1 < 0:
        return link + html
    # After the heading's enclosing cell block, inside the same Markdown cell.
    return html[: end_h1 + 5] + "\n" + link + html[end_h1 + 5:]


# -- the event -------------------------------------------------------------------

def on_page_content(html: str, *, page, config, files, rel: str) -> str:
    """Fit a notebook page's HTML to the site (called from the plugin for notebook pages)."""
    from mkdocs.exceptions import PluginError

    html = strip_jupyter_assets(html)
    try:
        html = resolve_md_links(html, page=page, files=files)
    except NotebookError as exc:
        raise PluginError(f"{rel}: {exc}") from None
    bib = config.mdx_configs.get(citations.listed_name(config.mdx_configs), {}).get("bibliography")
    if bib and "data-cite=" in html:
        try:
            html, _ = citations.append_reference_list(html, citations.load(bib))
        except citations.CitationError as exc:  # the page's mistake (the plugin's render mistakes), located
            raise exc.located(rel, Path(page.file.abs_src_path).read_text(encoding="utf-8")) from None
    return _add_download_link(html, write_ipynb(page, config))
