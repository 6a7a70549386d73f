"""One settings object for everything that reads mkdocs.yml.

The build (the plugin's ``on_config``), the page tests, ``make new`` and the
benchmarks all take their paths and options from :class:`Settings`, made
either from a running build's config (:meth:`Settings.from_config`) or from
the file with MkDocs' own loader (:meth:`Settings.load`). So defaults,
``!ENV`` tags and validation are MkDocs' everywhere, the project root is
computed once (the folder of the config file), and the snippet base paths are
made absolute once (pymdownx.snippets resolves them against the working
directory otherwise, which differs between the build and each test).

MkDocs' configuration messages name the option but not its line ("Config
value 'plugins': Plugin 'journal' option 'x': Unrecognised configuration
name: x"): :func:`locate_config_message` finds that line by reading the file's
YAML nodes, and :meth:`Settings.load` puts it first (``mkdocs.yml:48: ...``).

``Settings.load`` instantiates no plugin: loading mkdocs-jupyter imports
nbconvert (about 2 s), and MkDocs caches plugin instances that define
``on_startup``, so a second load inside a running build would reset the live
instances' converted options. The options this package needs from the blog
plugin are validated with the blog plugin's own config class instead.
"""

from __future__ import annotations

import functools
import logging
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePath

import markdown
import yaml
from mkdocs import exceptions
from mkdocs.config import load_config
from mkdocs.config.base import ValidationError
from mkdocs.config.config_options import BaseConfigOption
from mkdocs.utils import yaml_load

from journal_tools.readers import citations, limits

__all__ = [
    "env_flag",
    "BlogSettings", "ConfigError", "Seconds", "Settings", "config_line", "config_message_line", "find_root",
    "locate_config_message", "read_yaml",
]

CONFIG_NAME = "mkdocs.yml"
SNIPPETS = "pymdownx.snippets"
BLOG_NAMES = ("material/blog", "blog")
JUPYTER = "mkdocs-jupyter"
JUPYTER_INCLUDE = ("*.py", "*.ipynb", "*.md")  # mkdocs-jupyter's default
JOURNAL = "journal"
TIMEOUT_OPTION = "block_timeout"


def env_flag(name: str) -> bool:
    """Is the environment variable ``name`` (FRESH, CI) switched on? Set and not empty, 0, false or no.

    One reading for every place that asks: the toolkit's test reuse, the remembered render
    checks and the prerequisite checks must agree on what ``CI=false`` means."""
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
    # The BibTeX file of journal_citations, or None when no page can cite.
    bibliography: Path | None = None
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
        # The citations' bibliography option: a path, made absolute here like the snippets'.
        cite_name = citations.listed_name(configs)
        bib = configs.get(cite_name, {}).get("bibliography")
        bibliography = (root / os.fspath(bib)).resolve() if bib else None
        if bibliography is not None:
            configs[cite_name]["bibliography"] = str(bibliography)
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
            **({} if timeout is None else {"block_timeout": limits.Limit(timeout, f"{TIMEOUT_OPTION} in {config_file.name}")}),
        )

    # -- derived ------------------------------------------------------------

    def rel(self, path: str | os.PathLike) -> str:
        """``path`` relative to the project root (as error messages name files)."""
        return _relative(str(self.root), os.fspath(path))

    def markdown_key(self) -> str:
        """The Markdown extensions and options as text, for cache keys: paths inside
        the project are written relative to it, so a cache survives a move of the
        checkout (CI, a copy, a second clone) and still misses on a real change."""
        text = repr((self.markdown_extensions, sorted(map(str, self.mdx_configs.items()))))
        return text.replace(str(self.root), "<project>")

    def markdown(self, extensions: list | None = None, options: dict | None = None) -> markdown.Markdown:
        """A Markdown converter with the site's extensions and options (``options``: per extension,
        over the site's)."""
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
        post_dir=posixpath.normpath(post_dir),
    )


