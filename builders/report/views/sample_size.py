"""The smallest differences a report's sample size can detect (docs/scoring.md, "Uncertainty"): per config
(the median config's examples) and overall (the cluster bootstrap's standard error)."""

from __future__ import annotations

from typing import Sequence

from ..documents.scores_json import ConfigScore, SampleSize
from ..stats.cells import RecordColumns
from ..stats.closed_form import ALPHA, POWER, detectable_difference, detectable_from_error
from .summaries import overall_cell


def sample_size(columns: RecordColumns, groups: Sequence[ConfigScore]) -> SampleSize | None:
    """Detectable differences (two-sided α 0.05, power 0.8) at the observed accuracy; None: nothing counted."""
    overall = overall_cell(columns)
    sizes = sorted(g.counted for g in groups if g.counted)
    if overall is None or overall.accuracy is None or not sizes:
        return None
    per_config = sizes[len(sizes) // 2]
    error = columns.standard_error()
    # The cluster bootstrap's error can come out near 0 with few indices (every index alike); the
    # rows' own binomial bound is then the honest floor.
    overall_gap = max(detectable_from_error(error), detectable_difference(overall.accuracy, sum(sizes)) or 0.0)
    return SampleSize(ALPHA, POWER, round(overall.accuracy, 6), per_config,
                      round(detectable_difference(overall.accuracy, per_config), 6), round(error, 6),
                      round(overall_gap, 6))
