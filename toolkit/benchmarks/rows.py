"""A row of the benchmark table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Row:
    measurement: str
    figure: str
    goal: str = "-"
    met: bool | None = None  # None: no goal, or not measured
    notes: list[str] = field(default_factory=list)
    # Called when the goal is missed (and profiling is on): returns report lines.
    profile: Callable[[], list[str]] | None = None

    @property
    def verdict(self) -> str:
        return {True: "yes", False: "NO", None: "-"}[self.met]


def table(rows: list[Row]) -> str:
    head = ("measurement", "figure", "goal", "met?")
    body = [(r.measurement, r.figure, r.goal, r.verdict) for r in rows]
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(4)]
    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(head), sep, *map(line, body)])
