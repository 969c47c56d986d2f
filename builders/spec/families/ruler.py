"""What RULER's task families share (Hsieh et al., 2024, NVIDIA/RULER): the task record, the answer-prefix field,
the language rules, and ``show``'s line about a row.

RULER's five families are records of their own (``ruler_niah.py``, ``ruler_vt.py``, ``ruler_cwe.py``,
``ruler_fwe.py``, ``ruler_qa.py``); their task ids are ``ruler_{name}`` with RULER's names
(``scripts/synthetic.yaml``). Every number a task takes from RULER (its settings, template, answer prefix,
``tokens_to_generate``, metric) is read by the generators from RULER's pinned files (``sources/ruler/``); a
record's ``setup`` and ``reserve`` say the same in words and numbers for the card and ``run``, and a test checks
them against those files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..family import ANSWER_PREFIX as PREFIX_FIELD, LanguageRule, RowField, TaskFamily

# Every RULER row carries the answer prefix RULER prefills after the prompt (its ``answer_prefix``).
ANSWER_PREFIX = RowField(
    PREFIX_FIELD, "string",
    "RULER's answer prefix: the start of the model's answer, sent after `input` as a prefilled assistant turn "
    "(appended to `input` where a server cannot continue one); `num_tokens` counts `input` + `answer_prefix`")

ENGLISH_ONLY = LanguageRule(("en",), ("en",), "RULER's English task")
RULER_UPSTREAM = ("ruler",)  # RULER's templates, settings and word list (raw/ruler/ruler.json)
ESSAY_UPSTREAMS = ("ruler", "paul_graham_essays", "nltk_punkt")  # the essay haystack and its sentence splitter
# VT: any context; RULER's English instructions, or the context's own where translations/ruler/{lang}.yaml has them.
ENGLISH_INSTRUCTIONS = LanguageRule(None, ("en",), "RULER's English instructions; no native translation yet",
                                    translated="variable_tracking")


_RECORDS: dict[str, TaskFamily] = {}  # RULER's family records by name, for their tasks' ``family``


@dataclass(frozen=True)
class RulerTask:
    """One of RULER's tasks: its family's name, its id here, RULER's name for it (``synthetic.yaml``; None: not one of
    RULER's 13), what it is for the card, and what RULER fixes (reserve = ``tokens_to_generate``, the metric)."""

    family_name: str  # ruler_niah
    name: str  # ruler_niah_single_1
    ruler_name: str | None  # niah_single_1
    paper_name: str
    setup: str  # the card's setup cell: haystack, keys, values, counts (checked against synthetic.yaml)
    needle_cell: str  # the card's needles cell
    gold: str  # the gold answer in words
    reserve: int
    scoring_rule: str
    main: bool = False

    @property
    def family(self) -> TaskFamily:
        """The family record (``ruler_family`` made it)."""
        return _RECORDS[self.family_name]

    @property
    def card_cells(self) -> tuple[str, str]:
        """(needles, setup) of the card's task table."""
        return self.needle_cell, self.setup

    @property
    def order(self) -> tuple[str, int]:
        """Listed as itself."""
        return self.name, 0


def show_lines(tasks: tuple[RulerTask, ...], more: Callable[[dict], list[str]] | None = None
               ) -> Callable[[dict], list[str]]:
    """``show``'s lines about a row of one of ``tasks``: its RULER setting, what ``more`` says about it, and the
    answer prefix sent after the prompt."""
    setups = {t.name: t.setup for t in tasks}

    def lines(row: dict) -> list[str]:
        return [f"RULER's setting: {setups.get(row['task'], '?')}", *(more(row) if more else []),
                f"answer prefix (prefilled as the start of the answer): {row['answer_prefix']!r}"]

    return lines


def ruler_family(*, tasks: tuple[RulerTask, ...], more_fields: tuple[RowField, ...] = (),
                 more_lines: Callable[[dict], list[str]] | None = None, **fields) -> TaskFamily:
    """A RULER family's record: ``fields`` as ``TaskFamily`` takes them, and what every RULER family has (the
    ``answer_prefix`` column then ``more_fields``, ``show``'s lines with ``more_lines``, RULER's files as upstream
    unless given, no fixed-depth configs, no task of the paper's main grid); its tasks then read it as their
    ``family``."""
    strangers = [t.name for t in tasks if t.family_name != fields["name"]]
    if strangers:
        raise ValueError(f"family {fields['name']!r}: task(s) {', '.join(strangers)} name another family")
    record = TaskFamily(tasks=tasks, row_fields=(ANSWER_PREFIX, *more_fields),
                        show_lines=show_lines(tasks, more_lines), depth_sweeps=False,
                        **{"upstreams": RULER_UPSTREAM, **fields})
    _RECORDS[record.name] = record
    return record
