"""How the views order and pool rows: tasks in the reports' order (``task_rank``, ``spec/tasks.py:listing_rank``)
and the pool of tasks with needles that the heatmaps and effective lengths read (``niah_scope``)."""

from __future__ import annotations

import numpy as np

from ...spec.tasks import FAMILIES, family_of, has_needles, listing_rank
from ..stats.cells import RecordColumns


def task_rank(task: str) -> tuple[int, int, str]:
    """Sort key of a task: family by family in each family's order; ``mv{K}[e]_niah`` right after mv_niah by K;
    other ids last."""
    return listing_rank(task)


def niah_scope(columns: RecordColumns) -> tuple[np.ndarray | None, str]:
    """(row mask, name): the tasks whose family places needles (NIAH) when the records have any, else every task
    (mask None); the name lists the needle families the records hold (``NIAH tasks``)."""
    niah = columns.mask("task", has_needles)
    held = {family_of(task).name for task in columns.values["task"] if has_needles(task)}
    name = "/".join(f.label for f in FAMILIES.values() if f.name in held) + " tasks"
    return (niah, name) if niah.any() else (None, "all tasks")
