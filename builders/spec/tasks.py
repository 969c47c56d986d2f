"""The ONERULER tasks, declared as data: one row per task, no per-task code."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..scoring.core import MULTI_VALUE_TASK


@dataclass(frozen=True)
class NiahTask:
    """A needle-in-a-haystack variant."""

    name: str
    paper_name: str
    num_keys: int  # distinct keys with needles in the text
    num_values: int  # needles (values) per key
    num_queries: int  # keys asked about
    relevant: bool = True  # False: query a key absent from the text (gold = "none")
    none_option: bool = True  # False: drop the "if no such numbers" sentence (Fig. 14 ablation)
    draws_as: str | None = None  # share random draws with another task (paired ablation)
    kind: str = "niah"
    reserve: int = 30
    even: bool = False  # True: value j at depth 100·(j+0.5)/K (Counting-Stars) instead of grid draws


@dataclass(frozen=True)
class CweTask:
    """A common-words-extraction variant; frequencies at lengths <= 8,000 follow upstream's rule."""

    name: str
    paper_name: str
    freq_common: int
    freq_uncommon: int
    short_freq_common: int
    short_freq_uncommon: int
    num_common: int = 10
    short_max_length: int = 8_000
    kind: str = "cwe"
    reserve: int = 50

    def frequencies(self, length: int) -> tuple[int, int]:
        """(times each common word appears, times each uncommon word appears) at this length."""
        if length <= self.short_max_length:
            return self.short_freq_common, self.short_freq_uncommon
        return self.freq_common, self.freq_uncommon


TASKS: dict[str, NiahTask | CweTask] = {
    t.name: t
    for t in [
        NiahTask("s_niah", "Single NIAH", num_keys=1, num_values=1, num_queries=1),
        NiahTask("mk_niah", "Multi-key NIAH", num_keys=4, num_values=1, num_queries=1),
        NiahTask("mv_niah", "Multi-value NIAH", num_keys=1, num_values=4, num_queries=1),
        NiahTask("mq_niah", "Multi-query NIAH", num_keys=2, num_values=1, num_queries=2),
        NiahTask("none_niah", "None NIAH", num_keys=4, num_values=1, num_queries=1, relevant=False),
        CweTask("cwe_easy", "CWE easy", 30, 3, 10, 1),
        CweTask("cwe_hard", "CWE hard", 20, 10, 10, 5),
        NiahTask("s_niah_nonone", "Single NIAH without the none option (Fig. 14)", num_keys=1,
                 num_values=1, num_queries=1, none_option=False, draws_as="s_niah"),
    ]
}

# The seven tasks of the paper's main grid (the ablation is listed separately).
MAIN_TASKS: tuple[str, ...] = ("s_niah", "mk_niah", "mv_niah", "mq_niah", "none_niah", "cwe_easy", "cwe_hard")
NIAH_TASKS: tuple[str, ...] = tuple(n for n, t in TASKS.items() if t.kind == "niah")
CROSS_LINGUAL_TASKS: tuple[str, ...] = ("s_niah", "mk_niah", "mv_niah", "mq_niah", "none_niah")


# Multi-evidence tasks ``mv{K}_niah`` / ``mv{K}e_niah`` (the pattern is the scoring layer's), made on demand.
MIN_VALUES, MAX_VALUES = 2, 256
# Tokens per value of a complete answer, worst case over the 26 instruction languages, seven list
# separators and the shipped tokenizers (Qwen 2: one token per digit + 2 for "، "; cl100k, o200k,
# Llama 3: 5). Measured by benchmarks/answer_tokens.py.
ANSWER_TOKENS_PER_VALUE = 9
TASK_FORMS = "mv{K}_niah or mv{K}e_niah (K = 2..256)"


def multi_value_reserve(values: int) -> int:
    """The answer reserve of a K-value task: the NIAH reserve (30) + 9 tokens per value."""
    return TASKS["mv_niah"].reserve + math.ceil(ANSWER_TOKENS_PER_VALUE * values)


def multi_value_form(name: object) -> bool:
    """Whether ``name`` has the form ``mv{K}_niah`` / ``mv{K}e_niah`` (any K, valid or not)."""
    return isinstance(name, str) and MULTI_VALUE_TASK.fullmatch(name) is not None


def multi_value_task(name: str) -> NiahTask | None:
    """The task ``mv{K}_niah`` (random grid depths) or ``mv{K}e_niah`` (evenly spaced); None if not that form.

    Raises ValueError for that form with K outside 2..256 or written with a leading zero.
    """
    m = MULTI_VALUE_TASK.fullmatch(name) if isinstance(name, str) else None
    if m is None:
        return None
    k = int(m["values"])
    if not MIN_VALUES <= k <= MAX_VALUES or m["values"] != str(k):
        raise ValueError(f"task {name!r}: K = {m['values']} values is not valid; use {TASK_FORMS}, "
                         f"e.g. mv16e_niah")
    even = bool(m["even"])
    spacing = "evenly spaced" if even else "at random grid depths"
    return NiahTask(name, f"Multi-value NIAH, {k} values {spacing}", num_keys=1, num_values=k, num_queries=1,
                    draws_as="mv_niah", reserve=multi_value_reserve(k), even=even)


def get_task(name: str) -> NiahTask | CweTask:
    """Return a task (a standard id or a multi-evidence form), or raise a ValueError listing the valid ids."""
    task = TASKS.get(name) or multi_value_task(name)
    if task is None:
        raise ValueError(f"unknown task {name!r}; valid: {', '.join(TASKS)}, {TASK_FORMS}")
    return task
