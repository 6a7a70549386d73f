"""Settings, front matter, fences and includes on inline input."""

from __future__ import annotations

import dataclasses

import pytest
import yaml

from journal_tools.compat import blog, mkdocs_config
from journal_tools.core.page import fences, frontmatter
from journal_tools.core.page.includes import IncludeError, expand
from journal_tools.core.page.source import SourceError, read_source
from journal_tools.core.record.validate import check_post


def test_settings_resolve_paths_once(journal):
    settings, _ = journal
    assert settings.snippet_dirs == (settings.root / "snippets",)
    assert settings.mdx_configs["pymdownx.snippets"]["base_path"] == [str(settings.root / "snippets")]
    assert settings.blog.categories_allowed == ("Attention",) and settings.blog.excerpt_required
    assert settings.is_post(settings.root / "docs/blog/posts/x.md") and not settings.is_post(settings.root / "docs/x.md")


def test_markdown_key_holds_no_checkout_path(journal, tmp_path_factory):
    """The notebook cache keys on it: the same mkdocs.yml in another folder gives the same key."""

    settings, _ = journal
    elsewhere = tmp_path_factory.mktemp("moved")
    (elsewhere / "mkdocs.yml").write_bytes((settings.root / "mkdocs.yml").read_bytes())
    (elsewhere / "docs").mkdir()
    moved = mkdocs_config.load(elsewhere / "mkdocs.yml")
    assert str(settings.root) not in settings.markdown_key()
    assert "'base_path': ['<project>/snippets']" in settings.markdown_key()
    assert moved.markdown_key() == settings.markdown_key()


def test_front_matter_lines_come_from_the_yaml_nodes():
    fm = frontmatter.read("---\ntitle: t\ndate:\n  created: 2025-07-27\ncategories:\n  - A\n  - B\n---\nbody\n", "p.md")
    assert fm.lines["date.created"] == 4 and fm.lines["categories.1"] == 7 and fm.body_line == 9
    with pytest.raises(frontmatter.FrontMatterError, match=r"^p\.md:3: '2025-02-30' is not a real date"):
        frontmatter.read("---\ntitle: t\ndate: 2025-02-30\n---\n", "p.md")


@pytest.mark.parametrize("text, message", [
    ("# no front matter\n", r"p\.md:1: post has no front matter"),
    ("---\ntitle: t\n---\n", r"p\.md:1: post has no date"),
    ("---\ndate: 2025-7-1\n---\n", r"p\.md:2: date '2025-7-1' is not a YYYY-MM-DD date"),
    ("---\ndate: 2025-07-01\ncategories:\n  - Attention\n  - Gossip\n---\n", r"p\.md:5: category 'Gossip'"),
    ("---\ndate: 2025-07-01\n---\n# T\n\nFirst paragraph\nstill.\n\nMore.\n", r"p\.md:8: post has no excerpt separator"),
    # What the blog plugin would refuse with the file only, at the line:
    ("---\ndate: '2025-07-01'\n---\n", r"p\.md:2: date '2025-07-01' is quoted"),
    ("---\ndate: 2025-07-01\ncategories: Attention\n---\n", r"p\.md:3: categories: Expected a list of items"),
    ("---\ndate: 2025-07-01\ncategories: 7\n---\n", r"p\.md:3: categories: Expected a list of items"),
    ("---\ndate: 2025-07-01\nreadtime: soon\n---\n", r"p\.md:3: readtime: Expected type"),
    ("---\ndate: 2025-07-01\n\n# T\n", r"p\.md:1: front matter opened here is never closed"),
    ("+++\ndate: 2025-07-01\n---\n", r"p\.md:1: post has no front matter"),  # MkDocs reads only ---
])
def test_post_checks_name_the_line(journal, text, message):
    settings, _ = journal
    with pytest.raises(frontmatter.FrontMatterError, match=message):
        check_post(text, "p.md", settings, blog.post_errors)


def test_front_matter_is_read_as_the_build_reads_it():
    text = "---\nbase: &b {date: 2025-07-01, draft: true}\n<<: *b\ndraft: false\n---\n"
    fm = frontmatter.read(text, "p.md")
    assert fm.data == yaml.safe_load(text.split("---")[1])  # merged as PyYAML merges
    assert fm.lines["date"] == 2 and fm.lines["draft"] == 4  # a merged key: its anchor's line
    for text, message in [("---\ndate: 2025-07-01\ndate: 2025-07-02\n---\n", r"^p\.md:3: 'date' is given twice \(also at line 2\)"),
                          ("---\n? [a, b]\n: 1\n---\n", r"^p\.md:2: a key must be a plain name"),
                          ("---\n<<: 3\n---\n", r"^p\.md:2: front matter is not valid YAML")]:
        with pytest.raises(frontmatter.FrontMatterError, match=message):
            frontmatter.read(text, "p.md")


def test_page_text_is_read_as_mkdocs_reads_it(tmp_path):
    page = tmp_path / "p.md"
    page.write_bytes(b"\xef\xbb\xbf---\r\ndate: 2025-07-01\r\n---\rbody\n")
    assert read_source(page, "p.md") == "---\ndate: 2025-07-01\n---\nbody\n"
    page.write_bytes(b"one\r\ntwo\rthr\xc3e\n")
    with pytest.raises(SourceError, match=r"^p\.md:3: not UTF-8 text: byte 0xc3 at column 4"):
        read_source(page, "p.md")


def test_fence_closes_only_on_its_own_run_at_its_own_indent():
    # superfences' end pattern is the opening run itself: a longer or an indented run is code.
    lines = "```python\nx\n````\n  ```\n```\n".split("\n")
    assert [(f.start, f.end) for f in fences.scan(lines)] == [(0, 4)]
    with pytest.raises(fences.FenceError):
        fences.scan("  ~~~python\n  x\n~~~\n".split("\n"))


