"""RULER's table row (Hsieh et al., 2024, Table 3 and its README) from a report's RULER rows, with 95 % intervals.

RULER's rows are the English configs of its 13 tasks (``spec/grids.py:RULER_TASKS``; not the cross-lingual VT
pairs nor QA over XQuAD, which are reported per config and pooled as usual). Per tokenizer:

- a task's score at a length is the mean score of its counted rows (each row its credit: RULER's
  ``string_match_all`` / ``string_match_part``), and a length's score the mean of the 13 tasks' scores ("each score
  is computed by averaging accuracy of 13 tasks"); a length missing any task is not determined, and says which;
- Avg. is the mean over RULER's six lengths 4K … 128K; wAvg. (inc) and (dec) weigh them 1, 2, …, 6 and 6, 5, …, 1
  (normalised: linearly increasing or decreasing with length, RULER §4); both need all six;
- the effective length is "the maximum length passing this threshold" (RULER, Table 3): the longest length whose
  score is at or above the threshold (85.6, ``spec/defaults.py``; ``--threshold``), ``<4K`` when none is, ``>128K``
  when the longest is (RULER's notation); read over every length of the row, all of which must be determined;
- every number has the 95 % percentile interval of the report's one cluster bootstrap over example indices (each
  resample recomputes the task scores, the length means, the averages and the effective length); when the
  resamples all agree (every row alike), Wilson's interval at the value for as many examples as indices.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...spec.configs import render_length
from ...spec.grids import RULER_LENGTHS, RULER_TASKS
from ..documents.ruler_table import AVG, NOT_DETERMINED, WAVG_DEC, WAVG_INC, RulerRow, RulerValue
from ..stats.bootstrap import QUANTILES, percentiles
from ..stats.cells import RecordColumns
from ..stats.closed_form import wilson

RULER_LANGUAGE = "en"  # RULER's table holds its English tasks only


def ruler_label(length: int) -> str:
    """RULER's name for a length: ``4K`` … ``128K`` (K = 1024), else the project's (``8k`` = 8,000)."""
    return f"{length // 1024}K" if length % 1024 == 0 and length >= 1024 else render_length(length)


def weighted_averages(by_length: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Avg., wAvg. (inc) and wAvg. (dec) of scores at RULER's six lengths in order (last axis: the lengths)."""
    n = by_length.shape[-1]
    inc = np.arange(1, n + 1, dtype=np.float64)
    return by_length.mean(axis=-1), by_length @ (inc / inc.sum()), by_length @ (inc[::-1] / inc.sum())


def effective_positions(by_length: np.ndarray, threshold: float) -> np.ndarray:
    """The position of the longest length at or above ``threshold`` (−1: none), along the last axis."""
    passing = by_length >= threshold - 1e-12
    last = by_length.shape[-1] - 1 - np.argmax(passing[..., ::-1], axis=-1)
    return np.where(passing.any(axis=-1), last, -1)


def effective_label(position: int, lengths: Sequence[int]) -> str:
    """RULER's notation: ``<4K`` (none passes), ``>128K`` (the longest does), else the length."""
    if position < 0:
        return f"<{ruler_label(lengths[0])}"
    label = ruler_label(lengths[position])
    return f">{label}" if position == len(lengths) - 1 else label


def ruler_rows(columns: RecordColumns, threshold: float, where: np.ndarray | None = None) -> list[RulerRow]:
    """RULER's table row of each tokenizer of the report's RULER rows (``threshold``: a fraction; ``where``: only
    those rows); [] when none."""
    tasks = columns.mask("task", RULER_TASKS.__contains__) & columns.mask("language", RULER_LANGUAGE.__eq__)
    tasks = tasks if where is None else tasks & where
    out = []
    for code, tokenizer in enumerate(columns.values["tokenizer"]):
        where = tasks & (columns.codes["tokenizer"] == code) & (columns.counted > 0)
        if where.any():
            out.append(_row(columns, where, tokenizer, threshold))
    return sorted(out, key=lambda row: row.tokenizer)


