"""Prompt sizes when nothing can count them: the row's ``num_tokens`` times a margin calibrated per task.

``num_tokens`` is measured with the dataset's tokenizer; a model's tokenizer may need more tokens
for the same text, and how many more depends on the text: CWE prompts are numbered word lists
(tokenizers that split numbers into digits, like Gemma's, need far more), NIAH prompts are book
prose. ``MARGINS`` is the worst ratio (model tokens / dataset tokens - 1) measured per task over
the 26 languages (every task at 8k) with the tokenizers shipped for tests (Llama 3, Qwen 2.5,
o200k_base) and a real Gemma 3 ``llama-server``, rounded up: ``benchmarks/estimate_margins.py`` measures it again (docs/running.md
has the table). The dry run and the real run use the same rule; ``--count-margin`` overrides it.
"""

from __future__ import annotations

import math

from ..rows.selection import RowRef
from .dialects import CHAT_TEMPLATE_ALLOWANCE

BOS_ALLOWANCE = 1
# Worst measured (238 configs at 8k, cl100k_base rows): CWE 1.399 (Qwen 2.5, en), 1.364 (Gemma 3);
# NIAH 1.017 (Qwen 2.5, sw). The old flat 10 % was 27 % short on CWE.
MARGINS = {"cwe": 0.45, "niah": 0.05}


def family(task: str) -> str:
    """``cwe`` for the word-list tasks, ``niah`` for every needle task."""
    return "cwe" if task.startswith("cwe") else "niah"


def margin_for(task: str, margin: float | None) -> float:
    """``--count-margin`` if given, else the calibrated margin of the task's family."""
    return margin if margin is not None else MARGINS[family(task)]


def estimate(rows: list[RowRef], margin: float | None, chat: bool) -> tuple[dict[str, int], str]:
    """(row id → estimated prompt tokens, how): ``num_tokens`` x (1 + margin) + the template allowance."""
    allowance = CHAT_TEMPLATE_ALLOWANCE if chat else BOS_ALLOWANCE
    counts = {r.id: math.ceil(r.num_tokens * (1 + margin_for(r.task, margin))) + allowance for r in rows}
    tokenizers = ", ".join(sorted({r.tokenizer for r in rows}))
    if margin is not None:
        how = f"+ {margin:.0%} (--count-margin)"
    else:
        used = sorted({family(r.task) for r in rows})
        how = "+ a margin per task (" + ", ".join(f"{f} {MARGINS[f]:.0%}" for f in used) + ")"
    return counts, f"the dataset's num_tokens ({tokenizers}) {how} + {allowance} tokens for the template"
