"""A fixed-depth sweep as a table (``oneruler score``'s console): the accuracy of its configs (``_at{D}``) by
depth × length per task, languages pooled, each cell with its interval (Wilson for one config, the cluster
bootstrap when languages are pooled)."""

from __future__ import annotations

from dataclasses import dataclass

from ..stats.cells import Cell, RecordColumns
from .grouping import task_rank


@dataclass(frozen=True)
class SweepTable:
    """One task's sweep: its depths (the configs' D, percent of the haystack's tokens), lengths and languages, and a
    cell per depth × length (absent: that depth was not built at that length)."""

    task: str
    depths: list[int]
    lengths: list[int]
    languages: list[str]
    cells: dict[tuple[int, int], Cell]


def sweep_tables(columns: RecordColumns) -> list[SweepTable]:
    """One table per task that has sweep configs, in the paper's task order; [] when the report holds none."""
    where = columns.mask("fixed_depth", lambda depth: depth is not None)
    if not where.any():
        return []
    cells = columns.cells(("task", "fixed_depth", "length"), where)
    languages = columns.cells(("task", "language"), where)
    out = []
    for task in sorted({key[0] for key in cells}, key=task_rank):
        mine = {(depth, length): cell for (t, depth, length), cell in cells.items() if t == task}
        out.append(SweepTable(task, sorted({d for d, _ in mine}), sorted({n for _, n in mine}),
                              sorted(lang for t, lang in languages if t == task), mine))
    return out
