"""One value for a journal's paths and Markdown options; the core never reads mkdocs.yml
(``compat.mkdocs_config`` makes it). The root and the snippet base paths are made absolute once, since
pymdownx.snippets resolves them against the working folder.
"""

from __future__ import annotations

import functools
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Callable

import markdown
import yaml

from journal_tools.core.markup import citations, formula_glyphs, markdown_math
from journal_tools.core.page import limits

__all__ = ["BlogSettings", "ConfigError", "Settings", "blog_settings", "env_flag", "find_root"]

CONFIG_NAME = "mkdocs.yml"
SNIPPETS = "pymdownx.snippets"
BLOG_NAMES = ("material/blog", "blog")
JUPYTER = "mkdocs-jupyter"
JUPYTER_INCLUDE = ("*.py", "*.ipynb", "*.md")  # mkdocs-jupyter's default
JOURNAL = "journal"
TIMEOUT_OPTION = "block_timeout"


def env_flag(name: str) -> bool:
    """Is ``name`` (FRESH, CI) set and not empty, 0, false or no? One reading, so every place agrees on what ``CI=false`` means."""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


class ConfigError(Exception):
    """mkdocs.yml cannot be used; the message names the file."""


@dataclass(frozen=True)
class BlogSettings:
    """What the journal needs of the Material blog plugin's options."""

    posts_dir: Path  # absolute
    categories_allowed: tuple[str, ...]
    categories: bool
    excerpt_required: bool
    excerpt_separator: str
    authors_file: Path | None  # absolute
    post_dir: str = "blog/posts"  # posts_dir relative to docs/, as the blog plugin matches its posts' src_uri
    authors: bool = True  # the blog's authors option: a post's authors: must be in the authors file
    post_url_format: str = "blog/{date}/{slug}"  # a post's address under the site (blog_dir joined; core/page/address.py)
    post_slugify: Callable[[str, str], str] | None = None  # the blog's slugify of a title (None: its default)
    post_slugify_separator: str = "-"

    def author_names(self) -> list[str] | None:
        """Ids the authors file names (its ``authors:`` mapping); [] for no file, None for a file that is not YAML (the blog stops)."""
        path = self.authors_file
        if path is None or not path.is_file():
            return []
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8-sig")) or {}
        except (OSError, UnicodeError, yaml.YAMLError):
            return None
        authors = data.get("authors") if isinstance(data, dict) else None
        return [str(name) for name in authors] if isinstance(authors, dict) else []


