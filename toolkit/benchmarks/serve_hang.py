"""11. The author's loop after a hang: from saving the fix of a block that hung to `make serve`
answering with the page whose blocks ran. Goal: the same as row 7.

`mkdocs serve` runs on the benchmark's copy of the project, as in row 7. Each round saves a
plain edit of the entry (row 7's page edit, for comparison on the same server and machine
load), then plants `while True: pass` at the end of the entry twice, each time fixed in its
own way, and saves the fix with a unique token; each time is until the entry holds the
token and the code-run status line:

- stopped by its limit: the entry says `timeout: 3`; the fix is saved once the page shows
  the failure panel (the worker that ran the loop was killed at its limit);
- fixed while it runs: no `timeout:` (the plugin's 60 s); the fix is saved once the page
  says its code is still running (the old run must be stopped, not waited for).
"""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks import common
from benchmarks.rows import Row
from benchmarks.serve_loop import ENTRY, GOAL, _get, _mmm, _until

HANG = "\n```python\nwhile True: pass\n```\n"
LIMIT = 3


def _passed(token: str):
    return lambda html: token in html and "code blocks ran" in html and 'class="journal-run journal-run--failed"' not in html


def _round(page: Path, original: str, entry: str, token: str, kind: str) -> float:
    """Plant the hang (not for a plain edit), wait for what the author sees, save the fix;
    seconds until it is served."""
    if kind != "plain":
        hung = original.replace("---\n", f"---\ntimeout: {LIMIT}\n", 1) if kind == "limited" else original
        page.write_text(hung + HANG, encoding="utf-8")
        shows = (lambda html: f"ran past {LIMIT} s" in html) if kind == "limited" else (lambda html: "code still running" in html)
        _until(entry, shows, limit=180)
    page.write_text(original + f"\n{token}\n", encoding="utf-8")
    return _until(entry, _passed(token))


def measure(project: Path, repeats: int) -> Row:
    page = project / ENTRY
    original = page.read_text(encoding="utf-8")
    times: dict[str, list[float]] = {"plain": [], "limited": [], "running": []}
    with common.serving(project, project / "serve-hang-bench.log", common.ENV) as port:
        base = f"http://127.0.0.1:{port}/llm-journal/"
        _until(base, lambda html: True, limit=300)
        entry = base + re.search(r'href="(blog/2025/07/27/[^"]+)"', _get(base)).group(1)
        _until(entry, lambda html: "journal-run--ok" in html)
        try:
            for n in range(repeats):
                for kind in times:
                    times[kind].append(_round(page, original, entry, f"benchhang{n}{kind[0]}", kind))
        finally:
            page.write_text(original, encoding="utf-8")
    worst = max(max(times["limited"]), max(times["running"]))
    return Row(
        "11. make serve: save the fix of a hung block -> page with its blocks' results",
        f"stopped by its limit {common.fmt_times(times['limited'])} s; fixed while running {common.fmt_times(times['running'])} s "
        f"(a plain edit, interleaved: {common.fmt_times(times['plain'])} s)",
        f"<= {GOAL:.0f} s (as row 7)", worst <= GOAL,
        notes=[f"min/median/max: stopped by its limit {_mmm(times['limited'])}, fixed while running {_mmm(times['running'])}; "
               f"a plain edit of the entry on the same server (row 7's page edit), interleaved: {_mmm(times['plain'])}",
               f"the hang: `while True: pass` at the end of {ENTRY}; limit {LIMIT} s (front matter) or the plugin's 60 s"],
    )
