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

from ..family import LanguageRule, RowField, TaskFamily

# Every RULER row carries the answer prefix RULER prefills after the prompt (its ``answer_prefix``).
ANSWER_PREFIX = RowField(
    "answer_prefix", "string",
    "RULER's answer prefix: the start of the model's answer, sent after `input` as a prefilled assistant turn "
    "(appended to `input` where a server cannot continue one); `num_tokens` counts `input` + `answer_prefix`")

ENGLISH_ONLY = LanguageRule(("en",), ("en",), "RULER's English task")
# VT: any context; RULER's English instructions, or the context's own where translations/ruler/{lang}.yaml has them.
ENGLISH_INSTRUCTIONS = LanguageRule(None, ("en",), "RULER's English instructions; no native translation yet",
                                    translated="variable_tracking")


@dataclass(frozen=True)
class RulerTask:
    """One of RULER's tasks: its id here, RULER's name for it (``synthetic.yaml``; None: not one of RULER's 13),
    what it is for the card, and what RULER fixes (reserve = ``tokens_to_generate``, the metric)."""

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
        """The family record (each family's task class says which)."""
        raise NotImplementedError

    @property
    def card_cells(self) -> tuple[str, str]:
        """(needles, setup) of the card's task table."""
        return self.needle_cell, self.setup

    @property
    def order(self) -> tuple[str, int]:
        """Listed as itself."""
        return self.name, 0


def answer_prefix_line(row: dict) -> list[str]:
    """``show``'s line about a RULER row: the answer prefix sent after the prompt."""
    return [f"answer prefix (prefilled as the start of the answer): {row['answer_prefix']!r}"]
