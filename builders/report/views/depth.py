"""Accuracy by needle depth (docs/scoring.md, "Accuracy by depth"): where in the context a model loses the needle.

The queried needles of each scored record (``score/needles.py``: ``NeedleHit``) pooled over
languages into task × length × depth-bin cells (depth.csv), each with its cluster-bootstrap
interval, and the per-task grids the depth figures draw (``depth_grid``). Depths are in the
Report's unit (``Report.depth_unit``: percent of the haystack's tokens, or of its sentences).

Bins (``DepthBins``) are equal (``[100 b / B, 100 (b + 1) / B)``, 100 % in the last; B = 10 unless
set) unless the report holds fixed-depth sweep configs (``_at{D}``): then the B bins are centred on
B evenly spaced depths 0, 100 / (B − 1), …, 100, each reaching half a step either side (the first
and last half as wide), so that with B = 11 each depth of the 0, 10, …, 100 sweep has a bin of its
own, labelled by it; unless set, B is one per step of the swept depths (11 for that sweep).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ...spec.configs import render_length
from ..report_data import DEPTH_BINS, Report
from ..score.needles import DepthUnit
from ..score.records import Record
from ..stats.bootstrap import ClusterBootstrap
from .grouping import task_rank

FALLBACK = ("in sentence units: the dataset records no token depth of its needles (built before token depths); "
            "rebuild it for the view in tokens")
UNIT_WORDS = {"tokens": "% of the haystack's tokens", "sentences": "% of the haystack's sentences"}


@dataclass(frozen=True)
class DepthBins:
    """``count`` bins of 0–100 % in ``unit``; ``centred``: a sweep's bins, centred on evenly spaced depths."""

    count: int
    unit: DepthUnit
    centred: bool = False

    @property
    def step(self) -> float:
        """The distance between bin centres (centred) or the width of a bin (equal)."""
        return 100 / (self.count - 1) if self.centred else 100 / self.count

    def bin(self, depth: float) -> int:
        """The bin a depth falls in."""
        if self.centred:
            return min(math.floor(depth / self.step + 0.5), self.count - 1)
        return min(int(depth * self.count / 100), self.count - 1)

    def edges(self, b: int) -> tuple[float, float]:
        """(low, high) of bin ``b``, percent."""
        if self.centred:
            return max(0.0, (b - 0.5) * self.step), min(100.0, (b + 0.5) * self.step)
        return 100 * b / self.count, 100 * (b + 1) / self.count

    def label(self, b: int) -> str:
        """The bin's label on a figure: its centre (centred) or its range."""
        if self.centred:
            return f"{b * self.step:.3g}"
        low, high = self.edges(b)
        return f"{low:.3g}–{high:.3g}"

    def axis(self) -> str:
        """The depth axis's title: the unit, and how a sweep's bins are centred."""
        text = f"needle depth ({UNIT_WORDS[self.unit]})"
        if self.centred:
            last = self.label(self.count - 1)
            text += f"\nbins centred on {self.label(0)}, {self.label(1)}, …, {last} (±{self.step / 2:.3g})"
        return text


def sweep_bin_count(depths: Sequence[int]) -> int:
    """One bin per multiple of the swept depths' common step: 11 for 0, 10, …, 100; 5 for 0, 25, …, 100."""
    return 100 // math.gcd(100, *depths) + 1


def depth_bins(report: Report) -> DepthBins:
    """The bins of a report's depth view in its unit: the settings' count (None: ``DEPTH_BINS`` equal bins, or for a
    report holding sweep configs one per step of their depths), centred when the report holds sweep configs."""
    sweep = sorted({r.fixed_depth for r in report.scored if r.needle_hits and r.fixed_depth is not None})
    count = report.settings.depth_bins or (sweep_bin_count(sweep) if sweep else DEPTH_BINS)
    return DepthBins(count, report.depth_unit, centred=bool(sweep) and count > 1)