@dataclass(frozen=True)
class Settings:
    """Paths and Markdown options of one journal, all absolute."""

    config_file: Path
    root: Path
    docs_dir: Path
    site_url: str
    markdown_extensions: tuple
    mdx_configs: dict = field(hash=False)
    snippet_dirs: tuple[Path, ...]
    blog: BlogSettings | None
    cache_dir: Path
    # mkdocs-jupyter's include and ignore patterns (matched as pathlib's PurePath.match does); no include patterns without the plugin.
    notebook_include: tuple[str, ...] = ()
    notebook_ignore: tuple[str, ...] = ()
    # The BibTeX file of journal_citations, or None when no page can cite.
    bibliography: Path | None = None
    # The journal plugin's block_timeout: each block's time limit, unless its page sets one.
    block_timeout: limits.Limit = limits.Limit(limits.DEFAULT_TIMEOUT, f"{TIMEOUT_OPTION}, the journal plugin's default")
    # mkdocs.yml's repo_url ("" when unset): where a download sends a reader for a file too big to carry.
    repo_url: str = ""

    # -- construction -------------------------------------------------------

    @classmethod
    def make(cls, config, config_file: Path, root: Path, blog: BlogSettings | None,
             notebooks: dict | None = None, timeout: float | None = None) -> Settings:
        """From MkDocs' config keys (``mdx_configs``, ``docs_dir``, ``site_url``, ``markdown_extensions``), the blog's and mkdocs-jupyter's
        options and the block limit."""
        configs = {name: dict(options) for name, options in dict(config["mdx_configs"]).items()}
        snippets = configs.get(SNIPPETS, {})
        bases = snippets.get("base_path", ["."])
        if isinstance(bases, (str, os.PathLike)):
            bases = [bases]
        dirs = tuple((root / b).resolve() for b in bases)
        if SNIPPETS in configs:
            snippets["base_path"] = [str(d) for d in dirs]
        # The citations' bibliography option: a path, made absolute here like the snippets'.
        cite_name = citations.listed_name(configs)
        bib = configs.get(cite_name, {}).get("bibliography")
        bibliography = (root / os.fspath(bib)).resolve() if bib else None
        if bibliography is not None:
            configs[cite_name]["bibliography"] = str(bibliography)
        # The math font installed at set-up: every renderer's formulas are checked against it (formula_glyphs.undrawable).
        math_name = next((n for n in config["markdown_extensions"] if n in markdown_math.NAMES), None)
        font = formula_glyphs.whole_font(root)
        if math_name is not None and font is not None:
            configs.setdefault(math_name, {})["font"] = str(font)
        return cls(
            config_file=config_file,
            root=root,
            docs_dir=Path(config["docs_dir"]).resolve(),
            site_url=config.get("site_url") or "",
            markdown_extensions=tuple(config["markdown_extensions"]),
            mdx_configs=configs,
            snippet_dirs=dirs,
            blog=blog,
            cache_dir=root / ".cache",
            notebook_include=() if notebooks is None else tuple(notebooks.get("include", JUPYTER_INCLUDE)),
            notebook_ignore=() if notebooks is None else tuple(notebooks.get("ignore", ())),
            bibliography=bibliography,
            repo_url=config.get("repo_url") or "",
            **({} if timeout is None else {"block_timeout": limits.Limit(timeout, f"{TIMEOUT_OPTION} in {config_file.name}")}),
        )

    # -- derived ------------------------------------------------------------

    def rel(self, path: str | os.PathLike) -> str:
        """``path`` relative to the project root (as error messages name files)."""
        return _relative(str(self.root), os.fspath(path))

    def markdown_key(self) -> str:
        """The Markdown settings as text for cache keys, project paths relative: a cache survives moving the checkout, misses on a change"""
        text = repr((self.markdown_extensions, sorted(map(str, self.mdx_configs.items()))))
        return text.replace(str(self.root), "<project>")

    def markdown(self, extensions: list | None = None, options: dict | None = None) -> markdown.Markdown:
        """A Markdown converter with the site's extensions and options (``options``: per extension, over the site's)."""
        configs = {name: {**self.mdx_configs.get(name, {}), **extra} for name, extra in (options or {}).items()}
        return markdown.Markdown(
            extensions=list(self.markdown_extensions if extensions is None else extensions),
            extension_configs={**self.mdx_configs, **configs},
        )

    def snippet_preprocessor(self):
        """pymdownx.snippets' preprocessor with the site's options (absolute base paths)."""
        md = markdown.Markdown(extensions=[SNIPPETS], extension_configs={SNIPPETS: self.mdx_configs.get(SNIPPETS, {})})
        return md.preprocessors["snippet"]

    def is_notebook(self, path: Path) -> bool:
        """Is ``path`` (absolute) a notebook page mkdocs-jupyter renders (a ``.py`` or ``.ipynb``)?"""
        pure = PurePath(path)
        if pure.suffix not in (".py", ".ipynb") or self.docs_dir not in Path(path).resolve().parents:
            return False
        if any(pure.match(p) for p in self.notebook_ignore):
            return False
        return any(pure.match(p) for p in self.notebook_include)

    def is_post(self, path: Path) -> bool:
        """Is ``path`` (absolute) a blog post?"""
        return self.blog is not None and self.blog.posts_dir in path.resolve().parents


@functools.lru_cache(maxsize=16384)  # a build asks for every page several times; resolve() is a syscall each
def _relative(root: str, path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return path


def blog_settings(options: dict, docs_dir: Path) -> BlogSettings:
    """What the journal needs of the blog plugin's options (validated, defaults filled in)."""
    blog_dir = os.path.normpath(options.get("blog_dir", "blog"))
    post_dir = options.get("post_dir", "{blog}/posts").format(blog=blog_dir)
    authors = options.get("authors_file") or ""
    return BlogSettings(
        posts_dir=(docs_dir / post_dir).resolve(),
        categories_allowed=tuple(str(c) for c in options.get("categories_allowed") or ()),
        categories=bool(options.get("categories", True)),
        excerpt_required=options.get("post_excerpt", "optional") == "required",
        excerpt_separator=options.get("post_excerpt_separator", "<!-- more -->"),
        authors_file=(docs_dir / authors.format(blog=blog_dir)).resolve() if authors else None,
        post_dir=posixpath.normpath(post_dir),
        authors=bool(options.get("authors", True)),
        post_url_format=posixpath.join(blog_dir, options.get("post_url_format", "{date}/{slug}").strip("/")),
        post_slugify=options.get("post_slugify"),
        post_slugify_separator=options.get("post_slugify_separator", "-"),
    )


def find_root(start: Path | None = None) -> Path:
    """The nearest folder holding mkdocs.yml, from ``start`` (default: the cwd) up."""
    start = (start or Path.cwd()).resolve()
    for folder in [start, *start.parents]:
        if (folder / CONFIG_NAME).is_file():
            return folder
    raise ConfigError(f"no {CONFIG_NAME} in {start} or above: run this from the journal's root folder")
