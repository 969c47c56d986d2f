"""The cluster bootstrap of pooled accuracies (docs/scoring.md, "Uncertainty").

Rows that share an example ``index`` share their draws (keys, values, depths) in every language,
so they are not independent: a pooled accuracy is resampled by *index*. Each resample draws as
many indices as there are, with replacement; a row counts as often as its index was drawn. All
cells of a report (or all cells of a comparison table) use the same resamples, computed at once
as matrix products, so thousands of cells cost milliseconds. The generator is numpy's ``PCG64``
seeded with a fixed integer: same outcomes, same intervals, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .closed_form import CONFIDENCE, Interval, wilson

RESAMPLES = 2_000
SEED = 17_2025  # fixed: the same report gives the same intervals on every run and machine
QUANTILES = ((1 - CONFIDENCE) / 2, 1 - (1 - CONFIDENCE) / 2)


@dataclass(frozen=True)
class CellSums:
    """Per cell (rows) and cluster (columns): examples passed (graded rows: their credit summed) and counted, and
    for a paired cell the second model's passes (credit). ``cells`` × ``clusters`` float matrices."""

    passed: np.ndarray
    counted: np.ndarray
    passed_b: np.ndarray | None = None


class ClusterBootstrap:
    """Resamples of the clusters (example indices) of a set of rows, shared by every cell of those rows."""

    def __init__(self, clusters: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED):
        self.labels, self.position = np.unique(np.asarray(clusters, dtype=np.int64), return_inverse=True)
        self.resamples, self.seed = resamples, seed
        n = len(self.labels)
        draws = np.random.default_rng(seed).integers(0, max(n, 1), size=(resamples, n))
        offsets = (np.arange(resamples, dtype=np.int64) * n)[:, None]
        counts = np.bincount((draws + offsets).ravel(), minlength=resamples * n)
        self.weights = counts.reshape(resamples, n).astype(np.float64)  # resample × cluster multiplicities

    def describe(self) -> str:
        """The method, for the report's files and notes."""
        return (f"cluster bootstrap over example index ({self.resamples} resamples of the {len(self.labels)} "
                f"indices, percentile {100 * QUANTILES[0]:g}–{100 * QUANTILES[1]:g} %, numpy PCG64 seed {self.seed})")

    def positions(self, indices: np.ndarray) -> np.ndarray:
        """The cluster position of each example index (every index must be one of the clusters)."""
        return np.searchsorted(self.labels, np.asarray(indices, dtype=np.int64))

    def sums(self, cell_of: np.ndarray, n_cells: int, passed: np.ndarray, counted: np.ndarray,
             passed_b: np.ndarray | None = None, positions: np.ndarray | None = None) -> CellSums:
        """Sum rows into cells × clusters matrices; ``cell_of`` holds each row's cell (−1: in no cell), ``positions``
        each row's cluster (default: the rows the bootstrap was built from)."""
        positions = self.position if positions is None else positions
        keep = cell_of >= 0
        slots = cell_of[keep] * len(self.labels) + positions[keep]
        size = n_cells * len(self.labels)

        def total(values: np.ndarray) -> np.ndarray:
            weights = np.asarray(values, dtype=np.float64)[keep]
            return np.bincount(slots, weights=weights, minlength=size).reshape(n_cells, len(self.labels))

        return CellSums(total(passed), total(counted), None if passed_b is None else total(passed_b))

    def accuracy(self, sums: CellSums) -> np.ndarray:
        """Resampled accuracies, resamples × cells (NaN where a resample counted nothing)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.weights @ sums.passed.T) / (self.weights @ sums.counted.T)

    def difference(self, sums: CellSums) -> np.ndarray:
        """Resampled paired differences (first model − second), resamples × cells."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.weights @ (sums.passed - sums.passed_b).T) / (self.weights @ sums.counted.T)

    def intervals(self, sums: CellSums) -> list[Interval | None]:
        """The 95 % interval of each cell's accuracy (None: nothing counted).

        A cell whose resamples all agree has no bootstrap spread: its counted rows all passed (or
        all failed), or every one of its indices fared alike (one index, say, with one of two needles
        found). It gets Wilson's interval at its accuracy for as many examples as it has distinct
        indices (its independent units): a cell of one index is as uncertain as one example. The same holds for
        graded rows (``passed`` then sums their credit, 0–1) that all scored alike: a score in 0–1 with mean p
        varies at most as a pass/fail one (p (1 − p)), so Wilson's interval is the cautious stand-in.
        """
        passed, counted = sums.passed.sum(axis=1), sums.counted.sum(axis=1)
        bounds = percentiles(self.accuracy(sums))
        clusters = (sums.counted > 0).sum(axis=1)
        out: list[Interval | None] = []
        for k in range(len(counted)):
            if counted[k] == 0:
                out.append(None)
            elif passed[k] in (0, counted[k]) or not bounds[1, k] > bounds[0, k]:
                out.append(wilson(int(clusters[k]) * passed[k] / counted[k], int(clusters[k])))
            else:
                out.append(Interval(float(bounds[0, k]), float(bounds[1, k])))
        return out

    def standard_errors(self, sums: CellSums) -> np.ndarray:
        """The bootstrap standard error of each cell's accuracy (NaN when nothing is counted)."""
        boot = self.accuracy(sums)
        with np.errstate(invalid="ignore"):
            return np.nanstd(boot, axis=0) if np.isnan(boot).any() else boot.std(axis=0)


def percentiles(boot: np.ndarray) -> np.ndarray:
    """The 2.5 and 97.5 % points of each column (2 × cells); resamples that counted nothing (NaN) are left out."""
    if boot.size == 0:
        return np.zeros((2, boot.shape[1] if boot.ndim == 2 else 0))
    finite = np.isfinite(boot)
    if finite.all():
        return np.quantile(boot, QUANTILES, axis=0)
    out = np.full((2, boot.shape[1]), np.nan)
    for k in range(boot.shape[1]):
        column = boot[:, k][finite[:, k]]
        if column.size:
            out[:, k] = np.quantile(column, QUANTILES)
    return out
