"""mkdocs.yml into the core's ``Settings`` with MkDocs' own loader (defaults, ``!ENV``, validation are MkDocs'),
and MkDocs' config messages given the line of the option they name (its wording, hence here).

``load`` instantiates no plugin: mkdocs-jupyter imports nbconvert (about 2 s), and a second load inside a
build would reset the live plugin instances; blog options go through ``compat.blog.option_errors``.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from pathlib import Path

import yaml
from mkdocs import exceptions
from mkdocs.config import load_config
from mkdocs.utils import yaml_load

from journal_tools.compat import blog
from journal_tools.core import required_settings
from journal_tools.core.page import limits
from journal_tools.core.settings import (
    BLOG_NAMES,
    CONFIG_NAME,
    JOURNAL,
    JUPYTER,
    TIMEOUT_OPTION,
    ConfigError,
    Settings,
    blog_settings,
)

__all__ = ["config_line", "config_message_line", "from_config", "load", "locate_config_message",
           "read_yaml"]


def from_config(config) -> Settings:
    """From a validated MkDocs config (``on_config``); a required setting the file lacks is a PluginError at its line."""
    config_file = Path(config.config_file_path).resolve()
    root = config_file.parent
    try:
        _check_required(config_file, config["markdown_extensions"], config["mdx_configs"])
    except ConfigError as exc:
        raise exceptions.PluginError(str(exc)) from None
    blog = None
    for name in BLOG_NAMES:
        plugin = config.plugins.get(name)
        if plugin is not None and plugin.config.enabled:
            blog = blog_settings(dict(plugin.config), Path(config.docs_dir))
            break
    jupyter = config.plugins.get(JUPYTER)
    notebooks = None if jupyter is None else dict(jupyter.config)
    return Settings.make(config, config_file, root, blog, notebooks, _written_timeout(config_file))


_timeouts: dict[tuple, float | None] = {}  # (file, its stamp) -> the limit written there


def _written_timeout(config_file: Path) -> float | None:
    """The block limit as written (the validated config holds the default too); reread only when the file changes: MkDocs' YAML is slow."""
    try:
        st = config_file.stat()
    except OSError:
        return _timeout_option(read_yaml(config_file), config_file)  # names the file it cannot read
    key = (config_file, st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _timeouts:
        _timeouts[key] = _timeout_option(read_yaml(config_file), config_file)
    return _timeouts[key]

def load(config_file: str | os.PathLike = CONFIG_NAME) -> Settings:
    """From the file, with MkDocs' loader and no plugin instantiated (cached per file)."""
    return _load(str(Path(config_file).resolve()))


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
        # MkDocs has logged the reason (or put it in the exception): the report starts with the file and the line it is about.
        reason = said.messages[0] if said.messages else str(exc)
        raise ConfigError(locate_config_message(path, reason)) from None
    finally:
        logging.getLogger("mkdocs").removeHandler(said)
    blog = None
    raw = read_yaml(path)
    listed = _raw_plugin_options(raw, BLOG_NAMES)
    if listed is not None:
        blog = blog_settings(_validated_blog_options(*listed, config_file), Path(config["docs_dir"]))
    jupyter = _raw_plugin_options(raw, (JUPYTER,))
    timeout = _timeout_option(raw, path)
    _check_required(path, config["markdown_extensions"], config["mdx_configs"])  # after MkDocs' and the plugins' own checks
    return Settings.make(config, path, path.parent, blog, None if jupyter is None else jupyter[1], timeout)


def _check_required(config_file: Path, extensions, configs: dict) -> None:
    """ConfigError for each unmet ``core.required_settings`` entry, one line each in file order, at its entry or ``markdown_extensions:``;
    named from the root, so the build and the page tests say the same."""
    found = required_settings.unmet(extensions, configs)
    if not found:
        return
    located = []
    for u in found:
        line = config_line(config_file, ["markdown_extensions", *([u.extension] if u.listed else [])])
        located.append((line or 0, f"{config_file.name}:{line}: {u.message}" if line else f"{config_file.name}: {u.message}"))
    raise ConfigError("\n".join(text for _, text in sorted(located, key=lambda pair: pair[0])))


def _timeout_option(raw: dict, path: Path) -> float | None:
    """The journal plugin's block_timeout as written in mkdocs.yml (None: not written), checked as :class:`Seconds` checks it."""
    listed = _raw_plugin_options(raw, (JOURNAL,))
    options = listed[1] if listed is not None else {}
    if TIMEOUT_OPTION not in options:
        return None
    try:
        return limits.seconds(options[TIMEOUT_OPTION])
    except ValueError as exc:
        raise ConfigError(f"{path}: journal plugin option {TIMEOUT_OPTION}: {exc}") from None


def _validated_blog_options(written: str, options: dict, config_file: str) -> dict:
    """The blog options with the blog plugin's defaults, checked by its own config class."""
    validated, failed = blog.option_errors(options, config_file)
    if failed:
        # Worded as MkDocs words a plugin's options, so the line of the first is found.
        message = f"Config value 'plugins': Plugin '{written}' option " + "; ".join(f"'{k}': {e}" for k, e in failed)
        raise ConfigError(locate_config_message(config_file, message))
    return validated


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
    """Keys a MkDocs validation message names, outermost first (``['plugins', 'journal', 'no_such_option']``); [] for none."""
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
    """(key, value) nodes: a mapping's items, or a sequence's items written ``name`` or ``{name: options}`` (plugins, extensions)."""
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
    """1-based line of the innermost of ``keys`` found in ``config_file``, None if not even the first. MkDocs' errors carry no line; the
    YAML is composed (no tags, so ``!ENV`` needs no environment)."""
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
    """The line a MkDocs message about ``config_file`` is about: the option a validation message names, or a YAML error's mark, or None."""
    marks = _YAML_MARK.findall(message)  # a YAML error: its problem's mark comes last
    if marks and message.startswith(_PARSE_ERROR):
        return int(marks[-1])
    return config_line(config_file, _option_path(message))


def locate_config_message(config_file: str | os.PathLike, message: str, name: str | None = None) -> str:
    """``message`` as ``name:N: message`` (N: :func:`config_message_line`; ``name``: the file's), or ``name: message`` without a line."""
    name = name or Path(config_file).name
    line = config_message_line(config_file, message)
    return f"{name}:{line}: {message}" if line else f"{name}: {message}"
