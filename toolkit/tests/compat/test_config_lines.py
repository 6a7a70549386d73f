"""A mistake in mkdocs.yml is reported at its line (journal_tools.core.settings): MkDocs
names the option but not the line, so the line is found in the file's YAML nodes."""

from __future__ import annotations

import contextlib

import pytest

from journal_tools.compat import mkdocs_config
from journal_tools.compat.mkdocs_config import config_line, config_message_line, locate_config_message
from journal_tools.core.settings import ConfigError

pytest_plugins = ["pytester"]

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
  - pymdownx.highlight:
      pygments_lang_class: true
  - pymdownx.superfences
  - pymdownx.snippets:
      check_paths: true
      dedent_subsections: true
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
    with pytest.raises(ConfigError, match=r"^mkdocs\.yml:13: Config value 'markdown_extensions': Failed to load extension 'no_such_ext'"):
        mkdocs_config.load(config(extension="no_such_ext"))
    with pytest.raises(ConfigError, match=r"^mkdocs\.yml:9: Config value 'plugins': Plugin 'blog' option 'post_excerpt': Expected one of"):
        mkdocs_config.load(config(excerpt="sometimes"))


def test_a_yaml_syntax_error_is_named_at_its_problem_line(tmp_path):
    (tmp_path / "docs").mkdir()
    path = tmp_path / "mkdocs.yml"
    path.write_text("site_name: t\nplugins:\n  - search\n - blog\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"mkdocs\.yml:4: MkDocs encountered an error parsing the configuration file"):
        mkdocs_config.load(path)


# --------------------------------------------------------------------------
# A setting the checks need (core/required_settings.py), checked where it is written: the
# build and the page tests stop at the same mkdocs.yml:N, naming the setting, its value and why.

SITE = """\
site_name: t
theme:
  name: material
plugins:
  - journal
markdown_extensions:
  - toc:
      permalink: true
  - pymdownx.highlight:
      pygments_lang_class: true
  - pymdownx.superfences
  - pymdownx.snippets:
      base_path: [snippets]
      check_paths: true
      restrict_base_path: true
      dedent_subsections: true
"""
HIGHLIGHT, SNIPPETS, EXTENSIONS = (SITE.splitlines().index(entry) + 1 for entry in  # the lines of their entries above
                                   ("  - pymdownx.highlight:", "  - pymdownx.snippets:", "markdown_extensions:"))

# (what is changed, the file's text after, the first line of the error)
REMOVED = [
    ("pygments_lang_class", SITE.replace("      pygments_lang_class: true\n", ""),
     f"mkdocs.yml:{HIGHLIGHT}: pymdownx.highlight needs pygments_lang_class: true (the page tests count the Python "
     "blocks a reader sees by their language-python class)"),
    ("pygments_lang_class false", SITE.replace("pygments_lang_class: true", "pygments_lang_class: false"),
     f"mkdocs.yml:{HIGHLIGHT}: pymdownx.highlight needs pygments_lang_class: true, not false (the page tests count "
     "the Python blocks a reader sees by their language-python class)"),
    ("use_pygments false", SITE.replace("pygments_lang_class: true", "pygments_lang_class: true\n      use_pygments: false"),
     f"mkdocs.yml:{HIGHLIGHT}: pymdownx.highlight needs use_pygments: true, not false (the page tests count the "
     'code blocks a reader sees by the <div class="language-X highlight"> Pygments writes)'),
    ("pymdownx.highlight", SITE.replace("  - pymdownx.highlight:\n      pygments_lang_class: true\n", ""),
     f"mkdocs.yml:{EXTENSIONS}: markdown_extensions needs pymdownx.highlight with pygments_lang_class: true (the "
     "page tests count the code blocks a reader sees by the classes it writes)"),
    ("pymdownx.superfences", SITE.replace("  - pymdownx.superfences\n", ""),
     f"mkdocs.yml:{EXTENSIONS}: markdown_extensions needs pymdownx.superfences (the page tests find code fences as "
     "it does: inside admonitions, tabs and lists, and ~~~ fences)"),
    ("dedent_subsections", SITE.replace("      dedent_subsections: true\n", ""),
     f"mkdocs.yml:{SNIPPETS}: pymdownx.snippets needs dedent_subsections: true (the page tests run a section cut "
     "from inside a function or class as the top-level code a reader sees; without it the section keeps its indent "
     "(SyntaxError: unexpected indent))"),
    ("check_paths", SITE.replace("      check_paths: true\n", ""),
     f"mkdocs.yml:{SNIPPETS}: pymdownx.snippets needs check_paths: true (a missing snippet file or section fails "
     "at its include line; without it the build leaves the include out, silently)"),
    ("restrict_base_path false", SITE.replace("restrict_base_path: true", "restrict_base_path: false"),
     f"mkdocs.yml:{SNIPPETS}: pymdownx.snippets needs restrict_base_path: true, not false (an include of a file "
     "outside the snippet folders fails at its line)"),
    ("pymdownx.snippets", SITE[:SITE.index("  - pymdownx.snippets:")],
     f"mkdocs.yml:{EXTENSIONS}: markdown_extensions needs pymdownx.snippets with check_paths: true, "
     "dedent_subsections: true (the page tests expand --8<-- includes with it: without it a reader sees the "
     "include line, not the code the tests run)"),
]


def _site(root, text: str):
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("# Home\n\n```python\nprint(1)\n```\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text(text, encoding="utf-8")
    return root / "mkdocs.yml"


def _build_error(config_file, caplog) -> str:
    """The first error a build of the site logs (MkDocs' ``ERROR - ...`` line), built in this process."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    config = load_config(str(config_file), site_dir=str(config_file.parent / "site"))
    caplog.clear()
    config.plugins.on_startup(command="build", dirty=False)
    try:
        with pytest.raises(Abort):
            build(config)
    finally:
        with contextlib.suppress(FileNotFoundError):  # Material's blog removes its temp folder, sometimes gone already
            config.plugins.on_shutdown()
    return next(r.getMessage() for r in caplog.records if r.levelname == "ERROR")


def test_the_site_as_written_meets_every_required_setting(tmp_path):
    settings = mkdocs_config.load(_site(tmp_path, SITE))  # the cases below change one thing each of this
    assert settings.mdx_configs["pymdownx.highlight"] == {"pygments_lang_class": True}


@pytest.mark.parametrize(("changed", "text", "error"), REMOVED, ids=[c for c, _, _ in REMOVED])
def test_a_required_setting_missing_stops_the_build_and_the_page_tests_at_its_line(tmp_path, caplog, changed, text, error):
    config_file = _site(tmp_path, text)
    with pytest.raises(ConfigError) as loaded:  # what the page tests' collection stops with (pagetest/__init__.py)
        mkdocs_config.load(config_file)
    assert str(loaded.value) == error
    assert _build_error(config_file, caplog) == error  # the build: the same text, so one mistake is one report


def test_every_missing_setting_is_a_line_of_its_own_in_the_file_s_order(tmp_path):
    text = SITE.replace("      pygments_lang_class: true\n", "").replace("      dedent_subsections: true\n", "")
    with pytest.raises(ConfigError) as loaded:
        mkdocs_config.load(_site(tmp_path, text))
    lines = str(loaded.value).split("\n")
    assert [line.split(" needs ")[0] for line in lines] == [f"mkdocs.yml:{HIGHLIGHT}: pymdownx.highlight",
                                                          f"mkdocs.yml:{SNIPPETS - 1}: pymdownx.snippets"]


@pytest.mark.slow  # a pytest session in-process
def test_the_page_tests_report_a_missing_setting_once_with_its_line(pytester):
    """One error for the session (pagetest's pytest_configure), not one per folder collected."""
    _, text, error = REMOVED[0]
    _site(pytester.path, text)
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_other.py").write_text("def test_other():\n    pass\n", encoding="utf-8")
    pytester.makeini("[pytest]\ntestpaths = docs tests\naddopts = -p no:codeblocks -p no:randomly -p no:cacheprovider\n")
    result = pytester.runpytest_inprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    said = [line for line in result.stderr.lines + result.stdout.lines if "mkdocs.yml:" in line]
    assert said == [f"ERROR: {error}"], result.stderr.str() + result.stdout.str()[-2000:]


# --------------------------------------------------------------------------
# An author an entry names and the blog's authors file lacks: at the entry's authors: line,
# naming the file and the ids it has (the blog says only "Couldn't find author 'x'").

BLOG = """\
  - blog:
      blog_dir: "."
      post_excerpt: required
"""
AUTHORS = "authors:\n  author:\n    name: The author\n    description: d\n    avatar: a.svg\n  second:\n    name: S\n    description: d\n    avatar: a.svg\n"
POST = "---\ndate: 2025-07-27\nauthors:\n  - author\n  - {name}\n---\n\n# An entry\n\nIts excerpt.\n\n<!-- more -->\n\nThe rest.\n"
AUTHOR_ERROR = ("docs/posts/entry.md:3: author 'nobody' is not in docs/.authors.yml, which has: author, second")


def _blog_site(root, name: str, authors: str | None = AUTHORS):
    config_file = _site(root, SITE.replace("markdown_extensions:\n", BLOG + "markdown_extensions:\n"))
    (root / "docs" / "posts").mkdir()
    (root / "docs" / "posts" / "entry.md").write_text(POST.format(name=name), encoding="utf-8")
    if authors is not None:
        (root / "docs" / ".authors.yml").write_text(authors, encoding="utf-8")
    return config_file


def test_an_author_the_authors_file_lacks_stops_the_build_at_the_entry_s_authors_line(tmp_path, caplog):
    from journal_tools.core.record.validate import InputError, check_page

    config_file = _blog_site(tmp_path, "nobody")
    settings = mkdocs_config.load(config_file)
    with pytest.raises(InputError) as checked:  # what the post's page test and the build both run
        check_page(tmp_path / "docs" / "posts" / "entry.md", settings)
    assert str(checked.value) == AUTHOR_ERROR
    assert _build_error(config_file, caplog) == AUTHOR_ERROR


def test_an_authors_file_that_is_not_there_is_named(tmp_path):
    from journal_tools.core.record.validate import InputError, check_page

    settings = mkdocs_config.load(_blog_site(tmp_path, "author", authors=None))
    with pytest.raises(InputError, match=r"^docs/posts/entry\.md:3: author 'author' is not in docs/\.authors\.yml, "
                                         r"which does not exist$"):
        check_page(tmp_path / "docs" / "posts" / "entry.md", settings)


def test_the_authors_the_file_has_pass(tmp_path):
    from journal_tools.core.record.validate import check_page

    settings = mkdocs_config.load(_blog_site(tmp_path, "second"))
    check_page(tmp_path / "docs" / "posts" / "entry.md", settings)  # raises nothing


@pytest.mark.slow  # a pytest session in-process, with the page tests' worker
def test_the_page_test_of_an_entry_with_an_unknown_author_fails_at_its_authors_line(pytester, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # the summary line whole
    _blog_site(pytester.path, "nobody")
    pytester.makeini("[pytest]\ntestpaths = docs\naddopts = -p no:codeblocks -p no:randomly -p no:cacheprovider\n")
    result = pytester.runpytest_inprocess("-rf")
    out = result.stdout.str()
    failed = [line for line in out.splitlines() if line.startswith("FAILED")]
    # The located failure as the toolkit's plugin writes it after pytest's summary: whole, by its node id.
    assert failed == [f"FAILED docs/posts/entry.md::page - {AUTHOR_ERROR}"], out[-2000:]
