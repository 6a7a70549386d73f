"""One settings object for everything that reads mkdocs.yml.

The build (the plugin's ``on_config``), the page tests, ``make new`` and the
benchmarks all take their paths and options from :class:`Settings`, made
either from a running build's config (:meth:`Settings.from_config`) or from
the file with MkDocs' own loader (:meth:`Settings.load`). So defaults,
``!ENV`` tags and validation are MkDocs' everywhere, the project root is
computed once (the folder of the config file), and the snippet base paths are
made absolute once (pymdownx.snippets resolves them against the working
directory otherwise, which differs between the build and each test).

``Settings.load`` instantiates no plugin: loading mkdocs-jupyter imports
nbconvert (about 2 s), and MkDocs caches plugin instances that define
``on_startup``, so a second load inside a running build would reset the live
instances' converted options. The options this package needs from the blog
plugin are validated with the blog plugin's own config class instead.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePath

import markdown
from mkdocs import exceptions
from mkdocs.config import load_config
from mkdocs.config.base import ValidationError
from mkdocs.config.config_options import BaseConfigOption
from mkdocs.utils import yaml_load

from journal_tools import limits

__all__ = ["BlogSettings", "ConfigError", "Seconds", "Settings", "find_root", "read_yaml"]

CONFIG_NAME = "mkdocs.yml"
SNIPPETS = "pymdownx.snippets"
BLOG_NAMES = ("material/blog", "blog")
JUPYTER = "mkdocs-jupyter"
JUPYTER_INCLUDE = ("*.py", "*.ipynb", "*.md")  # mkdocs-jupyter's default
JOURNAL = "journal"
TIMEOUT_OPTION = "block_timeout"


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
    # mkdocs-jupyter's include and ignore patterns (matched as pathlib's
    # PurePath.match does); no include patterns without the plugin.
    notebook_include: tuple[str, ...] = ()
    notebook_ignore: tuple[str, ...] = ()
    # The journal plugin's block_timeout: each block's time limit, unless its page sets one.
    block_timeout: limits.Limit = limits.Limit(limits.DEFAULT_TIMEOUT, f"{TIMEOUT_OPTION}, the journal plugin's default")

    # -- construction -------------------------------------------------------

    @classmethod
    def from_config(cls, config) -> Settings:
        """From a validated MkDocs config (a running build's ``on_config``)."""
        config_file = Path(config.config_file_path).resolve()
        root = config_file.parent
        blog = None
        for name in BLOG_NAMES:
            plugin = config.plugins.get(name)
            if plugin is not None and plugin.config.enabled:
                blog = _blog_settings(dict(plugin.config), Path(config.docs_dir))
                break
        jupyter = config.plugins.get(JUPYTER)
        notebooks = None if jupyter is None else dict(jupyter.config)
        # As written in the file (the validated plugin config holds the default too, so it
        # cannot say whether the limit was set there).
        timeout = _timeout_option(read_yaml(config_file), config_file)
        return cls._make(config, config_file, root, blog, notebooks, timeout)

    @classmethod
    def load(cls, config_file: str | os.PathLike = CONFIG_NAME) -> Settings:
        """From the file, with MkDocs' loader and no plugin instantiated (cached per file)."""
        return _load(str(Path(config_file).resolve()))

    @classmethod
    def _make(cls, config, config_file: Path, root: Path, blog: BlogSettings | None,
              notebooks: dict | None = None, timeout: float | None = None) -> Settings:
        configs = {name: dict(options) for name, options in dict(config["mdx_configs"]).items()}
        snippets = configs.get(SNIPPETS, {})
        bases = snippets.get("base_path", ["."])
        if isinstance(bases, (str, os.PathLike)):
            bases = [bases]
        dirs = tuple((root / b).resolve() for b in bases)
        if SNIPPETS in configs:
            snippets["base_path"] = [str(d) for d in dirs]
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
            **({} if timeout is None else {"block_timeout": limits.Limit(timeout, f"{TIMEOUT_OPTION} in {config_file.name}")}),
        )

    # -- derived ------------------------------------------------------------

    def rel(self, path: str | os.PathLike) -> str:
        """``path`` relative to the project root (as error messages name files)."""
        try:
            return str(Path(path).resolve().relative_to(self.root))
        except ValueError:
            return str(path)

    def markdown_key(self) -> str:
        """The Markdown extensions and options as text, for cache keys: paths inside
        the project are written relative to it, so a cache survives a move of the
        checkout (CI, a copy, a second clone) and still misses on a real change."""
        text = repr((self.markdown_extensions, sorted(map(str, self.mdx_configs.items()))))
        return text.replace(str(self.root), "<project>")

    def markdown(self, extensions: list | None = None) -> markdown.Markdown:
        """A Markdown converter with the site's extensions and options."""
        return markdown.Markdown(
            extensions=list(self.markdown_extensions if extensions is None else extensions),
            extension_configs=self.mdx_configs,
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


def _blog_settings(options: dict, docs_dir: Path) -> BlogSettings:
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
    )