def read_yaml(config_file: str | os.PathLike) -> dict:
    """mkdocs.yml as a plain mapping, read with MkDocs' own YAML loader (``!ENV``, ``!relative``)."""
    path = Path(config_file)
    try:
        with path.open("rb") as fh:
            return yaml_load(fh) or {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None


def _raw_plugin_options(raw: dict, names: tuple[str, ...]) -> tuple[str, dict] | None:
    """(the name as written, its options) of the first of ``names`` listed under plugins:."""
    plugins = raw.get("plugins") or []
    entries = plugins.items() if isinstance(plugins, dict) else (
        (e, {}) if isinstance(e, str) else next(iter(e.items())) for e in plugins)
    for name, options in entries:
        if name in names:
            return name, options or {}
    return None


@functools.lru_cache(maxsize=16)
def _load(config_file: str) -> Settings:
    path = Path(config_file)
    if not path.is_file():
        raise ConfigError(f"no {path.name} at {path.parent}: run this from the journal's root folder")
    said = _MkDocsMessages()
    logging.getLogger("mkdocs").addHandler(said)
    try:
        config = load_config(config_file, plugins=[], hooks=[])
    except (exceptions.Abort, exceptions.ConfigurationError) as exc:
        # MkDocs has logged the reason (or put it in the exception): the report
        # starts with the file and the line it is about.
        reason = said.messages[0] if said.messages else str(exc)
        raise ConfigError(locate_config_message(path, reason, name=str(path))) from None
    finally:
        logging.getLogger("mkdocs").removeHandler(said)
    blog = None
    raw = read_yaml(path)
    listed = _raw_plugin_options(raw, BLOG_NAMES)
    if listed is not None:
        blog = _blog_settings(_validated_blog_options(*listed, config_file), Path(config["docs_dir"]))
    jupyter = _raw_plugin_options(raw, (JUPYTER,))
    return Settings._make(config, path, path.parent, blog, None if jupyter is None else jupyter[1], _timeout_option(raw, path))


def _timeout_option(raw: dict, path: Path) -> float | None:
    """The journal plugin's block_timeout as written in mkdocs.yml (None: not written), checked
    as the plugin's own option (:class:`Seconds`) checks it."""
    listed = _raw_plugin_options(raw, (JOURNAL,))
    options = listed[1] if listed is not None else {}
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


def _validated_blog_options(written: str, options: dict, config_file: str) -> dict:
    """The blog options with the blog plugin's defaults, checked by its own config class."""
    from material.plugins.blog.config import BlogConfig

    config = BlogConfig(config_file_path=config_file)
    config.load_dict(options)
    failed, _warnings = config.validate()
    if failed:
        # Worded as MkDocs words a plugin's options, so the line of the first is found.
        message = f"Config value 'plugins': Plugin '{written}' option " + "; ".join(f"'{k}': {e}" for k, e in failed)
        raise ConfigError(locate_config_message(config_file, message, name=config_file))
    return dict(config)


class _MkDocsMessages(logging.Handler):
    """The warnings and errors MkDocs logs while it validates a configuration."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


# --------------------------------------------------------------------------
# Which line of mkdocs.yml a configuration message is about

_CONFIG_VALUE = re.compile(r"Config value '(?P<key>[^']+)': (?P<rest>.*)", re.S)
_PLUGIN_OPTION = re.compile(r"Plugin '(?P<plugin>[^']+)' option '(?P<option>[^']+)'")
_EXTENSION = re.compile(r"Failed to load extension '(?P<name>[^']+)'")
_YAML_MARK = re.compile(r", line (?P<line>\d+), column \d+")
_PARSE_ERROR = "MkDocs encountered an error parsing the configuration file"


def _option_path(message: str) -> list[str]:
    """The keys a message of MkDocs' config validation names, outermost first
    (``['plugins', 'journal', 'no_such_option']``); [] when it names none."""
    m = _CONFIG_VALUE.search(message)
    if m is None:
        return []
    path = [m["key"]]
    option = _PLUGIN_OPTION.match(m["rest"])
    extension = _EXTENSION.search(m["rest"])
    if option:
        path += [option["plugin"], option["option"]]
    elif extension:
        path.append(extension["name"])
    return path


def _entries(node) -> list:
    """(key node, value node) pairs: a mapping's items, or a sequence's items written
    ``name`` or ``{name: options}`` (how plugins and Markdown extensions are listed)."""
    if isinstance(node, yaml.MappingNode):
        return node.value
    if not isinstance(node, yaml.SequenceNode):
        return []
    pairs = []
    for item in node.value:
        if isinstance(item, yaml.ScalarNode):
            pairs.append((item, item))
        elif isinstance(item, yaml.MappingNode) and len(item.value) == 1:
            pairs.append(item.value[0])
    return pairs


def config_line(config_file: str | os.PathLike, keys: list[str]) -> int | None:
    """1-based line in ``config_file`` of the innermost of ``keys`` (a path of
    mapping keys and plugin or extension names) found there; None if not even the first is.

    MkDocs' config errors carry no line, so the file's YAML is composed (nodes
    with their marks, no tag constructed: ``!ENV`` needs no environment here).
    """
    if not keys:
        return None
    try:
        node = yaml.compose(Path(config_file).read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    line = None
    for key in keys:
        found = [(k, v) for k, v in _entries(node) if isinstance(k, yaml.ScalarNode) and k.value == key]
        if not found:
            break
        key_node, node = found[0]
        line = key_node.start_mark.line + 1
    return line


def config_message_line(config_file: str | os.PathLike, message: str) -> int | None:
    """The line of ``config_file`` a message of MkDocs about it is about: the option a
    validation message names (``Config value 'plugins': Plugin 'journal' option 'x': ...``)
    or a YAML error's mark; None for any other message."""
    marks = _YAML_MARK.findall(message)  # a YAML error: its problem's mark comes last
    if marks and message.startswith(_PARSE_ERROR):
        return int(marks[-1])
    return config_line(config_file, _option_path(message))


def locate_config_message(config_file: str | os.PathLike, message: str, name: str | None = None) -> str:
    """``message`` (MkDocs' own, about ``config_file``) as ``name:N: message``, N the line
    of :func:`config_message_line`; ``name`` defaults to the file's name; without a line,
    ``name: message``."""
    name = name or Path(config_file).name
    line = config_message_line(config_file, message)
    return f"{name}:{line}: {message}" if line else f"{name}: {message}"


def find_root(start: Path | None = None) -> Path:
    """The nearest folder holding mkdocs.yml, from ``start`` (default: the cwd) up."""
    start = (start or Path.cwd()).resolve()
    for folder in [start, *start.parents]:
        if (folder / CONFIG_NAME).is_file():
            return folder
    raise ConfigError(f"no {CONFIG_NAME} in {start} or above: run this from the journal's root folder")
