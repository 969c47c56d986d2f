"""Accuracy by needle depth (docs/scoring.md, "Accuracy by depth"): where in the context a model loses the needle.

The queried needles of each scored record (``score/needles.py``: ``(depth %, retrieved)``) pooled
over languages into task × length × depth-bin cells (depth.csv), each with its cluster-bootstrap
interval, and the per-task grids the depth figures draw (``depth_grid``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ...spec.configs import render_length
from ..score.records import Record
from ..stats.bootstrap import ClusterBootstrap
from .grouping import task_rank


def depth_bin(depth: float, bins: int) -> int:
    """The bin of a depth among ``bins`` equal bins of 0–100 % (100 % falls in the last)."""
    return min(int(depth * bins / 100), bins - 1)


@dataclass(frozen=True)
class DepthCell:
    """One line of depth.csv: a task, a length and a depth bin, pooled over languages."""

    task: str
    length: int
    depth_low: float
    depth_high: float
    passed: int
    counted: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None

    HEADER = ("task", "length", "depth_low", "depth_high", "passed", "counted", "accuracy", "ci_low", "ci_high")

    def csv_row(self) -> list[Any]:
        """The values in ``HEADER`` order (fractions rounded to 6 decimals)."""
        return [round(v, 6) if isinstance(v, float) else v for v in (getattr(self, name) for name in self.HEADER)]


def depth_cells(scored: Sequence[Record], bootstrap: ClusterBootstrap, bins: int) -> list[DepthCell]:
    """Every task × length × depth bin that holds queried needles (empty bins of such a task and length included),
    with cluster-bootstrap intervals (the needles of one example index are not independent)."""
    hits = [(r.task, r.length, depth_bin(d, bins), r.index, h) for r in scored for d, h in r.needle_hits]
    if not hits:
        return []
    tasks, lengths, bin_of, indices, found = zip(*hits)
    keys = sorted({(t, n) for t, n in zip(tasks, lengths)}, key=lambda k: (task_rank(k[0]), k[1]))
    number = {key: k for k, key in enumerate(keys)}
    pool = np.array([number[(t, n)] * bins + b for t, n, b in zip(tasks, lengths, bin_of)])
    passed = np.array(found, dtype=np.float64)
    sums = bootstrap.sums(pool, len(keys) * bins, passed, np.ones_like(passed), positions=bootstrap.positions(np.array(indices)))
    intervals = bootstrap.intervals(sums)
    passed_n, counted_n = sums.passed.sum(axis=1), sums.counted.sum(axis=1)
    cells = []
    for (task, length), k in number.items():
        for b in range(bins):
            at = k * bins + b
            interval = intervals[at]
            cells.append(DepthCell(task, length, 100 * b / bins, 100 * (b + 1) / bins, int(passed_n[at]), int(counted_n[at]),
                                   passed_n[at] / counted_n[at] if counted_n[at] else None,
                                   interval.low if interval else None, interval.high if interval else None))
    return cells


def depth_grid(cells: list[DepthCell]) -> dict[str, tuple[list[str], list[str], list[list[float | None]], list[list[int]]]]:
    """Per task: (length labels, depth-bin labels top to bottom, accuracy[bin][length], counted[bin][length])."""
    out = {}
    for task in dict.fromkeys(c.task for c in cells):
        mine = [c for c in cells if c.task == task]
        lengths = sorted({c.length for c in mine})
        bins = sorted({(c.depth_low, c.depth_high) for c in mine})
        at = {(c.length, c.depth_low): c for c in mine}
        accuracy = [[at[(n, low)].accuracy for n in lengths] for low, _ in bins]
        counted = [[at[(n, low)].counted for n in lengths] for low, _ in bins]
        labels = [f"{low:.3g}–{high:.3g}" for low, high in bins]
        out[task] = ([render_length(n) for n in lengths], labels, accuracy, counted)
    return out
