"""The toolkit's stylesheets and script, shipped in ``assets/`` and added to every site as generated files at
``assets/journal/<name>`` (stylesheets minified), linked before the site's own, so a journal needs none; a
docs/ file at the same path replaces ours.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from mkdocs.structure.files import File, Files

from journal_tools.mkdocs_plugin import slim

__all__ = ["ASSET_DIR", "SCRIPTS", "SITE_DIR", "STYLESHEETS", "add_files", "link", "site_uri"]

ASSET_DIR = Path(__file__).with_name("assets")
SITE_DIR = PurePosixPath("assets") / "journal"
STYLESHEETS = ("journal.css", "notebook.css")  # in this order: notebook.css uses journal.css's scroll shadows
SCRIPTS = ("a11y.js",)


def site_uri(name: str) -> str:
    """Where the asset ``name`` lives in the built site (and in extra_css / extra_javascript)."""
    return str(SITE_DIR / name)


def link(config) -> None:
    """Put the toolkit's CSS and script before the site's own; idempotent (a rebuild reusing its config keeps one entry)."""
    for names, listed in ((STYLESHEETS, config.extra_css), (SCRIPTS, config.extra_javascript)):
        present = {str(entry) for entry in listed}  # extra_javascript holds ExtraScriptValue objects too
        listed[0:0] = [site_uri(n) for n in names if site_uri(n) not in present]


def add_files(files: Files, config) -> None:
    """Add each packaged asset to ``files`` as a generated file (stylesheets minified)."""
    for name in STYLESHEETS + SCRIPTS:
        uri = site_uri(name)
        if uri in files.src_uris:
            continue  # the site's own copy in docs/ replaces ours
        text = (ASSET_DIR / name).read_text(encoding="utf-8")
        if name.endswith(".css"):
            text = slim.minify(text)
        files.append(File.generated(config, uri, content=text))
