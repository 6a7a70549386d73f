"""make serve's recent window (journal_tools/serve/window.py): which entries it serves, and POSTS read once."""

from __future__ import annotations

import os

import pytest
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from journal_tools.serve import window


def _post(day: str, links: str = "", pin: bool = False) -> str:
    return f"---\ndate: 2025-01-{day}\n{'pin: true' if pin else ''}\n---\n\n# Entry {day}\n\nHead.{links}\n\n<!-- more -->\n"


def _files(journal, posts: dict[str, str]) -> Files:
    settings, write = journal
    write("index.md", "# Home\n")
    files = [File("index.md", str(settings.docs_dir), "/site", True)]
    for name, text in posts.items():
        write(f"blog/posts/{name}", text)
        files.append(File(f"blog/posts/{name}", str(settings.docs_dir), "/site", True))
    return Files(files)


def _served(files: Files) -> set[str]:
    return {f.src_uri.removeprefix("blog/posts/") for f in files.documentation_pages()}


def test_the_window_keeps_the_most_recent_the_saved_and_the_linked(journal):
    settings, write = journal
    files = _files(journal, {"a.md": _post("01"), "b.md": _post("02"), "c.md": _post("03", pin=True),
                             "d.md": _post("04", " See [b](b.md#head) and [home](../../index.md)."), "e.md": _post("05")})
    win = window.Window(2)
    note = win.apply(files, "blog/posts")
    # c is pinned (first, as the blog orders), e the newest; d is left out, so b (linked from d) is too.
    assert _served(files) == {"index.md", "c.md", "e.md"}
    assert note == "Serving the 2 most recent of 5 entries; `make serve POSTS=all` serves them all"

    write("blog/posts/d.md", _post("04", " See [b](b.md#head)."))  # saved since the start
    os.utime(settings.docs_dir / "blog/posts/d.md", ns=(1, 1))
    files = _files(journal, {})
    files.append(File("blog/posts/d.md", str(settings.docs_dir), "/site", True))
    for name in "abce":
        files.append(File(f"blog/posts/{name}.md", str(settings.docs_dir), "/site", True))
    note = win.apply(files, "blog/posts")
    assert _served(files) == {"index.md", "b.md", "c.md", "d.md", "e.md"}
    assert note.startswith("Serving the 2 most recent of 5 entries, plus 2 saved since the start or linked;")


def test_an_entry_whose_date_cannot_be_read_is_served_for_the_build_to_report(journal):
    settings, _ = journal
    files = _files(journal, {"a.md": _post("01"), "b.md": _post("02"), "bad.md": _post("02").replace("01-02", "02-30"),
                             "worse.md": "---\ndate: [\n---\n"})
    window.Window(1).apply(files, "blog/posts")
    assert _served(files) == {"index.md", "bad.md", "worse.md", "b.md"}


def test_a_window_as_large_as_the_journal_leaves_nothing_out(journal):
    settings, _ = journal
    files = _files(journal, {"a.md": _post("01"), "b.md": _post("02")})
    assert window.Window(2).apply(files, "blog/posts") is None and len(_served(files)) == 3


@pytest.mark.parametrize(("value", "size"), [("", window.DEFAULT), ("7", 7), ("all", None), (" ALL ", None)])
def test_posts_is_a_number_or_all(value, size):
    assert window.size({window.ENV: value}) == size


@pytest.mark.parametrize("value", ["0", "-3", "ten", "2.5"])
def test_a_bad_posts_value_names_the_variable(value):
    with pytest.raises(PluginError, match=rf"^JOURNAL_POSTS='{value}' \(make serve POSTS={value}\): give a number"):
        window.size({window.ENV: value})
