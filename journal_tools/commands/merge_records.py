"""Merge the page-test shards' verified records into one (the Pages workflow, after its shards).

``python -m journal_tools.commands.merge_records RECORD.json ...`` writes .cache/verified.json.
"""

from __future__ import annotations

import sys
from pathlib import Path

from journal_tools.compat import mkdocs_config
from journal_tools.core import verified
from journal_tools.core.settings import find_root


def main(argv: list[str] | None = None) -> int:
    """``python -m journal_tools.commands.merge_records FILE...``: merge shard records into .cache/verified.json."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m journal_tools.commands.merge_records RECORD.json ...", file=sys.stderr)
        return 2
    settings = mkdocs_config.load(find_root() / "mkdocs.yml")
    count = verified.merge_files(settings, [Path(a) for a in args])
    print(f"merge_records: {count} pages from {len(args)} records merged into {settings.rel(verified.record_path(settings))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
