"""Splitting the page tests across CI jobs (journal_tools/pagetest/shard.py, pytest --shard I/N)."""

from __future__ import annotations

from pathlib import Path

import pytest

from journal_tools.pagetest import shard


def test_split_is_deterministic_balanced_and_complete():
    paths = [Path(f"docs/p{i:03d}.md") for i in range(100)]
    weights = {p: 1 + (i % 7) for i, p in enumerate(paths)}
    groups = shard.split(paths, 4, weigh=weights.get)
    assert groups == shard.split(list(reversed(paths)), 4, weigh=weights.get)  # order of input does not matter
    assert sorted(p for g in groups for p in g) == sorted(paths)  # every page once
    loads = [sum(weights[p] for p in g) for g in groups]
    assert max(loads) - min(loads) <= max(weights.values())


@pytest.mark.parametrize("spec", ["0/4", "5/4", "2", "a/b", ""])
def test_bad_shard_specs_are_refused(spec):
    with pytest.raises(shard.ShardError, match="I/N"):
        shard.parse_spec(spec)


def test_shards_cover_a_journal_once(journal):
    settings, write = journal
    for i in range(6):
        write(f"p{i}.md", "# P\n\n```python\nx = 1\n```\n" * (i + 1))
    all_pages = shard.pages(settings)
    groups = [shard.split(all_pages, 3)[k] for k in range(3)]
    assert sorted(p for g in groups for p in g) == all_pages
    assert all(groups)
    assert shard.weight(settings.docs_dir / "p5.md") == 1 + 6
