"""What the end of a pytest run says of failures and of the skips they cause.

- pytest's short summary line (``FAILED <node id> - <message>``) cuts the message to the
  terminal's width, and a page's node id (``docs/blog/posts/<date>-<slug>.md::page``) took
  half of it: ``FAILED …md::page - docs/blog/p...``. A failure whose message starts with
  that same file's ``path:line:`` (every mistake of a page: ``core/mistake.py``) is shown
  with the test's name alone (``FAILED ::page - docs/blog/posts/x.md:38: snippet include
  failed: ...``), so the line gives the message, not the path twice.
- A failure often makes other tests skip, each naming the test that says why (the checks
  of the built site name ``test_docs_build``, which names the page test of the mistake it
  stopped at). pytest only counts them ("34 skipped"). One line per failure says how many
  checks skipped because of it, and why: ``34 checks skipped: docs/ did not build, so
  there is no site to look at (docs/blog/posts/x.md::page says why)``.
"""

from __future__ import annotations

import copy
import re

__all__ = ["shorten_located_failures", "skips_caused_by_failures"]

def shorten_located_failures(stats: dict) -> None:
    """In ``stats["failed"]`` (what the short summary reads, after every other section is written),
    each failure located in its own test file, by a copy of it named by the test's name alone."""
    shown = []
    for report in stats.get("failed", []):
        path, _, name = report.nodeid.partition("::")
        message = report.longrepr if isinstance(report.longrepr, str) else ""
        if name and re.match(rf"{re.escape(path)}:\d+: ", message):
            report = copy.copy(report)
            report.nodeid = f"::{name}"
        shown.append(report)
    if "failed" in stats:
        stats["failed"] = shown


def skips_caused_by_failures(stats: dict) -> list[str]:
    """One line per failure that made checks skip: how many, why, and which failing test says why.
    A skip names the test it defers to (any test of the run, found in its reason); a skip naming a
    test that itself skipped naming another is followed to the failure."""
    reports = [r for key in ("passed", "failed", "skipped", "error") for r in stats.get(key, []) if hasattr(r, "nodeid")]
    ids = sorted({r.nodeid for r in reports if "::" in r.nodeid}, key=len, reverse=True)  # the longest match first
    reasons = {r.nodeid: _reason(r) for r in stats.get("skipped", []) if hasattr(r, "nodeid")}
    failed = {r.nodeid for key in ("failed", "error") for r in stats.get(key, []) if hasattr(r, "nodeid")}

    def named(reason: str) -> str | None:
        return next((i for i in ids if i in reason), None)

    groups: dict[tuple[str, str], int] = {}
    for nodeid, reason in reasons.items():
        test, seen = named(reason), {nodeid}
        while test in reasons and test not in seen:  # a test that skipped because of another
            seen.add(test)
            test = named(reasons[test])
        if test in failed:
            key = (re.split(r": |; |, which ", reason, maxsplit=1)[0], test)
            groups[key] = groups.get(key, 0) + 1
    return [f"{n} check{'s' if n > 1 else ''} skipped: {why} ({test} says why)" for (why, test), n in groups.items()]


def _reason(report) -> str:
    """A skip's reason (pytest keeps it as (path, line, "Skipped: reason"))."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
    return text.removeprefix("Skipped: ")
