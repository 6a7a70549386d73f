"""The build date (journal_tools/mkdocs_plugin/build_date.py): HEAD's commit time, or one date per serve session outside git."""

from __future__ import annotations

import subprocess

from journal_tools.mkdocs_plugin import build_date as reproducible


def test_outside_git_serve_keeps_one_date_and_build_pins_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))  # tmp_path is no checkout
    reproducible.pin_build_date(tmp_path)
    assert "SOURCE_DATE_EPOCH" not in reproducible.os.environ  # make build: the time it ran

    clock = iter([1_800_000_000.0, 1_800_000_007.0])
    monkeypatch.setattr(reproducible.time, "time", lambda: next(clock))
    reproducible.pin_build_date(tmp_path, serving=True)  # the first build of make serve
    reproducible.pin_build_date(tmp_path, serving=True)  # a rebuild, seven seconds later
    assert reproducible.os.environ["SOURCE_DATE_EPOCH"] == "1800000000"


def test_in_a_checkout_the_date_is_the_last_commit(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    env = {"GIT_AUTHOR_DATE": "@1753574400 +0000", "GIT_COMMITTER_DATE": "@1753574400 +0000",
           "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@example.org", "PATH": reproducible.os.environ["PATH"]}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=tmp_path, check=True, env=env)
    reproducible.pin_build_date(tmp_path, serving=True)
    assert reproducible.os.environ["SOURCE_DATE_EPOCH"] == "1753574400"
