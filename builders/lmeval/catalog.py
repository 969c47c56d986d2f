"""Task and group names of the lm-eval integration, as data derived from the standard and sweep grids.

One task per standard config (``oneruler_{config}``, 952) and the groups ``oneruler`` (the 728
configs of the main grid), ``oneruler_{lang}`` (a language's 28 main configs),
``oneruler_{task}`` (a task's configs over the 26 languages: the main tasks and the
``s_niah_nonone`` ablation), ``oneruler_{length}`` (the main configs of one length) and
``oneruler_xling`` (the 120 cross-lingual configs); then one task per config of the sweep grids
(``spec/grids.py``: 1,264 fixed-depth, 208 multi-evidence) and their groups ``oneruler_depth`` (all),
``oneruler_depth_{lang}`` (a language's 44 s_niah depths), ``oneruler_depth_xling`` (CROSS's five
depths for the en/pl/ko pairs), ``oneruler_evidence`` (all) and ``oneruler_evidence_k{K}`` (one K); then one task
per config of RULER's grid (78) and the groups ``oneruler_ruler`` (all), ``oneruler_ruler_{task}`` (RULER's name:
``oneruler_ruler_niah_single_1``, six lengths) and ``oneruler_ruler_{length}`` (``oneruler_ruler_4096``, 13 tasks); then
one task per config of RULER's cross-lingual grid (192: VT in 25 books, QA over XQuAD in 7) and the groups
``oneruler_ruler_xling`` (all), ``oneruler_ruler_xling_{vt,qa_xquad}``, ``oneruler_ruler_xling_{lang}`` and
``oneruler_ruler_xling_{length}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.configs import ConfigSpec
from ..spec.grids import GRIDS, grid_configs, grid_groups
from ..spec.tasks import get_task

PREFIX = "oneruler"


@dataclass(frozen=True)
class TaskEntry:
    """One lm-eval task: its name, the config whose rows it evaluates, its answer budget, and whether its rows carry an
    answer prefix (``spec.family.ANSWER_PREFIX``) that the model's answer continues."""

    name: str
    config: str
    task: str
    reserve: int  # max new tokens: the tokens the row keeps free for the answer (30 NIAH, 50 CWE)
    prefilled: bool = False


def task_name(spec: ConfigSpec) -> str:
    """``oneruler_{config}`` of a text-control config."""
    return f"{PREFIX}_{spec.name}"


def task_entries() -> list[TaskEntry]:
    """Every task: each grid's configs (``spec/grids.py``: standard, then the sweeps), in grid order."""
    specs = [s for name in GRIDS for s in grid_configs(name)]
    return [TaskEntry(task_name(s), s.name, s.task, get_task(s.task).reserve, get_task(s.task).family.prefills)
            for s in specs]


def group_name(grid: str, suffix: str) -> str:
    """``oneruler``, ``oneruler_pl``, ``oneruler_depth``, ``oneruler_evidence_k16``: the prefix, the grid's group
    name (the standard grid has none) and the pool's suffix."""
    return "_".join(part for part in (PREFIX, GRIDS[grid].group, suffix) if part)


def groups() -> dict[str, list[str]]:
    """Group name → its task names, in grid order: every grid's pools (``Grid.groups``), grid after grid."""
    return {group_name(grid, suffix): [task_name(s) for s in specs]
            for grid in GRIDS for suffix, specs in grid_groups(grid).items()}
