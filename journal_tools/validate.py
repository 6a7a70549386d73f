"""Checks run before the blog plugin reads anything (hooks.py: on_files).

mkdocs-material's blog plugin rejects a bad post with the file but no line
("Error reading metadata of post 'blog/posts/x.md' in 'docs': month must be in
1..12"), and pymdownx.snippets fails a missing or escaping include with a
traceback that names the snippet but not the page. These checks stop the build
first, with ``docs/blog/posts/x.md:2: ...``: the file and the line to edit.

- every post has ``date:`` (a date, or ``{created, updated}``), each a real
  ``YYYY-MM-DD`` date;
- every category of a post is in the blog's ``categories_allowed``;
- every snippet include of every Markdown page resolves under ``snippets/``
  (expanded with the site's own preprocessor, as the page doc-tests do);
- a notebook cell that raises (mkdocs-jupyter, ``allow_errors: false``) names
  the notebook and line instead of nbclient's bare traceback.

hooks.py exposes ``on_files`` and ``on_pre_page`` from here unchanged, so the
priorities set below apply (mkdocs reads them off the hook functions).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

import markdown
import yaml
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from pymdownx.snippets import SnippetMissingError

from journal_tools.snippet_map import _BLOCK_MARKER

_FRONT_MATTER = re.compile(r"\A(---[ \t]*\n)(?P<body>.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


class InputError(PluginError):
    """A source file the build cannot use; the message starts with ``path:line:``."""


def _line_of(body_lines: list[str], pattern: str, start: int = 0) -> int | None:
    """1-based index into the front matter body of the first line matching pattern."""
    rx = re.compile(pattern)
    for i in range(start, len(body_lines)):
        if rx.search(body_lines[i]):
            return i + 1
    return None


def _check_date(value, where: str) -> None:
    if isinstance(value, dt.date):  # datetime is a date too
        return
    text = str(value).strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise InputError(f"{where}: date {text!r} is not a YYYY-MM-DD date")
    try:
        dt.date.fromisoformat(text)
    except ValueError as exc:
        raise InputError(f"{where}: date {text!r} is not a real date ({exc})") from None


def check_post(path: Path, rel: str, allowed: list[str] | None) -> None:
    """Raise InputError naming ``rel`` and the line for a post the blog would reject."""
    text = path.read_text(encoding="utf-8-sig")
    m = _FRONT_MATTER.match(text)
    if m is None:
        raise InputError(f"{rel}:1: post has no front matter (--- date: YYYY-MM-DD --- at the top)")
    offset = 1  # the opening --- is line 1, the body starts on line 2
    body = m["body"]
    lines = body.split("\n")
    try:
        meta = yaml.safe_load(body) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 + offset if mark is not None else 1
        raise InputError(f"{rel}:{line}: front matter is not valid YAML ({exc})") from None
    except ValueError as exc:  # a date-shaped value that is no date, e.g. 2026-13-45
        line = _line_of(lines, r"^\s*(date|created|updated)\s*:\s*\d") or 0
        value = lines[line - 1].split(":", 1)[1].strip() if line else "?"
        raise InputError(f"{rel}:{line + offset}: date {value!r} is not a real date ({exc})") from None
    if not isinstance(meta, dict):
        raise InputError(f"{rel}:2: front matter is not a mapping of keys")

    date_line = _line_of(lines, r"^date\s*:")
    if "date" not in meta or meta["date"] is None:
        line = (date_line or 0) + offset if date_line else 1
        raise InputError(f"{rel}:{line}: post has no date (add `date: YYYY-MM-DD` to its front matter)")
    date = meta["date"]
    if isinstance(date, dict):
        for key, value in date.items():
            key_line = _line_of(lines, rf"^\s+{re.escape(str(key))}\s*:", date_line or 0)
            _check_date(value, f"{rel}:{(key_line or date_line) + offset}")
    else:
        _check_date(date, f"{rel}:{date_line + offset}")

    if allowed:
        categories = meta.get("categories") or []
        if isinstance(categories, str):
            categories = [categories]
        cat_line = _line_of(lines, r"^categories\s*:") or 0
        for category in categories:
            if category not in allowed:
                line = _line_of(lines, rf"(^|[\s\[,-]){re.escape(str(category))}\s*(,|\]|$)", cat_line)
                raise InputError(
                    f"{rel}:{(line or cat_line) + offset}: category {category!r} is not in "
                    f"categories_allowed of mkdocs.yml ({', '.join(allowed)})"
                )


def _snippet_preprocessor(config, root: Path):
    """The site's snippets preprocessor, made from the running build's config.

    Not via mkdocs' load_config (as snippet_map does for the tests): loading
    the config again inside a build re-validates the cached plugin instances
    and resets the options they converted in on_config (mkdocs-rss-plugin's
    default_time goes back to a string and every feed date fails).
    """
    options = dict(config["mdx_configs"].get("pymdownx.snippets", {}))
    base = options.get("base_path", ["."])
    if isinstance(base, (str, os.PathLike)):
        base = [base]
    options["base_path"] = [str((root / b).resolve()) for b in base]
    md = markdown.Markdown(extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": options})
    return md.preprocessors["snippet"]


def _check_includes(path: Path, rel: str, config, root: Path) -> None:
    """Expand each include line of a page on its own, naming page and line on failure.

    Chunks as snippet_map.expand_page does: a line, or a block-form group.
    """
    source = path.read_text(encoding="utf-8")
    if "8<-" not in source:
        return
    pre = _snippet_preprocessor(config, root)
    lines = source.split("\n")
    i = 0
    while i < len(lines):
        start = i
        if _BLOCK_MARKER.match(lines[i]):
            j = i + 1
            while j < len(lines) and not _BLOCK_MARKER.match(lines[j]):
                j += 1
            chunk, i = lines[i : j + 1], j + 1
        else:
            chunk, i = [lines[i]], i + 1
        if "8<-" not in "".join(chunk):
            continue
        try:
            pre.run(list(chunk))
        except (SnippetMissingError, OSError, ValueError) as exc:
            raise InputError(f"{rel}:{start + 1}: snippet include failed: {exc}") from None


@event_priority(100)  # before the blog plugin (-50) reads the posts
def on_files(files, *, config):
    root = Path(os.path.dirname(os.path.abspath(config.config_file_path)))

    def rel(abs_path: str) -> str:
        return os.path.relpath(abs_path, root)

    blog = config.plugins.get("material/blog")
    posts_dir = None
    allowed = None
    if blog is not None and blog.config.enabled:
        blog_dir = os.path.normpath(blog.config.blog_dir)
        posts_dir = os.path.normpath(blog.config.post_dir.format(blog=blog_dir))
        allowed = list(blog.config.categories_allowed or []) if blog.config.categories else None

    for file in files.documentation_pages():
        if not file.abs_src_path or not file.src_uri.endswith(".md"):
            continue
        path = Path(file.abs_src_path)
        if posts_dir and file.src_uri.startswith(posts_dir.replace(os.sep, "/") + "/"):
            check_post(path, rel(file.abs_src_path), allowed)
        _check_includes(path, rel(file.abs_src_path), config, root)
    return files


# -- notebook pages (mkdocs-jupyter) ------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELL_FRAME = re.compile(r"Cell In\[\d+\], line (\d+)")


def _cell_error_line(script: str, message: str) -> int | None:
    """Line in the script of the statement that raised, from nbclient's message.

    The message holds the cell's source between two dashed lines, then
    IPython's traceback ("Cell In[2], line 3"). A percent script keeps code
    cells verbatim, so the cell is found by its text.
    """
    parts = _ANSI.sub("", message).split("\n------------------\n")
    if len(parts) < 2:
        return None
    cell = parts[1].strip("\n")
    pos = script.find(cell) if cell else -1
    if pos < 0:
        first = cell.split("\n", 1)[0].strip()
        pos = script.find(first) if first else -1
        if pos < 0:
            return None
    start = script.count("\n", 0, pos) + 1
    frame = _CELL_FRAME.search(_ANSI.sub("", message))
    return start + int(frame.group(1)) - 1 if frame else start


@event_priority(-100)  # after mkdocs-jupyter's own on_pre_page
def on_pre_page(page, *, config, files):
    """Make a notebook cell that raises fail the build naming the notebook and line.

    With ``allow_errors: false`` mkdocs-jupyter stops the build with nbclient's
    traceback alone, which never names the file. Runs after mkdocs-jupyter's
    own on_pre_page (lower priority), which gives the page its own ``render``.
    """
    if "render" not in vars(page) or not (page.file.abs_src_path or "").endswith((".py", ".ipynb")):
        return page
    render = page.render
    root = os.path.dirname(os.path.abspath(config.config_file_path))
    rel = os.path.relpath(page.file.abs_src_path, root)

    def checked_render(config, files):
        try:
            return render(config, files)
        except Exception as exc:
            if type(exc).__name__ != "CellExecutionError":
                raise
            script = Path(page.file.abs_src_path).read_text(encoding="utf-8")
            line = _cell_error_line(script, str(exc)) if rel.endswith(".py") else None
            where = f"{rel}:{line}" if line else rel
            reason = f"{getattr(exc, 'ename', 'error')}: {getattr(exc, 'evalue', '')}".rstrip(": ")
            raise InputError(f"{where}: notebook cell raised {reason}") from None

    page.render = checked_render
    return page

