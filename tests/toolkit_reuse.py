"""`make test` pays for what changed: the toolkit's tests are skipped while none of
their inputs changed since they last all passed.

Keyed by inputs as Bazel (``--cache_test_results``) and Pants cache test results:
the digest is sha256 over the toolkit's input files (tests/suite_parts.py
TOOLKIT_INPUTS, each path with its bytes, in sorted order), the Python version
and every installed distribution with its version (MkDocs, Material,
mkdocs-jupyter, pymdown-extensions, Markdown, pytest and its plugins among
them). pytest-testmon was not used: it selects by coverage of Python lines, so
it misses data files (its #178) and the subprocess builds most toolkit tests run.

- Reuse happens only in the shape `make test` runs (default test paths, no
  selection option), with a record whose digest is the current one, FRESH and
  CI unset. The toolkit's tests are then deselected and the terminal summary
  says so in one line.
- The record (.cache/test-results/toolkit.json: digest, counts, date) is
  written only by a run of that shape in which every collected toolkit test
  was reported passed or skipped, pytest exited 0, and the inputs still have
  the digest they had at the start. So -k, a file argument, --lf, --shard, a
  failure or an interrupted run never write it. Under pytest-xdist the
  controller decides once (passed to the workers) and writes it once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sys
from importlib import metadata
from pathlib import Path

import pytest
from suite_parts import JOURNAL_FIXTURES, TOOLKIT_INPUTS, TOOLKIT_OUTPUTS, is_journal

from journal_tools.core.settings import env_flag

RECORD = Path(".cache") / "test-results" / "toolkit.json"
_SKIP_PARTS = {"__pycache__", ".pytest_cache"}
# Options that run part of the suite, or do something else than run it: such a run
# neither reuses the record nor writes it. (name in config.option, as typed)
PARTIAL_OPTIONS = {
    "keyword": "-k", "markexpr": "-m", "lf": "--lf", "deselect": "--deselect", "ignore": "--ignore",
    "ignore_glob": "--ignore-glob", "stepwise": "--sw", "stepwise_skip": "--sw-skip", "shard": "--shard",
    "update_outputs": "--update-outputs", "collectonly": "--collect-only",
}
_WORKER_KEY = "toolkit_reuse"


def input_files(root: Path) -> list[str]:
    """The toolkit's input files under ``root``, as sorted paths relative to it."""
    found = set()
    for entry in TOOLKIT_INPUTS:
        top = root / entry
        paths = [top] if top.is_file() else (p for p in top.rglob("*") if p.is_file()) if top.is_dir() else []
        for path in paths:
            rel = path.relative_to(root).as_posix()
            if _SKIP_PARTS.isdisjoint(path.relative_to(root).parts) and not path.name.endswith(".pyc") \
                    and not (entry == "tests/" and is_journal(rel)) and not rel.startswith(TOOLKIT_OUTPUTS):
                found.add(rel)
    return sorted(found)


