"""Math in a built site against math in its sources (tests/test_site_build.py on the
author's site, toolkit/tests/sites/test_wheel.py on the fixture journal).

- :func:`missing_mathml`: every formula of a page's source is a ``<math>``
  element of its built page. Formulas are counted in the sources with the
  toolkit's own readers: the site's Markdown (so fences, includes and inline code
  are read as the build reads them, and code is never counted), with the math
  syntax of ``journal_tools.core.markup.markdown_math`` even if mkdocs.yml dropped it; a
  notebook's Markdown cells one by one, as ``journal_tools.core.code.notebook``
  reads them. A build path that loses math (a notebook's cells rendered without
  the extension, say) leaves fewer ``<math>`` in its page than its source holds.
- :func:`raw_tex`: no text a reader sees (outside code, ``<pre>`` and MathML)
  still holds a formula in that syntax, left unconverted.
"""

from __future__ import annotations

import contextlib
import os
import re
from html.parser import HTMLParser
from pathlib import Path

MATH_EXTENSION = "journal_tools.core.markup.markdown_math"
# Names of the same syntax a mkdocs.yml may list instead (counted once, as ours).
MATH_NAMES = (MATH_EXTENSION, "journal_math", "pymdownx.arithmatex")
MATH_ELEMENT = re.compile(r"<math\b")


def counting_markdown(settings):
    """The site's Markdown converter, with the toolkit's math syntax in place of any listed."""
    extensions = [e for e in settings.markdown_extensions if e not in MATH_NAMES]
    return settings.markdown([*extensions, MATH_EXTENSION])


def source_formulas(path: Path, settings, md) -> int:
    """How many formulas the page ``path`` (a Markdown page or a notebook) holds."""
    from mkdocs.utils.meta import get_data

    from journal_tools.core.code.notebook import read_notebook

    if settings.is_notebook(path):
        cells = [c.source for c in read_notebook(path, settings).cells if c.kind == "markdown"]
    else:
        cells = [get_data(path.read_text(encoding="utf-8"))[0]]
    return sum(len(MATH_ELEMENT.findall(md.reset().convert(cell))) for cell in cells)


@contextlib.contextmanager
def _site_files(root: Path):
    """The site's files as a build places them: MkDocs' collection and the plugins'
    ``on_files`` (the blog moves posts to blog/YYYY/MM/DD/slug/, mkdocs-jupyter takes the notebooks)."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    cwd = os.getcwd()
    os.chdir(root)  # the blog plugin resolves docs_dir against the cwd
    cfg = load_config(str(root / "mkdocs.yml"))
    try:
        cfg.plugins.on_startup(command="build", dirty=False)
        cfg = cfg.plugins.on_config(cfg)
        yield cfg.plugins.on_files(get_files(cfg), config=cfg)
    finally:
        cfg.plugins.on_shutdown()
        os.chdir(cwd)


def pages_with_math(root: Path) -> dict[str, tuple[int, Path | None]]:
    """{src_uri: (formulas in the source, built page relative to the site or None)} for
    every page of ``root``'s docs/ whose source holds math (a page the build leaves out, a draft
    in ``make build``, left out)."""

    from journal_tools.compat import mkdocs_config

    settings = mkdocs_config.load(root / "mkdocs.yml")
    md = counting_markdown(settings)
    found = {}
    with _site_files(root) as files:
        for path in sorted(settings.docs_dir.rglob("*")):
            if path.suffix != ".md" and not settings.is_notebook(path):
                continue
            src_uri = path.relative_to(settings.docs_dir).as_posix()
            file = files.get_file_from_path(src_uri)
            if file is not None and file.inclusion.is_excluded():
                continue  # a draft, where the build leaves drafts out
            count = source_formulas(path, settings, md)
            if count:
                found[src_uri] = (count, None if file is None else Path(file.dest_uri))
    return found


def missing_mathml(site: Path, root: Path) -> tuple[int, list[str]]:
    """(formulas in all sources, a line for each page whose built page has fewer ``<math>``)."""
    pages = pages_with_math(root)
    missing = []
    for src, (count, dest) in pages.items():
        if dest is None or not (site / dest).is_file():
            missing.append(f"{src}: {count} formulas in source, no built page ({dest})")
            continue
        built = len(MATH_ELEMENT.findall((site / dest).read_text(encoding="utf-8")))
        if built < count:
            missing.append(f"{src} -> {dest}: {count} formulas in source, {built} <math> built")
    return sum(count for count, _ in pages.values()), missing


# --------------------------------------------------------------------------
# Raw TeX left in the text a reader sees

# Text inside these is code or already math.
_NOT_PROSE = {"code", "pre", "kbd", "samp", "math", "script", "style", "textarea", "svg"}
# Text is cut at these, so a formula is looked for within one paragraph, item or cell.
_BLOCKS = {"p", "div", "li", "td", "th", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
           "section", "article", "nav", "header", "footer", "details", "summary", "figcaption", "br", "label", "a"}


class _Prose(HTMLParser):
    """The visible text of a page outside code and math, one string per block."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = [""]
        self._hidden: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in _NOT_PROSE:
            self._hidden.append(tag)
        elif tag in _BLOCKS:
            self.blocks.append("")

    def handle_endtag(self, tag):
        if self._hidden and self._hidden[-1] == tag:
            self._hidden.pop()
        elif tag in _BLOCKS:
            self.blocks.append("")

    def handle_data(self, data):
        if not self._hidden:
            self.blocks[-1] += data


def _math_patterns():
    """The inline and block patterns of the toolkit's math syntax (arithmatex's, in our extension)."""
    import markdown

    md = markdown.Markdown(extensions=[MATH_EXTENSION])
    return md.inlinePatterns["arithmatex-inline"].compiled_re, md.parser.blockprocessors["arithmatex-block"].pattern


def raw_tex(page_html: str) -> list[str]:
    """The formulas (in the toolkit's syntax) left as text in ``page_html``."""
    inline, block = _math_patterns()
    parser = _Prose()
    parser.feed(page_html)
    parser.close()
    found = []
    for text in (b.strip() for b in parser.blocks if b.strip()):
        # groups 2 and 5 are an opening $ and \( (group 1 and 4: escaped backslashes, not math)
        found += [m.group(0) for m in inline.finditer(text) if m.group(2) or m.group(5)]
        found += [m.group(0) for m in [block.search(text)] if m]
    return found
