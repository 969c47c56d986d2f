"""A toy task family whose rows carry an answer prefix, for the tests of how run, lm-eval and Inspect send it.

RULER's rows have the family field ``answer_prefix`` (``spec.family.ANSWER_PREFIX``): the words the
answer starts with, which RULER puts after the chat template for the model to continue. The
behaviour is keyed on that field, never on a task name, so any family whose rows have it gets it:
this one ("recall": say the special number of the text), registered here and never in the
package, the way tests/spec/test_family.py registers its own toy family (``register_family``; the
scoring rule is NIAH's ``numbers``). ``registered()`` adds it and takes it out again; ``prefix_rows``
writes rows in the exporter's layout (``run_fixtures.write_export``). A subprocess (lm-eval's CLI)
registers it with ``python -c "import prefix_family; prefix_family.register(); ..."``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Iterator

import tiktoken

from builders.spec import tasks as task_table
from builders.spec.family import ANSWER_PREFIX, RowField, TaskFamily

CL100K = tiktoken.get_encoding("cl100k_base")
HAYSTACK = "The river ran past the mill and the old bridge. "
TASK = "recall_num"
RESERVE = 20


@dataclass(frozen=True)
class RecallTask:
    """Say the special number hidden in the text."""

    name: str = TASK
    paper_name: str = "Toy recall with an answer prefix"
    reserve: int = RESERVE
    scoring_rule: str = "numbers"
    main: bool = False

    @property
    def family(self) -> TaskFamily:
        return RECALL

    @property
    def gold(self) -> str:
        return "the special number"

    @property
    def card_cells(self) -> tuple[str, str]:
        return "—", "one number"

    @property
    def order(self) -> tuple[str, int]:
        return self.name, 0


RECALL = TaskFamily(name="recall", label="RECALL", summary="say the special number, continuing an answer prefix",
                    unit="sentences", reserve=RESERVE, count_margin=0.05, needles=False, cross_lingual=False,
                    depth_sweeps=False, scoring_rule="numbers", tasks=(RecallTask(),),
                    row_fields=(RowField(ANSWER_PREFIX, "string", "the words the answer starts with"),))


def register() -> TaskFamily:
    """Add the family to the task table (a subprocess does this before anything reads a row)."""
    return task_table.register_family(RECALL)


@contextlib.contextmanager
def registered() -> Iterator[TaskFamily]:
    """The family registered for the block, then the task table as it was."""
    saved = dict(task_table.FAMILIES), dict(task_table.TASKS)
    register()
    try:
        yield RECALL
    finally:
        for table, before in zip((task_table.FAMILIES, task_table.TASKS), saved):
            table.clear()
            table.update(before)


def gold(config: str, index: int) -> str:
    """The special number of a row."""
    return str(2_000_000 + 7919 * (index + 1) + 104_729 * len(config))


def prefix_row(config: str, index: int, words: int = 40, prefix: str | None = None) -> dict:
    """One row of ``config`` (``{lang}_recall_num_{length}``): ``input`` without the prefix, ``num_tokens`` of both
    (cl100k), the prompt marked ``row <id>`` for the stand-in servers (``prefix``: another answer prefix)."""
    lang = config.split("_", 1)[0]
    text = (f"Some text. row {config}/{index} " + HAYSTACK * words + f"The special number is {gold(config, index)}. "
            + HAYSTACK * 3 + "What is the special number mentioned in the provided text?")
    # like RULER's, it starts with a space; the number in it is no answer: scored with it, a row fails (``numbers``)
    answer_prefix = " The special number of the 12 lines above is" if prefix is None else prefix
    return {
        "id": f"{config}/{index}", "config": config, "task": TASK, "context_language": lang,
        "instruction_language": lang, "length": 8000, "tokenizer": "cl100k_base", "input": text,
        "answers": [gold(config, index)], "num_tokens": len(CL100K.encode(text + answer_prefix)), "needles": [],
        "queries": [], "context_span": [0, len(text)], "index": index, "seed": 42, "reserve": RESERVE,
        "budget": 8000 - RESERVE, "num_units": words, ANSWER_PREFIX: answer_prefix,
    }


def prefix_rows(config: str, count: int, words: int = 40) -> list[dict]:
    """``count`` rows of one config."""
    return [prefix_row(config, i, words) for i in range(count)]
