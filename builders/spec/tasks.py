"""The ONERULER tasks, declared as data: one row per task, no per-task code."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NiahSpec:
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


@dataclass(frozen=True)
class CweSpec:
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


TASKS: dict[str, NiahSpec | CweSpec] = {
    t.name: t
    for t in [
        NiahSpec("s_niah", "Single NIAH", num_keys=1, num_values=1, num_queries=1),
        NiahSpec("mk_niah", "Multi-key NIAH", num_keys=4, num_values=1, num_queries=1),
        NiahSpec("mv_niah", "Multi-value NIAH", num_keys=1, num_values=4, num_queries=1),
        NiahSpec("mq_niah", "Multi-query NIAH", num_keys=2, num_values=1, num_queries=2),
        NiahSpec("none_niah", "None NIAH", num_keys=4, num_values=1, num_queries=1, relevant=False),
        CweSpec("cwe_easy", "CWE easy", 30, 3, 10, 1),
        CweSpec("cwe_hard", "CWE hard", 20, 10, 10, 5),
        NiahSpec("s_niah_nonone", "Single NIAH without the none option (Fig. 14)", num_keys=1,
                 num_values=1, num_queries=1, none_option=False, draws_as="s_niah"),
    ]
}

# The seven tasks of the paper's main grid (the ablation is listed separately).
MAIN_TASKS: tuple[str, ...] = ("s_niah", "mk_niah", "mv_niah", "mq_niah", "none_niah", "cwe_easy", "cwe_hard")
NIAH_TASKS: tuple[str, ...] = tuple(n for n, t in TASKS.items() if t.kind == "niah")
CROSS_LINGUAL_TASKS: tuple[str, ...] = ("s_niah", "mk_niah", "mv_niah", "mq_niah", "none_niah")


def get_task(name: str) -> NiahSpec | CweSpec:
    """Return a task spec, or raise a ValueError listing the valid task ids."""
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; valid: {', '.join(TASKS)}") from None