@dataclass(frozen=True)
class DepthCell:
    """One line of depth.csv: a task, a length and a depth bin (in ``depth_unit``), pooled over languages."""

    task: str
    length: int
    depth_low: float
    depth_high: float
    depth_unit: str
    passed: int
    counted: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None
    label: str = ""  # the bin's label on the figures (not written)

    HEADER = ("task", "length", "depth_low", "depth_high", "depth_unit", "passed", "counted", "accuracy", "ci_low",
              "ci_high")

    def csv_row(self) -> list[Any]:
        """The values in ``HEADER`` order (fractions rounded to 6 decimals)."""
        return [round(v, 6) if isinstance(v, float) else v for v in (getattr(self, name) for name in self.HEADER)]


def depth_cells(scored: Sequence[Record], bootstrap: ClusterBootstrap, bins: DepthBins) -> list[DepthCell]:
    """Every task × length × depth bin that holds queried needles (empty bins of such a task and length included),
    with cluster-bootstrap intervals (the needles of one example index are not independent)."""
    hits = [(r.task, r.length, bins.bin(h.at(bins.unit)), r.index, h.retrieved) for r in scored for h in r.needle_hits]
    if not hits:
        return []
    tasks, lengths, bin_of, indices, found = zip(*hits)
    keys = sorted({(t, n) for t, n in zip(tasks, lengths)}, key=lambda k: (task_rank(k[0]), k[1]))
    number = {key: k for k, key in enumerate(keys)}
    count = bins.count
    cell_of = np.array([number[(t, n)] * count + b for t, n, b in zip(tasks, lengths, bin_of)])
    passed = np.array(found, dtype=np.float64)
    positions = bootstrap.positions(np.array(indices))
    sums = bootstrap.sums(cell_of, len(keys) * count, passed, np.ones_like(passed), positions=positions)
    intervals = bootstrap.intervals(sums)
    passed_n, counted_n = sums.passed.sum(axis=1), sums.counted.sum(axis=1)
    cells = []
    for (task, length), k in number.items():
        for b in range(count):
            at = k * count + b
            interval = intervals[at]
            cells.append(DepthCell(task, length, *bins.edges(b), bins.unit, int(passed_n[at]), int(counted_n[at]),
                                   passed_n[at] / counted_n[at] if counted_n[at] else None,
                                   interval.low if interval else None, interval.high if interval else None,
                                   bins.label(b)))
    return cells


def report_depth_cells(report: Report) -> tuple[DepthBins, list[DepthCell]]:
    """A report's depth view: its bins and cells (depth.csv, depth.png)."""
    bins = depth_bins(report)
    return bins, depth_cells(report.scored, report.columns.bootstrap, bins)


def depth_title(report: Report, title: str) -> str:
    """A depth figure's title, saying when the view is in sentences only because the dataset lacks token depths."""
    return f"{title} ({FALLBACK})" if report.depth_fallback else title


def depth_grid(cells: list[DepthCell], swept: bool = False,
               ) -> dict[str, tuple[list[str], list[str], list[list[DepthCell]]]]:
    """Per task: (length labels, depth-bin labels top to bottom, cells[bin][length]). ``swept``: the bins are a
    sweep's, labelled by their depths, and a depth no config of the task sweeps (no needle at any length) is left
    out rather than drawn as an empty row (the labels keep the gap visible: 20, 25, 30)."""
    out = {}
    for task in dict.fromkeys(c.task for c in cells):
        mine = [c for c in cells if c.task == task]
        lengths = sorted({c.length for c in mine})
        held = {c.depth_low for c in mine if c.counted}
        bins = sorted({(c.depth_low, c.label) for c in mine if not swept or c.depth_low in held})
        at = {(c.length, c.depth_low): c for c in mine}
        grid = [[at[(n, low)] for n in lengths] for low, _ in bins]
        out[task] = ([render_length(n) for n in lengths], [label for _, label in bins], grid)
    return out
