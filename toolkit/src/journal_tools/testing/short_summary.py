"""What the end of a pytest run says of failures and of the skips they cause.

- pytest's short summary line (``FAILED <node id> - <message>``) cuts the message to the
  terminal's width, and a page's node id (``docs/blog/posts/<date>-<slug>.md::page``) took
  half of it: ``FAILED …md::page - docs/blog/p...``. A failure whose message starts with
  that same file's ``path:line:`` (every mistake of a page: ``core/mistake.py``) is taken out
  of pytest's summary and written after it, node id and whole first line wrapped to the
  terminal's width (``FAILED docs/blog/posts/x.md::page - docs/blog/posts/x.md:38: snippet
  include failed: ...``, the rest on indented lines): the file named, the message whole.
- A failure often makes other tests skip, each naming the test that says why (the checks
  of the built site name ``test_docs_build``, which names the page test of the mistake it
  stopped at). pytest only counts them ("34 skipped"). One line per failure says how many
  checks skipped because of it, and why: ``34 checks skipped: docs/ did not build, so
  there is no site to look at (docs/blog/posts/x.md::page says why)``.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["located_lines", "skips_caused_by_failures", "take_located_failures", "unique_errors"]

def take_located_failures(stats: dict) -> list:
    """Take failures located in their own test file out of ``stats["failed"]``, for :func:`located_lines` (the caller restores them)."""
    located, rest = [], []
    for report in stats.get("failed", []):
        path, _, name = report.nodeid.partition("::")
        message = report.longrepr if isinstance(report.longrepr, str) else ""
        (located if name and re.match(rf"{re.escape(path)}:\d+: ", message) else rest).append(report)
    if "failed" in stats:
        stats["failed"] = rest
    return located


def located_lines(reports: list, width: int) -> list[str]:
    """``FAILED <node id> - <the message's first line>``, wrapped to ``width`` (the rest indented)."""
    lines = []
    for report in reports:
        first = report.longrepr.split("\n", 1)[0]
        # A word wider than the terminal (a long path) is broken too: every line fits.
        lines += textwrap.wrap(f"FAILED {report.nodeid} - {first}", max(width, 40), subsequent_indent="    ",
                               break_on_hyphens=False)
    return lines


def skips_caused_by_failures(stats: dict) -> list[str]:
    """One line per failure that made checks skip (count, why, which test); a skip naming a skipped test is followed to the failure."""
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


def unique_errors(reports: list) -> list:
    """Each error once: under pytest-xdist every worker collects every file, and reports the same collection error again."""
    seen, unique = set(), []
    for report in reports:
        key = (getattr(report, "nodeid", None), getattr(report, "when", None), str(getattr(report, "longrepr", "")))
        if key not in seen:
            seen.add(key)
            unique.append(report)
    return unique
