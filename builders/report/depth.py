"""Accuracy by needle depth (docs/scoring.md, "Accuracy by depth"): where in the context a model loses the needle.

Each counted NIAH row with needles yields one ``(depth %, retrieved)`` per *queried* needle: s_niah,
s_niah_nonone and mk_niah the row's pass at the queried needle's depth; mq_niah, mv_niah and
``mv{K}[e]_niah`` each queried value separately, retrieved when it appears in the answer
(Counting-Stars' per-value recall). The depth is where the needle really landed (``actual_depth``)
when the dataset records it, else the nominal grid depth (``depth``). none_niah and CWE have no
queried needle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ..scoring import core as scoring
from ..spec.configs import render_length
from .bootstrap import ClusterBootstrap

DEPTH_BINS = 10  # bins of 10 points by default (--depth-bins)


def needle_depth(needle: dict[str, Any]) -> float:
    """Where a needle sits, in percent of the haystack: ``actual_depth`` when recorded, else ``depth``."""
    actual = needle.get("actual_depth")
    return float(actual if actual is not None else needle["depth"])


def needle_hits(row: dict[str, Any], score: scoring.ExampleScore,
                answer_text: Callable[[], str | None]) -> tuple[tuple[float, bool], ...]:
    """(depth, retrieved) per queried needle of a counted number-NIAH row; () for every other row.

    ``answer_text`` gives the scored text (None: not scored as text); it is called only for rows with
    several gold values, where each value is looked for separately.
    """
    needles = row.get("needles")
    if not score.counted or not needles or scoring.task_kind(row["task"]) != "number":
        return ()
    gold = {str(value) for value in row["answers"]}
    queried = [n for n in needles if str(n["value"]) in gold]
    if len(gold) == 1:
        return tuple((needle_depth(n), score.passed) for n in queried)
    if score.recall in (0.0, 1.0):  # recall is the share of gold values found: all or none, no need to look
        return tuple((needle_depth(n), score.recall == 1.0) for n in queried)
    text = answer_text()
    found = scoring.values_found(text, [n["value"] for n in queried]) if text else [False] * len(queried)
    return tuple((needle_depth(n), hit) for n, hit in zip(queried, found))


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


def depth_cells(records: Sequence, bootstrap: ClusterBootstrap, bins: int, task_order: Callable[[str], Any]) -> list[DepthCell]:
    """Every task × length × depth bin that holds queried needles (empty bins of such a task and length included),
    with cluster-bootstrap intervals (the needles of one example index are not independent)."""
    hits = [(r.task, r.length, depth_bin(d, bins), r.index, h) for r in records for d, h in r.needle_hits]
    if not hits:
        return []
    tasks, lengths, bin_of, indices, found = zip(*hits)
    keys = sorted({(t, n) for t, n in zip(tasks, lengths)}, key=lambda k: (task_order(k[0]), k[1]))
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
