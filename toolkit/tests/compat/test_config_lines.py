"""A mistake in mkdocs.yml is reported at its line (journal_tools.core.settings): MkDocs
names the option but not the line, so the line is found in the file's YAML nodes."""

from __future__ import annotations

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.compat.mkdocs_config import config_line, config_message_line, locate_config_message
from journal_tools.core.settings import ConfigError

CONFIG = """\
site_name: t
theme:
  name: material
plugins:
  - search
  - journal:
      no_such_option: 1
  - blog:
      post_excerpt: {excerpt}
markdown_extensions:
  - toc:
      permalink: true
  - {extension}
"""


@pytest.fixture
def config(tmp_path):
    def write(excerpt="required", extension="admonition"):
        (tmp_path / "docs").mkdir(exist_ok=True)
        path = tmp_path / "mkdocs.yml"
        path.write_text(CONFIG.format(excerpt=excerpt, extension=extension), encoding="utf-8")
        return path

    return write


def test_the_line_of_a_plugin_option_an_extension_and_a_key(config):
    path = config()
    assert config_line(path, ["plugins", "journal", "no_such_option"]) == 7
    assert config_line(path, ["plugins", "journal", "not_written"]) == 6  # the innermost key found
    assert config_line(path, ["markdown_extensions", "toc", "permalink"]) == 12
    assert config_line(path, ["markdown_extensions", "admonition"]) == 13
    assert config_line(path, ["theme"]) == 2
    assert config_line(path, ["nav"]) is None and config_line(path, []) is None


def test_mkdocs_messages_get_their_line(config):
    path = config()
    message = "Config value 'plugins': Plugin 'journal' option 'no_such_option': Unrecognised configuration name: no_such_option"
    assert locate_config_message(path, message) == f"mkdocs.yml:7: {message}"
    assert config_message_line(path, "Config value 'markdown_extensions': Failed to load extension 'admonition'.") == 13
    assert config_message_line(path, "Config value 'theme': Unrecognised theme name: 'x'.") == 2
    assert config_message_line(path, "docs/index.md:3: not about mkdocs.yml") is None
    assert locate_config_message(path, "Config value 'nav': bad") == "mkdocs.yml: Config value 'nav': bad"


def test_settings_load_names_the_line_of_what_mkdocs_rejects(config):
    with pytest.raises(ConfigError, match=r"mkdocs\.yml:13: Config value 'markdown_extensions': Failed to load extension 'no_such_ext'"):
        mkdocs_config.load(config(extension="no_such_ext"))
    with pytest.raises(ConfigError, match=r"mkdocs\.yml:9: Config value 'plugins': Plugin 'blog' option 'post_excerpt': Expected one of"):
        mkdocs_config.load(config(excerpt="sometimes"))


def test_a_yaml_syntax_error_is_named_at_its_problem_line(tmp_path):
    (tmp_path / "docs").mkdir()
    path = tmp_path / "mkdocs.yml"
    path.write_text("site_name: t\nplugins:\n  - search\n - blog\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"mkdocs\.yml:4: MkDocs encountered an error parsing the configuration file"):
        mkdocs_config.load(path)