def _row(columns: RecordColumns, where: np.ndarray, tokenizer: str, threshold: float) -> RulerRow:
    """One tokenizer's row from its counted RULER rows (``where``)."""
    lengths_of = np.array(columns.values["length"])[columns.codes["length"]]
    tasks_of = np.array(columns.values["task"], dtype=object)[columns.codes["task"]]
    lengths = sorted(set(RULER_LENGTHS) | set(lengths_of[where].tolist()))
    task_pos = {t: k for k, t in enumerate(RULER_TASKS)}
    length_pos = {n: k for k, n in enumerate(lengths)}
    cell_of = np.full(len(where), -1, dtype=np.int64)
    cell_of[where] = [task_pos[t] * len(lengths) + length_pos[n] for t, n in zip(tasks_of[where], lengths_of[where])]
    boot = columns.bootstrap
    sums = boot.sums(cell_of, len(RULER_TASKS) * len(lengths), columns.credit, columns.counted)
    with np.errstate(invalid="ignore", divide="ignore"):
        point = (sums.passed.sum(axis=1) / sums.counted.sum(axis=1)).reshape(len(RULER_TASKS), len(lengths))
    resampled = boot.accuracy(sums).reshape(-1, len(RULER_TASKS), len(lengths))
    indices = int((sums.counted.sum(axis=0) > 0).sum())
    determined = ~np.isnan(point).any(axis=0)
    by_length, boot_length = point.mean(axis=0), resampled.mean(axis=1)
    values = [_value(ruler_label(n), by_length[k], boot_length[:, k], indices) if determined[k] else
              RulerValue(ruler_label(n), None, None, [t for t in RULER_TASKS if np.isnan(point[task_pos[t], k])])
              for k, n in enumerate(lengths)]
    values += _averages(lengths, determined, by_length, boot_length, indices)
    effective, effective_ci = _effective(lengths, determined, by_length, boot_length, threshold)
    return RulerRow(tokenizer, lengths, values, effective, effective_ci, round(100 * threshold, 4),
                    int(sums.counted.sum()), indices)


def _value(column: str, value: float, resampled: np.ndarray, indices: int) -> RulerValue:
    """A determined column with its percentile interval (Wilson's stand-in when the resamples all agree)."""
    low, high = percentiles(resampled[:, None])[:, 0]
    if not high > low:
        fallback = wilson(indices * value, indices)
        low, high = (fallback.low, fallback.high) if fallback else (value, value)
    return RulerValue(column, round(float(value), 6), [round(float(low), 6), round(float(high), 6)])


def _averages(lengths: list[int], determined: np.ndarray, by_length: np.ndarray, boot_length: np.ndarray,
              indices: int) -> list[RulerValue]:
    """Avg., wAvg. (inc), wAvg. (dec) over RULER's six lengths, or what they lack."""
    six = [lengths.index(n) for n in RULER_LENGTHS]
    lacking = [ruler_label(n) for n, k in zip(RULER_LENGTHS, six) if not determined[k]]
    if lacking:
        return [RulerValue(name, None, None, lacking) for name in (AVG, WAVG_INC, WAVG_DEC)]
    points, boots = weighted_averages(by_length[six]), weighted_averages(boot_length[:, six])
    return [_value(name, p, b, indices) for name, p, b in zip((AVG, WAVG_INC, WAVG_DEC), points, boots)]


def _effective(lengths: list[int], determined: np.ndarray, by_length: np.ndarray, boot_length: np.ndarray,
               threshold: float) -> tuple[str, list[str] | None]:
    """The effective length and its percentile interval over the resamples' effective lengths."""
    if not determined.all():
        lacking = ", ".join(ruler_label(n) for n, ok in zip(lengths, determined) if not ok)
        return f"{NOT_DETERMINED} ({lacking} not determined)", None
    point = int(effective_positions(by_length, threshold))
    finite = boot_length[np.isfinite(boot_length).all(axis=1)]
    if not len(finite):
        return effective_label(point, lengths), None
    positions = effective_positions(finite, threshold)
    low, high = (int(np.quantile(positions, q, method="inverted_cdf")) for q in QUANTILES)
    return effective_label(point, lengths), [effective_label(low, lengths), effective_label(high, lengths)]
