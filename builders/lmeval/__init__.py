"""ONERULER as lm-evaluation-harness tasks (``lm_eval --include_path "$(oneruler lm-eval-path)"``).

``tasks/oneruler/`` holds one template, 2,502 generated task YAMLs (one per config of the grids of
``spec/grids.py``: 952 standard, 1,264 fixed-depth, 208 multi-evidence, 78 RULER), 93 group YAMLs and ``utils.py``
(what lm-eval calls); ``make_tasks.py`` regenerates them from ``catalog.py``. See docs/lm-eval.md.
"""

from __future__ import annotations

from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
TASK_FOLDER = TASKS_DIR / "oneruler"


def tasks_path() -> Path:
    """The folder to pass to ``lm_eval --include_path``."""
    return TASKS_DIR
