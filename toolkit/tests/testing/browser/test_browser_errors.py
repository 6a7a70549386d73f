"""A browser library's error in a check of the built site fails at the page it was on (testing/fixtures.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from journal_tools.testing import fixtures


def test_a_playwright_timeout_fails_naming_the_page_source_and_url(browser, tmp_path):
    (tmp_path / "blog" / "x").mkdir(parents=True)
    (tmp_path / "blog" / "x" / "index.html").write_text("<!doctype html><title>x</title><p>no box here</p>", encoding="utf-8")
    server = fixtures.Server(tmp_path, "/j/")
    visit = fixtures.Visit(browser, server, locate=lambda rel: f"docs/{rel.removesuffix('/index.html')}.md:1")
    item = SimpleNamespace(stash=pytest.Stash())
    item.stash[fixtures.VISITS] = [visit]
    hook = fixtures.pytest_pyfunc_call(item)
    next(hook)
    try:
        visit.page.goto(server.url("blog/x/"), wait_until="load")
        with pytest.raises(Exception) as raised:  # what a check meets: a box it waits for is not there
            visit.page.locator("#wide-box").screenshot(timeout=300)
        with pytest.raises(pytest.fail.Exception) as failed:
            hook.throw(raised.value)
    finally:
        visit.close()
        server.close()
    said = str(failed.value)
    assert said.startswith(f"docs/blog/x.md:1: the browser check stopped on {server.url('blog/x/')}: TimeoutError: "
                           "Locator.screenshot: Timeout 300ms exceeded."), said
    assert "Call log" not in said
    with pytest.raises(ValueError):  # anything else goes through as it is
        hook = fixtures.pytest_pyfunc_call(item)
        next(hook)
        hook.throw(ValueError("ours"))
