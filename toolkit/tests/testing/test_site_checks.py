"""The checks of a journal's built site (testing/checks/) on planted problems: each can fail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from journal_tools.testing.checks.build import css_external_refs, html_external_refs
from journal_tools.testing.checks.feeds import description_problems
from journal_tools.testing.checks.links import broken_links
from journal_tools.testing.checks.workflow import ZIZMOR_FLAGS, comment_problems, record_problems
from journal_tools.testing.journal import Journal
from journal_tools.testing.site import first_problem

from fixture_journal import minimal_extensions

pytest_plugins = ["pytester"]


def test_first_problem_is_the_first_located_message():
    notebook = ("INFO    -  Building\nERROR   -  Error reading page 'notebooks/x.py':\n"
                "ERROR   -  docs/notebooks/x.py:29: notebook cell raised NameError: name 'y' is not defined\n"
                "\nAborted with a BuildError!\n")
    assert first_problem(notebook) == "docs/notebooks/x.py:29: notebook cell raised NameError: name 'y' is not defined"
    links = "WARNING -  docs/index.md:4: Doc file 'index.md' contains a link 'a.md'\nWARNING -  docs/b.md:2: ...\n"
    assert first_problem(links) == "docs/index.md:4: Doc file 'index.md' contains a link 'a.md'"
    assert first_problem("ERROR   -  Config value 'x': bad\nAborted with 1 configuration errors!\n") == "Config value 'x': bad"
    yaml_error = 'Error: MkDocs encountered an error parsing the configuration file: while parsing\n  in "mkdocs.yml", line 4, column 2\n'
    assert first_problem(yaml_error) == yaml_error.strip().removeprefix("Error: ")




def test_scanner_catches_external_resources():
    page = """<html><head>
    <link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">
    <link rel="canonical" href="https://example.org/page/">
    <script src="//cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>
    <style>@import url("https://x.org/a.css"); body { background: url(https://x.org/b.png) }</style>
    </head><body><a href="https://example.org">fine</a>
    <img src="https://avatars.githubusercontent.com/u/1" alt="">
    <img src="data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%3E%3C/svg%3E" alt="">
    <div style="background-image: url('http://x.org/c.png')"></div></body></html>"""
    bad = html_external_refs(page)
    assert len(bad) == 6, bad
    assert not any("example.org" in b for b in bad)
    assert css_external_refs("a{b:url(../fonts/x.woff2)} @import 'local.css';") == []
    assert css_external_refs("@import 'https://x.org/y.css';") == ["https://x.org/y.css"]


def test_link_check_catches_missing_files_and_anchors(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        '<nav><a href="#here">ok</a><a href="#check-2-with-copied-weights">toc</a></nav>'
        '<h3 id="here">x</h3><a href="a/#top">ok</a><a href="a/#gone">anchor</a><a href="b/">file</a>'
        '<a href="https://example.org/x/">other site</a><a href="https://s.example/j/a/">ours, absolute</a>'
        '<link rel="stylesheet" href="/j/missing.css">',
        encoding="utf-8")
    (tmp_path / "a" / "index.html").write_text('<h1 id="top">A</h1>', encoding="utf-8")
    problems = broken_links(tmp_path, "https://s.example/j/")
    assert len(problems) == 4, problems
    assert any("no id 'check-2-with-copied-weights' on index.html" in p for p in problems)
    assert any("no id 'gone' on a/index.html" in p for p in problems)
    assert any("no file b/index.html" in p for p in problems)
    assert any("no file missing.css" in p for p in problems)


def test_nbtoc_aligns_a_toc_with_inline_code_headings():
    from mkdocs.structure.toc import get_toc

    from journal_tools.mkdocs_plugin.nbtoc import align_toc

    toc = get_toc([{"level": 2, "id": "checks", "name": "Checks", "children": [
        {"level": 3, "id": "check-2-with-copied-weights", "name": "Check 2: with copied weights", "children": []}]}])
    html = ('<h2 id="checks">Checks<a class="anchor-link" href="#checks">¶</a></h2>'
            '<h3 id="check-2-nnmultiheadattention-with-copied-weights">Check 2: <code>nn.MultiheadAttention</code>'
            ' with copied weights<a class="anchor-link" href="#x">¶</a></h3>')
    assert align_toc(html, toc)
    child = toc.items[0].children[0]
    assert (child.id, child.title) == ("check-2-nnmultiheadattention-with-copied-weights",
                                       "Check 2: nn.MultiheadAttention with copied weights")
    assert child.url == "#check-2-nnmultiheadattention-with-copied-weights"
    assert not align_toc(html, toc)  # already aligned: nothing to do



@pytest.mark.parametrize("html, expected", [
    ('<h1>T</h1><p>x</p>', "<h1>T</h1> in the description (the item's title again)"),
    ('<p>In our <a href="2025-07-26-x.md">walkthrough</a></p>', "is not an absolute URL under"),
    ('<p><a href="https://example.github.io/llm-journal/nope/">x</a></p>', "no such file in the built site"),
    ('<p>weights $W^{Q}$</p>', "raw TeX '$'"),
    ('<p>\\(x\\) and \\begin{bmatrix}</p>', "raw TeX '\\\\('"),
])
def test_description_check_catches_bad_items(tmp_path, html, expected):
    (tmp_path / "index.html").write_text("<h1 id='top'>home</h1>", encoding="utf-8")
    problems = description_problems(tmp_path, "https://example.github.io/llm-journal/", "T", html)
    assert any(expected in p for p in problems), problems


def test_excerpt_for_feed_drops_title_and_permalinks_and_makes_links_absolute():
    from journal_tools.mkdocs_plugin.feeds import excerpt_html

    def excerpt_for_feed(html, url):
        return excerpt_html(html, "<!-- more -->", url)

    html = ('<h1 id="t">Title<a class="headerlink" href="#t" title="Permanent link">¶</a></h1>\n'
            '<p>See <a href="../../26/x/">the last one</a>, <a href="#sec">below</a>, '
            '<img src="../img.svg" alt=""> and <a href="https://other.org/">elsewhere</a>.</p>\n'
            "<!-- more -->\n<p>not in the feed</p>")
    out = excerpt_for_feed(html, "https://example.github.io/j/blog/2025/07/27/y/")
    assert out == ('<p>See <a href="https://example.github.io/j/blog/2025/07/26/x/">the last one</a>, '
                   '<a href="https://example.github.io/j/blog/2025/07/27/y/#sec">below</a>, '
                   '<img src="https://example.github.io/j/blog/2025/07/27/img.svg" alt=""> and '
                   '<a href="https://other.org/">elsewhere</a>.</p>')
    assert excerpt_for_feed("<p>no separator</p>", "https://x.org/") is None


PINNED_TEXT = """\
name: planted
on: push
permissions: {}
concurrency:
  group: ${{ github.workflow }}-${{ github.ref }}
  cancel-in-progress: true
jobs:
  build:
    name: build
    runs-on: ubuntu-latest
    permissions:
      contents: read # to check out the repository
    steps:
      - uses: actions/checkout@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0
        with:
          persist-credentials: false
      - run: echo hello
"""


def test_the_workflow_checks_catch_planted_problems():
    assert comment_problems(PINNED_TEXT) == []
    assert comment_problems(PINNED_TEXT.replace(" # v4.4.0", ""))
    assert comment_problems(PINNED_TEXT.replace(" # v4.4.0", " # main"))
    assert record_problems(yaml.safe_load(RECORD_TEXT)) == []
    assert record_problems(yaml.safe_load(RECORD_TEXT.replace("if: github.event_name != 'pull_request'", "if: always()")))
    assert record_problems(yaml.safe_load(RECORD_TEXT.replace("FRESH: ${{ github.event_name == 'pull_request' && '0' || '1' }}",
                                                              "FRESH: '0'")))


RECORD_TEXT = """\
jobs:
  test:
    steps:
      - run: make test
        env:
          FRESH: ${{ github.event_name == 'pull_request' && '0' || '1' }}
      - uses: actions/cache/save@0057852bfaa89a56745cba8c7296529d2fc39830 # v4.3.0
        if: github.event_name != 'pull_request' && github.ref == 'refs/heads/main'
        with:
          path: .cache/record.sqlite
"""


@pytest.mark.parametrize(
    "plant",
    [
        pytest.param(lambda t: t, id="clean"),
        pytest.param(lambda t: t.replace("@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0", "@v4"), id="unpinned"),
        pytest.param(lambda t: t.replace("persist-credentials: false", "fetch-depth: 1"), id="artipacked"),
        # Informational (pedantic): only reported with the flags `make lint` uses.
        pytest.param(lambda t: t.replace("    name: build\n", ""), id="anonymous-job"),
        # Unparsable: reported as an error, not skipped with a warning.
        pytest.param(lambda t: t + "  broken: [\n", id="syntax-error"),
    ],
)
def test_zizmor_fails_on_a_planted_finding_only(tmp_path, plant):
    github = tmp_path / ".github"
    (github / "workflows").mkdir(parents=True)
    text = plant(PINNED_TEXT)
    (github / "workflows" / "planted.yml").write_text(text, encoding="utf-8")
    proc = subprocess.run([str(Path(sys.executable).parent / "zizmor"), *ZIZMOR_FLAGS, str(github)], capture_output=True, text=True)
    if text == PINNED_TEXT:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    else:
        assert proc.returncode != 0, proc.stdout + proc.stderr


def test_a_journal_without_entries_fails_its_checks(journal):
    """An empty list of pages is a failure, never a skip: the checks would check nothing."""
    settings, _ = journal
    with pytest.raises(AssertionError, match=r"no entry in docs/blog/posts/"):
        Journal(settings.root).entries


def test_entries_come_from_the_blog_options(tmp_path):
    """The posts folder, site URL and served path are the blog plugin's and mkdocs.yml's, whatever they are."""
    config = {"site_name": "t", "site_url": "https://h.example/a/b", "theme": "material",
              "plugins": [{"blog": {"blog_dir": "notes"}}], "markdown_extensions": minimal_extensions()}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    posts = tmp_path / "docs" / "notes" / "posts"
    posts.mkdir(parents=True)
    (posts / "z.md").write_text("---\ndate: 2025-01-02\n---\n\n# Second \\# two\n", encoding="utf-8")
    (posts / "a.md").write_text("---\ndate: 2025-01-03\ndraft: true\n---\n\n# Third\n", encoding="utf-8")
    j = Journal(tmp_path)
    assert (j.site_url, j.site_prefix) == ("https://h.example/a/b/", "/a/b/")
    assert [(e.name, e.title, e.draft) for e in j.entries] == [("z.md", "Second # two", False), ("a.md", "Third", True)]
    (posts / "b.md").write_text("---\ndate: 2025-07-32\n---\n\n# Bad\n", encoding="utf-8")  # its page test says where
    assert [e.name for e in Journal(tmp_path).entries] == ["b.md", "z.md", "a.md"]
    assert [e.name for e in j.published()] == ["z.md"]
    site = tmp_path / "site"
    (site / "x").mkdir(parents=True)
    (site / "x" / "index.html").write_text("<h1>Second # two</h1>", encoding="utf-8")
    (site / "index.html").write_text('<article class="md-post--excerpt"><h1>Second # two</h1></article>', encoding="utf-8")
    with pytest.raises(AssertionError, match="0 built pages have its title 'Third'"):
        j.entry_pages(site)


def test_a_journal_whose_testpaths_leave_out_mkdocs_yml_is_told_its_site_checks_did_not_run(pytester):
    pytester.makefile(".yml", mkdocs=yaml.safe_dump({"site_name": "t", "markdown_extensions": minimal_extensions()}))
    pytester.mkdir("docs")
    pytester.makeini("[pytest]\ntestpaths = docs\naddopts = -p no:randomly -p no:cacheprovider\n")
    said = "no check of the built site ran: mkdocs.yml is not in pytest's testpaths"
    assert said in pytester.runpytest_inprocess().stdout.str()
    assert said not in pytester.runpytest_inprocess("docs").stdout.str()  # a run of some paths: the author chose them


def test_mkdocs_yml_collects_every_check_of_the_built_site_by_module(pytester):
    """The plugin's collector: node ids by module, the browser checks marked, one downloads test per entry."""
    config = {"site_name": "t", "site_url": "https://h.example/j/", "theme": "material", "plugins": ["blog"],
              "markdown_extensions": minimal_extensions()}
    pytester.makefile(".yml", mkdocs=yaml.safe_dump(config))
    posts = pytester.path / "docs" / "blog" / "posts"
    posts.mkdir(parents=True)
    (posts / "a.md").write_text("---\ndate: 2025-01-02\n---\n\n# A\n", encoding="utf-8")
    # An impossible date is its page test's failure alone: collecting the checks stays whole.
    (posts / "b.md").write_text("---\ndate: 2025-07-32\n---\n\n# B\n", encoding="utf-8")
    pytester.makeini("[pytest]\naddopts = -p no:randomly -p no:cacheprovider\n")
    collected = pytester.runpytest_inprocess("--collect-only", "-q", "mkdocs.yml")
    assert collected.ret == 0, collected.stdout.str()
    ids = [line for line in collected.stdout.lines if "::" in line]
    from journal_tools.testing.checks import MODULES
    assert {i.split("::")[1] for i in ids} == set(MODULES)
    assert "mkdocs.yml::build::test_docs_build" in ids
    assert [i for i in ids if "downloads::test_downloads_print" in i] == [
        f"mkdocs.yml::downloads::test_downloads_print_what_the_page_shows[{n}.md]" for n in "ab"]
    browser = pytester.runpytest_inprocess("--collect-only", "-q", "-m", "browser", "mkdocs.yml").stdout.lines
    assert {line.split("::")[1] for line in browser if "::" in line} == {m for m in MODULES if m.startswith("browser.")}


def test_the_readme_paths_of_a_journal_git_tracks_nothing_of_yet(tmp_path):
    """`git init` in a journal just made, before anything is added: its top level is every file, not none (with none, every
    `/...` in the README, an address say, was taken for a missing path)."""
    from journal_tools.testing.checks import readme

    (tmp_path / "docs").mkdir()
    (tmp_path / "Makefile").write_text("all:\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert sorted(p.name for p in readme._tracked_top(tmp_path)) == [".git", "Makefile", "docs"]
