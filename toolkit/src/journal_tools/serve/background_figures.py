"""``make serve`` only: a figure whose snippet changed is redrawn after the rebuild (DECISIONS.md: drawing in
the rebuild made a snippet save 1.3-2.3x slower).
"""

from __future__ import annotations

import threading
from pathlib import Path

__all__ = ["BackgroundFigures"]


class BackgroundFigures:
    """A changed figure is served as last drawn, redrawn by the warm worker into the record, then a rebuild asked for."""

    def __init__(self, rebuild):
        self.last: dict[str, str] = {}  # target -> the SVG the last build showed
        self.stale: dict[str, str] = {}  # targets served from ``last`` in this build
        self.record = None  # the build's record (core.record.inputs), or None: no figure kept
        self._rebuild = rebuild  # asks the live-reload server for the next rebuild

    def redraw_stale(self, runner, dirs: list[Path]) -> None:
        """Redraw this build's stale figures in the background (``runner.draw``: the warm worker); rebuild when done."""
        targets, self.stale = sorted(self.stale), {}
        if not targets:
            return

        def work():
            from journal_tools.core.code import figures
            try:
                drawn = runner.draw(targets, dirs)
                for target, (svg, _) in drawn.items():
                    if self.record is None or svg.startswith("error: "):
                        self.last.pop(target, None)  # the next build draws it in the foreground, failing loudly
                if self.record is not None:
                    figures.keep(self.record, drawn)
            except Exception:  # noqa: BLE001 - the next build draws in the foreground and reports
                for target in targets:
                    self.last.pop(target, None)
            self._rebuild()

        threading.Thread(target=work, daemon=True).start()
