"""Pooled accuracies with their intervals: records as numpy columns, grouped by any fields at once.

A ``Cell`` is some rows pooled (a config, a task × language, a language × length, ...): how many
passed and were counted, why the others were not, and the 95 % interval of the accuracy: Wilson's
when the cell is one config, the cluster bootstrap (``stats/bootstrap.py``) when it pools several.

Rows of a graded rule (RULER's: ``ExampleScore.graded``) score their partial credit (0–1), not pass/fail: a cell
holding any is *graded*, its value the mean score of its counted rows (RULER's task score, as a fraction; a
pass/fail row scores 1 or 0), and its interval the cluster bootstrap even for one config (Wilson's is for
pass/fail counts; with one row per index the cluster bootstrap is the ordinary bootstrap of the rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ..score.records import Record
from .bootstrap import ClusterBootstrap
from .closed_form import Interval, wilson

FIELDS = ("task", "language", "length", "tokenizer", "config", "fixed_depth")  # fixed_depth: a sweep's _at{D}, else None


@dataclass(frozen=True)
class Cell:
    """Some rows pooled: ``rows`` of the dataset, ``lines`` of them with a prediction line, ``counted`` in the accuracy."""

    passed: int
    counted: int
    lines: int
    rows: int
    truncated: int
    no_response: int
    configs: int
    interval: Interval | None
    credit: float = 0.0  # the counted rows' scores summed (graded cells; pass/fail cells: ``passed``)
    graded: bool = False  # some counted row is graded (RULER's rules): the value is the mean score

    @property
    def accuracy(self) -> float | None:
        """passed / counted, or for a graded cell the mean score of the counted rows (None: nothing counted)."""
        if not self.counted:
            return None
        return self.credit / self.counted if self.graded else self.passed / self.counted

    @property
    def method(self) -> str:
        """"wilson" (one pass/fail config) or "bootstrap" (several pooled, or graded rows)."""
        return "wilson" if self.configs == 1 and not self.graded else "bootstrap"

    def empty_reason(self) -> str | None:
        """Why nothing is counted, in words (None: something is)."""
        if self.counted:
            return None
        if not self.lines:
            return f"no prediction line for its {self.rows} {'row' if self.rows == 1 else 'rows'}"
        if self.truncated == self.lines:
            return f"all {self.lines} truncated (finish_reason=length) and dropped by the missing-answer policy"
        if self.no_response == self.lines:
            return f"all {self.lines} null (no response) and dropped by the missing-answer policy"
        return (f"{self.truncated} truncated (finish_reason=length) and {self.no_response} null, "
                f"all dropped by the missing-answer policy")

    def short_reason(self) -> str:
        """The reason in a few characters, for table cells and figures: ``50 cut``, ``3 null``, ``no lines``."""
        if not self.lines:
            return "no lines"
        parts = [f"{n} {what}" for n, what in ((self.truncated, "cut"), (self.no_response, "null")) if n]
        return ", ".join(parts) or f"{self.lines} dropped"


class RecordColumns:
    """The records of a report as numpy columns, and the one bootstrap every cell of them shares."""

    def __init__(self, records: Sequence[Record]):
        self.records = records
        self.values: dict[str, list[Any]] = {}
        self.codes: dict[str, np.ndarray] = {}
        for name in FIELDS:
            column = [getattr(r, name) for r in records]
            numbering = {value: k for k, value in enumerate(dict.fromkeys(column))}
            self.codes[name] = np.fromiter(map(numbering.__getitem__, column), dtype=np.int64, count=len(column))
            self.values[name] = list(numbering)
        scores = [r.score for r in records]
        self.line = np.fromiter((not r.no_line for r in records), dtype=bool, count=len(records))
        self.counted = np.fromiter((s.counted for s in scores), dtype=np.float64, count=len(scores))
        self.passed = np.fromiter((s.counted and s.passed for s in scores), dtype=np.float64, count=len(scores))
        # each counted row's score: its credit under a graded rule, else its pass (then equal to ``passed``)
        self.credit = np.fromiter((s.score if s.counted else 0.0 for s in scores), dtype=np.float64, count=len(scores))
        self.graded = np.fromiter((s.counted and s.graded for s in scores), dtype=np.float64, count=len(scores))
        self.truncated = np.fromiter((s.status == "truncated" for s in scores), dtype=np.float64, count=len(scores))
        self.no_response = np.fromiter((s.status == "no_response" for s in scores), dtype=np.float64, count=len(scores))
        self.bootstrap = ClusterBootstrap(np.fromiter((r.index for r in records), dtype=np.int64, count=len(records)))

    def mask(self, name: str, keep: Callable[[Any], bool]) -> np.ndarray:
        """Rows whose ``name`` value satisfies ``keep`` (a predicate on the value)."""
        allowed = np.array([bool(keep(v)) for v in self.values[name]], dtype=bool)
        return allowed[self.codes[name]] if len(allowed) else np.zeros(len(self.records), dtype=bool)

    def cells(self, fields: Sequence[str], where: np.ndarray | None = None) -> dict[tuple, Cell]:
        """One Cell per combination of ``fields`` values among the rows ``where`` selects (all rows by default)."""
        where = np.ones(len(self.records), dtype=bool) if where is None else where
        code = np.zeros(len(self.records), dtype=np.int64)
        for name in fields:
            code = code * len(self.values[name]) + self.codes[name]
        present, chosen_cell = np.unique(code[where], return_inverse=True)
        n_cells = len(present)
        cell_of = np.full(len(self.records), -1, dtype=np.int64)
        cell_of[where] = chosen_cell

        def total(column: np.ndarray) -> np.ndarray:
            return np.bincount(chosen_cell, weights=column[where], minlength=n_cells)

        n_configs = len(self.values["config"])
        pairs = np.unique(chosen_cell * max(n_configs, 1) + self.codes["config"][where])
        configs = np.bincount(pairs // max(n_configs, 1), minlength=n_cells)
        credit, graded = total(self.credit), total(self.graded) > 0
        intervals = self._intervals(cell_of, n_cells, (configs > 1) | graded, total(self.passed), total(self.counted))
        sums = [total(c) for c in (self.passed, self.counted, self.line.astype(np.float64), np.ones(len(self.records)),
                                   self.truncated, self.no_response)]
        out = {}
        for k, packed in enumerate(present):
            key = []
            for name in reversed(fields):
                size = len(self.values[name])
                key.append(self.values[name][packed % size])
                packed //= size
            out[tuple(reversed(key))] = Cell(*(int(s[k]) for s in sums), int(configs[k]), intervals[k],
                                             float(credit[k]), bool(graded[k]))
        return out

    def standard_error(self) -> float:
        """The bootstrap standard error of the overall accuracy (all counted rows pooled; graded rows' credit)."""
        sums = self.bootstrap.sums(np.where(self.counted > 0, 0, -1), 1, self.credit, self.counted)
        return float(self.bootstrap.standard_errors(sums)[0])

    def _intervals(self, cell_of: np.ndarray, n_cells: int, resampled: np.ndarray, passed: np.ndarray,
                   counted: np.ndarray) -> list[Interval | None]:
        """Wilson for one-config pass/fail cells, the shared cluster bootstrap (of the rows' scores) for the others
        (``resampled``: pooled or graded; computed for those only)."""
        out: list[Interval | None] = [wilson(int(p), int(c)) for p, c in zip(passed, counted)]
        pooled = np.flatnonzero(resampled)
        if len(pooled):
            renumber = np.full(n_cells, -1, dtype=np.int64)
            renumber[pooled] = np.arange(len(pooled))
            sub = np.where(cell_of >= 0, renumber[np.maximum(cell_of, 0)], -1)
            sums = self.bootstrap.sums(sub, len(pooled), self.credit, self.counted)
            for k, interval in zip(pooled, self.bootstrap.intervals(sums)):
                out[k] = interval
        return out
