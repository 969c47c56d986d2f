"""How the views order and pool rows: tasks in the reports' order (``task_rank``, ``spec/tasks.py:listing_rank``)
and the pool of tasks with needles that the heatmaps and effective lengths read (``niah_scope``)."""

from __future__ import annotations

import numpy as np

from ...spec.tasks import FAMILIES, has_needles, listing_rank
from ..stats.cells import RecordColumns


def task_rank(task: str) -> tuple[int, int, str]:
    """Sort key of a task: family by family in each family's order; ``mv{K}[e]_niah`` right after mv_niah by K;
    other ids last."""
    return listing_rank(task)


def niah_scope(columns: RecordColumns) -> tuple[np.ndarray | None, str]:
    """(row mask, name): the tasks whose family places needles (NIAH) when the records have any, else every task
    (mask None)."""
    niah = columns.mask("task", has_needles)
    name = "/".join(f.label for f in FAMILIES.values() if f.needles) + " tasks"
    return (niah, name) if niah.any() else (None, "all tasks")