def environment() -> list[str]:
    """The Python version and every installed distribution (name==version), sorted."""
    dists = {f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"]}
    return [f"python {sys.version}", *sorted(dists, key=str.lower)]


def digest(root: Path) -> str:
    """sha256 over the toolkit's inputs under ``root`` and the environment."""
    h = hashlib.sha256()
    for rel in input_files(root):
        data = (root / rel).read_bytes()
        h.update(f"file {rel} {len(data)}\n".encode())
        h.update(data)
    for line in environment():
        h.update(f"env {line}\n".encode())
    return h.hexdigest()


def read_record(root: Path) -> dict | None:
    """The last full toolkit run's record, or None (none, or unreadable)."""
    try:
        record = json.loads((root / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and {"digest", "passed", "date"} <= record.keys() else None


def write_record(root: Path, record: dict) -> None:
    """Write ``record`` so that a reader sees the old one or the new one, never half of one."""
    path = root / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)


def partial_reason(config: pytest.Config) -> str | None:
    """Why this run is not the whole suite as `make test` runs it (None: it is)."""
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return "paths given (" + " ".join(config.args) + ")"
    for name, flag in PARTIAL_OPTIONS.items():
        if getattr(config.option, name, None):
            return flag
    return None


def decide(config: pytest.Config) -> dict:
    """What this session does with the toolkit's tests: {reuse, digest, record, why}."""
    root = config.rootpath
    partial = partial_reason(config)
    current = None if partial else digest(root)
    record = None if partial else read_record(root)
    if partial:
        why = f"partial run ({partial}): no record written"
    elif env_flag("FRESH") or env_flag("CI"):
        why = "FRESH" if env_flag("FRESH") else "CI"
    elif record is None:
        why = "no record"
    elif record["digest"] != current:
        why = "inputs changed"
    else:
        return {"reuse": True, "digest": current, "record": record, "why": "inputs unchanged"}
    return {"reuse": False, "digest": current, "record": record, "why": why, "partial": bool(partial)}


class ToolkitReuse:
    """The plugin (one per session; registered by tests/conftest.py)."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.root = config.rootpath
        worker = getattr(config, "workerinput", None)
        self.decision = worker[_WORKER_KEY] if worker else decide(config)
        self.collected: set[str] = set()  # toolkit test ids this session runs
        self.outcomes: dict[str, str] = {}  # toolkit test id -> passed / skipped / failed
        self.written: dict | None = None

    def _toolkit(self, nodeid: str) -> bool:
        return not is_journal(nodeid)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node):
        """xdist controller: the workers follow the controller's one decision."""
        node.workerinput[_WORKER_KEY] = self.decision

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        """Refuse a toolkit test reading the session build of docs/; deselect the toolkit when reused."""
        wrong = [i.nodeid for i in items if self._toolkit(i.nodeid) and set(JOURNAL_FIXTURES) & set(getattr(i, "fixturenames", ()))]
        if wrong:
            raise pytest.UsageError(f"{wrong[0]}: uses the build of docs/ ({'/'.join(JOURNAL_FIXTURES)}) but is not "
                                    "in the journal part: list its file in tests/suite_parts.py JOURNAL")
        if self.decision["reuse"]:
            keep = [i for i in items if not self._toolkit(i.nodeid)]
            config.hook.pytest_deselected(items=[i for i in items if self._toolkit(i.nodeid)])
            items[:] = keep

    def pytest_collection_finish(self, session):
        """Single process: the toolkit tests this session will run."""
        self.collected |= {i.nodeid for i in session.items if self._toolkit(i.nodeid)}

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):
        """xdist controller: every worker collects the same tests; keep the union."""
        self.collected |= {i for i in ids if self._toolkit(i)}

    def pytest_runtest_logreport(self, report):
        """Tally each toolkit test's outcome (a failure in any phase wins)."""
        if not self._toolkit(report.nodeid) or self.outcomes.get(report.nodeid) == "failed":
            return
        if report.failed:
            self.outcomes[report.nodeid] = "failed"
        elif report.skipped:
            self.outcomes[report.nodeid] = "skipped"
        elif report.when == "call":
            self.outcomes.setdefault(report.nodeid, "passed")

    def pytest_sessionfinish(self, session, exitstatus):
        """Record a full, passing toolkit run (controller or single process only)."""
        if hasattr(self.config, "workerinput") or self.decision["reuse"] or self.decision.get("partial"):
            return
        counts = {k: sum(v == k for v in self.outcomes.values()) for k in ("passed", "skipped", "failed")}
        complete = self.collected and set(self.outcomes) == self.collected and counts["failed"] == 0
        if exitstatus != 0 or not complete or digest(self.root) != self.decision["digest"]:
            return
        self.written = {"digest": self.decision["digest"], "passed": counts["passed"], "skipped": counts["skipped"],
                        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
        write_record(self.root, self.written)

    def pytest_terminal_summary(self, terminalreporter):
        """One line on what happened to the toolkit's tests."""
        if hasattr(self.config, "workerinput"):
            return
        d = self.decision
        if d["reuse"]:
            r = d["record"]
            skipped = f" ({r['skipped']} skipped)" if r.get("skipped") else ""
            terminalreporter.write_line(f"toolkit: {r['passed']} tests passed{skipped} at {d['digest'][:12]} on {r['date']}, "
                                        "inputs unchanged; FRESH=1 re-runs them")
        elif self.written:
            terminalreporter.write_line(f"toolkit: {self.written['passed']} tests passed at {d['digest'][:12]} ({d['why']}); "
                                        "recorded: the next run reuses this while the inputs are unchanged")
        elif d.get("partial"):
            terminalreporter.write_line(f"toolkit: {d['why']}")
        else:
            terminalreporter.write_line(f"toolkit: ran ({d['why']}); not recorded: a test failed or did not run, "
                                        "or an input changed during the run")
