"""Task and group names of the lm-eval integration, as data derived from the standard grid.

One task per standard config (``oneruler_{config}``, 952) and the groups ``oneruler`` (the 728
configs of the main grid), ``oneruler_{lang}`` (a language's 28 main configs),
``oneruler_{task}`` (a task's configs over the 26 languages: the main tasks and the
``s_niah_nonone`` ablation), ``oneruler_{length}`` (the main configs of one length) and
``oneruler_xling`` (the 120 cross-lingual configs).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.configs import STANDARD_LENGTHS, ConfigSpec, iter_standard_configs, render_length
from ..spec.languages import LANGUAGE_CODES
from ..spec.tasks import MAIN_TASKS, TASKS

PREFIX = "oneruler"
XLING_GROUP = f"{PREFIX}_xling"


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
    """Every task, in the order of the standard grid."""
    return [TaskEntry(task_name(s), s.name, s.task, TASKS[s.task].reserve) for s in iter_standard_configs()]


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
    return out
