"""The value of each leaderboard a report covers: ``leaderboard_values``, the one function that computes it.

``oneruler score`` writes these into ``.eval_results/oneruler.yaml``; ``oneruler leaderboard``
computes the same from report folders. The rule (``spec/leaderboards.py:VALUE_RULE``): the micro
accuracy over every counted row of the leaderboard's pool, in the paper's scoring mode (a strict
report's paper-mode scores), with the 95 % cluster-bootstrap interval of the report's pooled cells
(``stats/cells.py``). A leaderboard is *complete* when every row of every config of its pool has a
prediction line; only complete ones get a value. The ``ruler`` board is valued by RULER's Avg. of its pool
(``views/ruler_table.py``: the mean over 4K … 128K of the 13 tasks' mean credit), with that average's interval.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

import numpy as np

from ...spec.leaderboards import RULER_AVG, ServedLeaderboard, served_leaderboards, touched_leaderboards
from ..documents.ruler_table import AVG, RulerValue
from ..report_data import Report
from ..stats.cells import Cell, RecordColumns
from ..stats.closed_form import Interval
from ..views.ruler_table import ruler_rows
from ..views.summaries import coverage


@dataclass(frozen=True)
class LeaderboardValue:
    """One leaderboard in one report: how much of its pool the report covers and, when all of it, the value."""

    served: ServedLeaderboard
    configs_covered: int  # configs of the pool whose every row has a prediction line
    cell: Cell | None  # the pool's rows pooled (None: the report misses part of the pool)
    ruler: RulerValue | None = None  # RULER's Avg. over the pool (the ``ruler`` board's value), when complete

    @property
    def id(self) -> str:
        """The eval.yaml task id."""
        return self.served.id

    @property
    def complete(self) -> bool:
        """Every row of every config of the pool has a prediction line."""
        return self.cell is not None

    @property
    def value(self) -> float | None:
        """The value in percent, rounded to two decimals (None: incomplete or nothing counted): the pool's micro
        accuracy, or for a board valued by RULER's Avg. that average."""
        if self.cell is None or self.cell.accuracy is None:
            return None
        if self.served.board.value == RULER_AVG:
            return None if self.ruler is None or self.ruler.value is None else round(100 * self.ruler.value, 2)
        return round(100 * self.cell.accuracy, 2)

    @property
    def interval(self) -> Interval | None:
        """The 95 % interval of the value (fractions), when there is a value."""
        if self.served.board.value == RULER_AVG:
            ruler = self.ruler
            return Interval(*ruler.ci) if self.value is not None and ruler is not None and ruler.ci else None
        return self.cell.interval if self.cell is not None and self.cell.counted else None

    def shortfall(self) -> str:
        """What the report lacks of the pool, in words (empty when complete)."""
        if self.complete:
            return ""
        return f"{self.configs_covered} of {len(self.served.config_names)} configs of its pool complete"


def paper_columns(report: Report) -> RecordColumns:
    """The report's columns in paper mode: its own, or for a strict report those of its paper-mode scores."""
    if not report.strict:
        return report.columns
    return RecordColumns([replace(r, score=r.paper) for r in report.records])


def leaderboard_values(report: Report, config_names: Iterable[str] | None = None) -> list[LeaderboardValue]:
    """Each leaderboard the dataset serves, with the report's value when the report covers it in full.

    ``config_names``: the dataset's configs (which leaderboards it serves, in which tokenizer); None: the
    report's own configs (a report folder read back, whose dataset is not at hand).
    """
    covered = coverage(report.records)
    complete = {name for name, (have, total) in covered.items() if have == total}
    served = served_leaderboards(covered if config_names is None else config_names)
    columns = None
    out = []
    for board in served:
        pooled = set(board.config_names)
        cell = None
        ruler = None
        if pooled <= complete:
            columns = columns or paper_columns(report)
            where = columns.mask("config", pooled.__contains__)
            cell = columns.cells((), where).get(())
            ruler = ruler_average(columns, where, report) if board.board.value == RULER_AVG else None
        out.append(LeaderboardValue(board, len(pooled & complete), cell, ruler))
    return out


def partly_covered(report: Report, values: Iterable[LeaderboardValue]) -> list[LeaderboardValue]:
    """The leaderboards besides ``values`` whose pool the report holds part of (a config of it, at least), each with
    how many of its configs are complete: a report read back is valued only on the pools its configs hold whole, and a
    run that skipped whole configs (RULER's QA without SQuAD, say) must still be told what each board lacks."""
    covered = coverage(report.records)
    complete = {name for name, (have, total) in covered.items() if have == total}
    known = {(v.served.id, v.served.alias) for v in values}
    return [LeaderboardValue(board, len(set(board.config_names) & complete), None)
            for board in touched_leaderboards(covered) if (board.id, board.alias) not in known]


def ruler_average(columns: RecordColumns, where: np.ndarray, report: Report) -> RulerValue | None:
    """RULER's Avg. of the pool's rows (``where``), with its interval: RULER's table row's Avg. column."""
    rows = ruler_rows(columns, report.settings.threshold, where)
    return rows[0].column(AVG) if len(rows) == 1 else None