def test_fence_scanner_backticks_tildes_and_nesting():
    lines = "````md\n```python\nnot a fence\n```\n````\n~~~py title=\"a.py\"\nx\n~~~\n    ```bash\n    ls\n    ```\n".split("\n")
    found = fences.scan(lines)
    assert [(f.start, f.end, f.lang, f.indent) for f in found] == [(0, 4, "md", 0), (5, 7, "py", 0), (8, 10, "bash", 4)]
    assert found[2].code(lines) == "ls\n"


def test_include_expander_names_page_and_line(journal):
    settings, _ = journal
    page = expand('a\n--8<-- "demo.py:two"\n', "docs/p.md", settings)
    assert page.lines == ["a", "x = 2"]
    with pytest.raises(IncludeError, match=r"^docs/p\.md:2: snippet include failed"):
        expand('a\n--8<-- "nope.py"\n', "docs/p.md", settings)
    with pytest.raises(IncludeError, match=r"^docs/p\.md:1: snippet include failed"):
        expand('--8<-- "../mkdocs.yml"\n', "docs/p.md", settings)


@pytest.mark.parametrize("include, hint", [
    ('--8<-- "demo.py:three"', r"\(snippets/demo\.py has the sections: two\)$"),
    ('--8<-- "demo.py:tow"', r"\(did you mean 'two'\? snippets/demo\.py has the sections: two\)$"),
    ('--8<-- "dmeo.py"', r"\(did you mean 'demo\.py'\?\)$"),
    ('--8<-- "zzz.txt"', r"\(files in snippets/: demo\.py\)$"),
    ('--8<-- "../mkdocs.yml"', r"\(includes name files under snippets/; '\.\./mkdocs\.yml' is outside\)$"),
    ('-8<-\ndemo.py:three\n-8<-', r"^docs/p\.md:1: .*\(snippets/demo\.py has the sections: two\)$"),
])
def test_include_errors_say_what_would_help(journal, include, hint):
    settings, _ = journal
    with pytest.raises(IncludeError, match=hint):
        expand(include + "\n", "docs/p.md", settings)


def test_link_warnings_get_the_file_and_line(journal):
    from journal_tools.compat.mkdocs_log import locate_link

    settings, write = journal
    write("p.md", "# P\n\nText.\n\nSee [x](nope.md) and [y][ref].\n\n[ref]: ../gone.md#a\n")
    found = "Doc file 'p.md' contains a link 'nope.md', but the target is not found among documentation files."
    assert locate_link(found, settings.docs_dir, settings.root) == "docs/p.md:5: " + found
    ref = "Doc file 'p.md' contains a link '../gone.md#a', but the target '../gone.md' is not found among documentation files."
    assert locate_link(ref, settings.docs_dir, settings.root) == "docs/p.md:7: " + ref
    other = "Doc file 'p.md' contains an unrecognized relative link 'x/', it was left as is."
    assert locate_link(other, settings.docs_dir, settings.root) == other  # not written on the page: unchanged
    assert locate_link("Something else", settings.docs_dir, settings.root) == "Something else"


POST = "---\ndate: {date}\n{extra}---\n\n# {title}\n\nText.\n"


def test_two_posts_with_one_address_fail_once_at_the_later(journal):
    """One date and slug is one page of the site: the later post by file name fails at the line giving its slug, naming the first."""
    from journal_tools.core.record.validate import check_address

    settings, write = journal
    posts = {name: write(f"blog/posts/{name}.md", POST.format(date=date, extra=extra, title=title)) for name, date, extra, title in [
        ("2026-01-05-softmax", "2026-01-05", "", "Softmax by hand"),
        ("2026-01-05-softmax-2", "2026-01-05", "", "Softmax by Hand"),  # a copy: the same slug
        ("2026-01-06-softmax", "2026-01-06", "", "Softmax by hand"),  # another day: another address
        ("2026-01-05-zeta", "2026-01-05", "slug: softmax-by-hand\n", "Zeta"),  # its slug: says so
        ("2026-01-05-own", "2026-01-05", "slug: own-slug\n", "Softmax by hand"),
        ("2026-01-05-twice", "\n  created: 2026-01-05\n  updated: 2026-02-01", "", "Softmax by hand"),  # no plain date line
    ]}
    for name in ("2026-01-05-softmax", "2026-01-06-softmax", "2026-01-05-own"):
        check_address(posts[name], settings)
    for name, line, what in [("2026-01-05-softmax-2", 5, "# Softmax"), ("2026-01-05-zeta", 3, "slug:"), ("2026-01-05-twice", 7, "# ")]:
        with pytest.raises(frontmatter.FrontMatterError) as info:
            check_address(posts[name], settings)
        assert str(info.value).startswith(f"docs/blog/posts/{name}.md:{line}: this entry's address blog/2026/01/05/softmax-by-hand/ is also "
                                          "docs/blog/posts/2026-01-05-softmax.md's (the same date and slug)"), str(info.value)
        assert posts[name].read_text(encoding="utf-8").split("\n")[line - 1].startswith(what)
    # make serve's next build (new settings): a post saved since is read again, the others are not
    moved = posts["2026-01-06-softmax"]  # to the day before: the same size, another time
    moved.write_text(moved.read_text(encoding="utf-8").replace("2026-01-06", "2026-01-05"), encoding="utf-8")
    with pytest.raises(frontmatter.FrontMatterError, match=r"^docs/blog/posts/2026-01-06-softmax\.md:5: this entry's address"):
        check_address(moved, dataclasses.replace(settings))
