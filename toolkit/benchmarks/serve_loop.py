"""7. The author's loop: from saving a file to `make serve` answering with the
page whose blocks ran.

`mkdocs serve` runs on the benchmark's copy of the project. Each measurement
saves a file with a unique token where the entry shows it, then asks for the
entry until the answer holds the token and the code-run status line: the
server answers only once the rebuild is done (it holds requests meanwhile),
so the time is save -> rebuilt page with its code's outcome. Three kinds of
save, interleaved: a prose edit of the entry, an edit of a snippet section the
entry includes (the notebook imports that module too, so it re-executes in
the background), and the same snippet edit measured until the notebook page
shows fresh outputs again.
"""

from __future__ import annotations

import re
import time
import urllib.request
from pathlib import Path

from benchmarks import common
from benchmarks.rows import Row

GOAL = 2.0  # seconds, save to reloaded page with its blocks' results
ENTRY = "docs/blog/posts/2025-07-27-weights-and-causal-attention.md"
SNIPPET = "snippets/self_attention.py"
SNIPPET_ANCHOR = "# --8<-- [end:imports]"


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read().decode()


def _until(url: str, test, limit: float = 120.0) -> float:
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        try:
            if test(_get(url)):
                return time.perf_counter() - start
        except OSError:
            pass
        time.sleep(0.05)
    raise common.BenchError(f"{url} did not show the change within {limit:.0f} s")


def measure(project: Path, repeats: int) -> Row:
    with common.serving(project, project / "serve-bench.log", common.ENV) as port:
        base = f"http://127.0.0.1:{port}/llm-journal/"
        _until(base, lambda html: True, limit=300)
        entry = base + re.search(r'href="(blog/2025/07/27/[^"]+)"', _get(base)).group(1)
        notebook = base + "notebooks/attention_step_by_step/"
        _until(entry, lambda html: "journal-run--ok" in html)
        times: dict[str, list[float]] = {"page": [], "snippet": [], "notebook": []}
        for n in range(repeats):
            token = f"benchtoken{n}p"
            page = project / ENTRY
            page.write_text(page.read_text(encoding="utf-8") + f"\n{token}\n", encoding="utf-8")
            times["page"].append(_until(entry, lambda html, t=token: t in html and "code blocks ran" in html))

            token = f"benchtoken{n}s"
            snippet = project / SNIPPET
            text = snippet.read_text(encoding="utf-8")
            snippet.write_text(text.replace(SNIPPET_ANCHOR, f"# {token}\n{SNIPPET_ANCHOR}", 1), encoding="utf-8")
            saved = time.perf_counter()
            times["snippet"].append(_until(entry, lambda html, t=token: t in html and "code blocks ran" in html))
            _until(notebook, lambda html: "These outputs are stale" not in html and "journal-run--failed" not in html, limit=180)
            times["notebook"].append(time.perf_counter() - saved)
    worst = max(max(times["page"]), max(times["snippet"]))
    return Row(
        "7. make serve: save -> page with its blocks' results (page edit, snippet edit)",
        f"page {common.fmt_times(times['page'])} s; snippet {common.fmt_times(times['snippet'])} s",
        f"<= {GOAL:.0f} s", worst <= GOAL,
        notes=[f"min/median/max: page {_mmm(times['page'])}, snippet {_mmm(times['snippet'])}",
               f"notebook importing the snippet: fresh outputs after {_mmm(times['notebook'])} s "
               "(the page keeps stale outputs meanwhile; never holds up the reload)"],
    )


def _mmm(values: list[float]) -> str:
    s = sorted(values)
    return f"{s[0]:.2f} / {s[len(s) // 2]:.2f} / {s[-1]:.2f}"
