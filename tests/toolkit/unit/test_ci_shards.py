"""The Pages workflow's page-test shards: its plan step, run as CI runs it, and a
dry run of the split it asks for over a synthetic journal; the shards' verified
records merged for the build."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import yaml

from journal_tools.core import verified
from journal_tools.pagetest import shard

WORKFLOW = Path(__file__).resolve().parents[3] / ".github" / "workflows" / "pages.yml"


def _plan(n: str) -> dict[str, str]:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    (step,) = workflow["jobs"]["plan"]["steps"]
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"plan-output-{os.getpid()}"
    env = dict(os.environ, PAGE_TEST_SHARDS=n, GITHUB_OUTPUT=str(out))
    subprocess.run(["bash", "-c", step["run"]], env=env, check=True)
    lines = out.read_text(encoding="utf-8").splitlines()
    out.unlink()
    return dict(line.split("=", 1) for line in lines)


def test_setting_is_one_job_by_default():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert workflow["env"]["PAGE_TEST_SHARDS"] == "1"
    assert _plan("1") == {"shards": '["1/1"]', "sharded": "false"}


def test_dry_run_of_the_split_over_a_synthetic_journal(journal):
    settings, write = journal
    for i in range(40):
        write(f"p{i:02d}.md", f"# Page {i}\n\n" + "```python\nx = 1\n```\n\n" * (1 + i % 5))
    plan = _plan("4")
    assert plan["sharded"] == "true"
    specs = json.loads(plan["shards"])
    assert specs == ["1/4", "2/4", "3/4", "4/4"]
    groups = [shard.split(shard.pages(settings), shard.parse_spec(s)[1])[shard.parse_spec(s)[0] - 1] for s in specs]
    every = [p for g in groups for p in g]
    assert sorted(every) == shard.pages(settings) and len(every) == len(set(every))
    loads = [sum(shard.weight(p) for p in g) for g in groups]
    assert max(loads) - min(loads) <= 6


def test_shard_records_merge_for_the_build(journal, tmp_path):
    settings, _ = journal
    entry = dict(digest="d", blocks=2, numbers=3, torch="2.13.0", date="2026-11-30", notebook=False)
    for k in (1, 2):
        record = {"version": verified._VERSION, "pages": {f"docs/p{k}.md": entry}}
        (tmp_path / f"r{k}.json").write_text(json.dumps(record), encoding="utf-8")
    assert verified.merge_files(settings, [tmp_path / "r1.json", tmp_path / "r2.json"]) == 2
    assert set(verified.read_record(settings)) == {"docs/p1.md", "docs/p2.md"}
