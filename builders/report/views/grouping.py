"""How the views order and pool rows: tasks in the paper's order (``task_rank``) and the NIAH pool that the
heatmaps and effective lengths read (``niah_scope``)."""

from __future__ import annotations

import numpy as np

from ...scoring import core as scoring
from ..stats.cells import RecordColumns


def task_rank(task: str) -> tuple[int, int, str]:
    """Sort key of a task: the paper's order; ``mv{K}[e]_niah`` right after mv_niah by K; other ids last."""
    if task in scoring.TASK_IDS:
        return scoring.TASK_IDS.index(task), 0, ""
    variant = scoring.MULTI_VALUE_TASK.fullmatch(task) if isinstance(task, str) else None
    if variant:
        return scoring.TASK_IDS.index("mv_niah"), int(variant["values"]) * 2 + bool(variant["even"]), task
    return len(scoring.TASK_IDS), 0, str(task)


def niah_scope(columns: RecordColumns) -> tuple[np.ndarray | None, str]:
    """(row mask, name): the NIAH tasks when the records have any, else every task (mask None)."""
    niah = columns.mask("task", scoring.is_niah)
    return (niah, "NIAH tasks") if niah.any() else (None, "all tasks")
