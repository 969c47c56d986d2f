"""Task and group names of the lm-eval integration, as data derived from the standard and sweep grids.

One task per standard config (``oneruler_{config}``, 952) and the groups ``oneruler`` (the 728
configs of the main grid), ``oneruler_{lang}`` (a language's 28 main configs),
``oneruler_{task}`` (a task's configs over the 26 languages: the main tasks and the
``s_niah_nonone`` ablation), ``oneruler_{length}`` (the main configs of one length) and
``oneruler_xling`` (the 120 cross-lingual configs); then one task per config of the sweep grids
(``spec/grids.py``: 1,264 fixed-depth, 208 multi-evidence) and their groups ``oneruler_depth`` (all),
``oneruler_depth_{lang}`` (a language's 44 s_niah depths), ``oneruler_depth_xling`` (CROSS's five
depths for the en/pl/ko pairs), ``oneruler_evidence`` (all) and ``oneruler_evidence_k{K}`` (one K).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.configs import STANDARD_LENGTHS, ConfigSpec, iter_standard_configs, render_length
from ..spec.grids import EVIDENCE_VALUES, GRIDS, iter_depth_configs, iter_evidence_configs
from ..spec.languages import LANGUAGE_CODES
from ..spec.tasks import MAIN_TASKS, TASKS, get_task

PREFIX = "oneruler"
XLING_GROUP = f"{PREFIX}_xling"
DEPTH_GROUP = f"{PREFIX}_depth"
EVIDENCE_GROUP = f"{PREFIX}_evidence"


@dataclass(frozen=True)
class TaskEntry:
    """One lm-eval task: its name, the config whose rows it evaluates, and its answer budget."""

    name: str
    config: str
    task: str
    reserve: int  # max new tokens: the tokens the row keeps free for the answer (30 NIAH, 50 CWE)


def task_name(spec: ConfigSpec) -> str:
    """``oneruler_{config}`` of a text-control config."""
    return f"{PREFIX}_{spec.name}"


def is_main(spec: ConfigSpec) -> bool:
    """A config of the paper's main grid (7 tasks, same language for context and instructions)."""
    return not spec.is_cross_lingual and spec.task in MAIN_TASKS


def task_entries() -> list[TaskEntry]:
    """Every task: the standard grid's, then the depth and evidence sweeps', each in grid order."""
    specs = [s for make in GRIDS.values() for s in make()]
    return [TaskEntry(task_name(s), s.name, s.task, get_task(s.task).reserve) for s in specs]


def groups() -> dict[str, list[str]]:
    """Group name → its task names, in grid order; groups in a fixed order."""
    specs = list(iter_standard_configs())
    main = [s for s in specs if is_main(s)]
    out: dict[str, list[str]] = {PREFIX: [task_name(s) for s in main]}
    for lang in LANGUAGE_CODES:
        out[f"{PREFIX}_{lang}"] = [task_name(s) for s in main if s.context_language == lang]
    for task in TASKS:
        out[f"{PREFIX}_{task}"] = [task_name(s) for s in specs if s.task == task and not s.is_cross_lingual]
    for length in STANDARD_LENGTHS:
        out[f"{PREFIX}_{render_length(length)}"] = [task_name(s) for s in main if s.length == length]
    out[XLING_GROUP] = [task_name(s) for s in specs if s.is_cross_lingual]
    out.update(sweep_groups())
    return out


def sweep_groups() -> dict[str, list[str]]:
    """The groups of the depth and evidence sweeps (``spec/grids.py``)."""
    depth = list(iter_depth_configs())
    evidence = list(iter_evidence_configs())
    out: dict[str, list[str]] = {DEPTH_GROUP: [task_name(s) for s in depth]}
    for lang in LANGUAGE_CODES:
        out[f"{DEPTH_GROUP}_{lang}"] = [task_name(s) for s in depth if s.languages == lang]
    out[f"{DEPTH_GROUP}_xling"] = [task_name(s) for s in depth if s.is_cross_lingual]
    out[EVIDENCE_GROUP] = [task_name(s) for s in evidence]
    for values in EVIDENCE_VALUES:
        out[f"{EVIDENCE_GROUP}_k{values}"] = [task_name(s) for s in evidence if s.task == f"mv{values}e_niah"]
    return out
