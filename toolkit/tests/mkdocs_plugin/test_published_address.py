"""A build for publishing (JOURNAL_PUBLISH=1) stops at the mkdocs.yml line of an address that is a placeholder or local;
any other build, and a real address, pass (mkdocs_plugin/published_address.py)."""

from __future__ import annotations

import pytest

from journal_tools.mkdocs_plugin import published_address

CONFIG = 'site_name: J\nsite_url: !ENV [SITE_URL, "http://127.0.0.1:8000/j/"]\nrepo_url: !ENV [REPO_URL, "https://github.com/example/j"]\n'


@pytest.mark.parametrize(("url", "what"), [
    ("http://127.0.0.1:8000/j/", "127.0.0.1"), ("https://example.github.io/j/", "example.github.io"),
    ("https://docs.example.com/", "docs.example.com"), ("http://localhost:8000/", "localhost"),
    ("https://github.com/example/j", "github.com/example"), ("", "no host"),
    ("https://ada.github.io/j/", None), ("https://github.com/ada/j", None), ("https://example.gitlab.io.ada.dev/", None),
])
def test_placeholder_hosts(url, what):
    assert published_address.placeholder(url) == what


def test_a_publishing_build_names_each_placeholder_at_its_line(tmp_path, monkeypatch):
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text(CONFIG, encoding="utf-8")
    local = {"site_url": "http://127.0.0.1:8000/j/", "repo_url": "https://github.com/example/j"}
    monkeypatch.delenv(published_address.ENV, raising=False)
    assert published_address.problems(local, config_file) == []  # a local build: the local address is right
    monkeypatch.setenv(published_address.ENV, "1")
    site, repo = published_address.problems(local, config_file)
    assert site.startswith("mkdocs.yml:2: site_url http://127.0.0.1:8000/j/ is a placeholder (127.0.0.1), and this build is for "
                           "publishing (JOURNAL_PUBLISH=1): set SITE_URL")
    assert repo.startswith("mkdocs.yml:3: repo_url https://github.com/example/j is a placeholder (github.com/example)")
    assert published_address.problems({"site_url": "https://ada.github.io/j/", "repo_url": "https://github.com/ada/j"}, config_file) == []