def read_yaml(config_file: str | os.PathLike) -> dict:
    """mkdocs.yml as a plain mapping, read with MkDocs' own YAML loader (``!ENV``, ``!relative``)."""
    path = Path(config_file)
    try:
        with path.open("rb") as fh:
            return yaml_load(fh) or {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None


def _raw_plugin_options(raw: dict, names: tuple[str, ...]) -> dict | None:
    plugins = raw.get("plugins") or []
    entries = plugins.items() if isinstance(plugins, dict) else (
        (e, {}) if isinstance(e, str) else next(iter(e.items())) for e in plugins)
    for name, options in entries:
        if name in names:
            return options or {}
    return None


@functools.lru_cache(maxsize=16)
def _load(config_file: str) -> Settings:
    path = Path(config_file)
    if not path.is_file():
        raise ConfigError(f"no {path.name} at {path.parent}: run this from the journal's root folder")
    try:
        config = load_config(config_file, plugins=[], hooks=[])
    except (exceptions.Abort, exceptions.ConfigurationError) as exc:
        # MkDocs has logged the reason; name the file so the report points at it.
        raise ConfigError(f"{config_file}: MkDocs cannot load this configuration ({exc})") from None
    blog = None
    raw = read_yaml(path)
    options = _raw_plugin_options(raw, BLOG_NAMES)
    if options is not None:
        blog = _blog_settings(_validated_blog_options(options, config_file), Path(config["docs_dir"]))
    return Settings._make(config, path, path.parent, blog, _raw_plugin_options(raw, (JUPYTER,)), _timeout_option(raw, path))


def _timeout_option(raw: dict, path: Path) -> float | None:
    """The journal plugin's block_timeout as written in mkdocs.yml (None: not written), checked
    as the plugin's own option (:class:`Seconds`) checks it."""
    options = _raw_plugin_options(raw, (JOURNAL,)) or {}
    if TIMEOUT_OPTION not in options:
        return None
    try:
        return limits.seconds(options[TIMEOUT_OPTION])
    except ValueError as exc:
        raise ConfigError(f"{path}: journal plugin option {TIMEOUT_OPTION}: {exc}") from None


class Seconds(BaseConfigOption[float]):
    """A plugin option holding a time limit in seconds (a number above 0)."""

    def __init__(self, default: float):
        super().__init__()
        self.default = default

    def run_validation(self, value) -> float:
        """The value as float seconds; MkDocs reports a bad one with the option's name."""
        try:
            return limits.seconds(value)
        except ValueError as exc:
            raise ValidationError(str(exc)) from None


def _validated_blog_options(options: dict, config_file: str) -> dict:
    """The blog options with the blog plugin's defaults, checked by its own config class."""
    from material.plugins.blog.config import BlogConfig

    config = BlogConfig(config_file_path=config_file)
    config.load_dict(options)
    failed, _warnings = config.validate()
    if failed:
        raise ConfigError(f"{config_file}: blog plugin options: " + "; ".join(f"{k}: {e}" for k, e in failed))
    return dict(config)


def find_root(start: Path | None = None) -> Path:
    """The nearest folder holding mkdocs.yml, from ``start`` (default: the cwd) up."""
    start = (start or Path.cwd()).resolve()
    for folder in [start, *start.parents]:
        if (folder / CONFIG_NAME).is_file():
            return folder
    raise ConfigError(f"no {CONFIG_NAME} in {start} or above: run this from the journal's root folder")
