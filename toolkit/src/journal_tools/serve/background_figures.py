"""``make serve`` only: a figure whose snippet changed is redrawn after the rebuild.

Measured on the journal (DECISIONS.md): drawing in the rebuild made a snippet
save about 1.3x slower (warm worker) or 2.3x (a child process, as ``make build``).
"""

from __future__ import annotations

import threading
from pathlib import Path

__all__ = ["BackgroundFigures"]


class BackgroundFigures:
    """``make serve`` only: a figure whose snippet changed is redrawn after the rebuild.

    Drawing takes the warm worker a second or more (matplotlib); the rebuild the
    author waits for serves the figure's last drawing instead, then the worker
    redraws it into the record (``core.record.inputs``) and a rebuild is requested,
    which finds it there. A figure that was never drawn is drawn in the rebuild itself.
    """

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
