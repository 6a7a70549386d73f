"""Split a journal's page doc-tests across parallel jobs, the same way everywhere.

When a journal has more pages than one CI job runs in ten minutes, the Pages
workflow runs the page tests as a matrix of jobs (``PAGE_TEST_SHARDS`` in
.github/workflows/pages.yml), each ``pytest docs --shard I/N``. The split is
deterministic (the same pages land in the same job on every run and every
machine) and balanced by each page's number of runnable code fences, the
best cheap predictor of its test time: pages are taken heaviest first and each
goes to the lightest shard so far (ties: by path).

    python -m journal_tools.pagetest.shard 2/4      # the pages of shard 2 of 4, one per line
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from journal_tools.compat import mkdocs_config
from journal_tools.core.settings import Settings, find_root

__all__ = ["ShardError", "pages", "parse_spec", "split", "weight"]

_RUNNABLE_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[ \t]*\{?\.?(?:python3?|py3?|sh|bash)\b", re.M)


class ShardError(ValueError):
    """A --shard value that is not I/N with 1 <= I <= N."""


def parse_spec(spec: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", spec or "")
    if not m or not 1 <= int(m[1]) <= int(m[2]):
        raise ShardError(f"--shard {spec!r}: write I/N with 1 <= I <= N, e.g. 2/4")
    return int(m[1]), int(m[2])


def pages(settings: Settings) -> list[Path]:
    """Every file the page tests collect: Markdown pages, notebook pages, the citations' BibTeX file; sorted."""
    found = [p for p in settings.docs_dir.rglob("*.md")]
    found += [p for p in settings.docs_dir.rglob("*") if p.suffix in (".py", ".ipynb") and settings.is_notebook(p)]
    bib = settings.bibliography
    if bib is not None and bib.is_file() and settings.docs_dir in bib.parents:
        found.append(bib)
    return sorted(set(found))


def weight(page: Path) -> int:
    """A page's expected test cost: its runnable fences (a notebook: its cells), at least 1."""
    if page.suffix == ".bib":
        return 1
    text = page.read_text(encoding="utf-8", errors="replace")
    if page.suffix == ".md":
        return 1 + len(_RUNNABLE_FENCE.findall(text))
    return 1 + text.count("\n# %%")


def split(paths: list[Path], shards: int, weigh=weight) -> list[list[Path]]:
    """``paths`` in ``shards`` groups of about equal weight (deterministic)."""
    groups: list[list[Path]] = [[] for _ in range(shards)]
    loads = [0] * shards
    for path in sorted(paths, key=lambda p: (-weigh(p), str(p))):
        k = min(range(shards), key=lambda i: (loads[i], i))
        groups[k].append(path)
        loads[k] += weigh(path)
    return [sorted(g) for g in groups]


def main(argv: list[str] | None = None) -> int:
    """Print the pages of one shard."""
    args = sys.argv[1:] if argv is None else argv
    try:
        index, total = parse_spec(args[0] if args else "")
    except ShardError as exc:
        print(f"journal_tools.pagetest.shard: {exc}", file=sys.stderr)
        return 2
    settings = mkdocs_config.load(find_root() / "mkdocs.yml")
    for path in split(pages(settings), total)[index - 1]:
        print(settings.rel(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
