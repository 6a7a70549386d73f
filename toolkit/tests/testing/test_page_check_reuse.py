"""journal_tools/testing/page_check_reuse.py: a page check is reused only while the page and every site file it
loaded have the bytes they had when it passed, for the same test code; FRESH=1 and CI check all."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from journal_tools.testing import page_check_reuse
from journal_tools.testing.page_check_reuse import PageChecks


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.setattr(page_check_reuse, "ROOT", tmp_path / "journal")
    monkeypatch.delenv("FRESH", raising=False)
    monkeypatch.delenv("CI", raising=False)
    root = tmp_path / "site"
    (root / "blog").mkdir(parents=True)
    (root / "blog" / "index.html").write_text("<link rel=stylesheet href=../style.css>page", encoding="utf-8")
    (root / "style.css").write_text("p { color: #333 }", encoding="utf-8")
    (root / "search").mkdir()
    (root / "search" / "search_index.json").write_text("{}", encoding="utf-8")
    test = tmp_path / "test_x.py"
    test.write_text("def test_x(): ...\n", encoding="utf-8")
    return root, test


def checks(site, nodeid: str = "test_x.py::test_x[light]") -> PageChecks:
    root, test = site
    request = SimpleNamespace(path=test, node=SimpleNamespace(nodeid=nodeid, user_properties=[]))
    return PageChecks(request, root, "/j/", "chromium 1")


LOADED = ["http://127.0.0.1:1/j/blog/index.html", "http://127.0.0.1:1/j/style.css", "http://127.0.0.1:1/j/search/search_index.json"]


def test_a_passed_check_is_reused_while_nothing_it_loaded_changed(site, monkeypatch):
    root, test = site
    first = checks(site)
    assert first.reused("blog/index.html") is None
    first.passed("blog/index.html", LOADED, {"formulas": 3})
    again = checks(site)
    assert again.reused("blog/index.html") == {"formulas": 3}
    assert again.request.node.user_properties == [(page_check_reuse.PROPERTY, "blog/index.html")]
    assert "1 of 1 pages reused" in again.note()

    (root / "search" / "search_index.json").write_text('{"docs": []}', encoding="utf-8")  # not drawn by a check
    assert checks(site).reused("blog/index.html") == {"formulas": 3}
    monkeypatch.setenv("FRESH", "1")
    assert checks(site).reused("blog/index.html") is None
    monkeypatch.delenv("FRESH")
    monkeypatch.setenv("CI", "true")  # a pull request's run: the restored record holds
    assert checks(site).reused("blog/index.html") == {"formulas": 3}
    monkeypatch.delenv("CI")
    assert checks(site, "test_x.py::test_x[dark]").reused("blog/index.html") is None  # another parameter
    (root / "style.css").write_text("p { color: #eee }", encoding="utf-8")  # a stylesheet it loaded
    assert checks(site).reused("blog/index.html") is None


def test_the_page_and_the_test_code_are_in_the_key(site):
    root, test = site
    checks(site).passed("blog/index.html", LOADED)
    test.write_text("def test_x(): assert False\n", encoding="utf-8")
    assert checks(site).reused("blog/index.html") is None
    checks(site).passed("blog/index.html", LOADED)
    (root / "blog" / "index.html").write_text("<link rel=stylesheet href=../style.css>edited", encoding="utf-8")
    assert checks(site).reused("blog/index.html") is None
    ch = checks(site)
    ch.key_also(b"another oracle font")
    assert ch.reused("blog/index.html") is None
