"""Prompt sizes when nothing can count them: the row's ``num_tokens`` times a margin calibrated per task family.

``num_tokens`` is measured with the dataset's tokenizer; a model's tokenizer may need more tokens
for the same text, and how many more depends on the text: CWE prompts are numbered word lists
(tokenizers that split numbers into digits, like Gemma's, need far more), NIAH prompts are book
prose. Each family's record holds its margin (``TaskFamily.count_margin``): the worst ratio (model
tokens / dataset tokens - 1) measured per task over the 26 languages (every task at 8k) with the
tokenizers shipped for tests (Llama 3, Qwen 2.5, o200k_base) and a real Gemma 3 ``llama-server``,
rounded up: ``benchmarks/estimate_margins.py`` measures it again (docs/running.md has the table).
The dry run and the real run use the same rule; ``--count-margin`` overrides it.
"""

from __future__ import annotations

import math

from ...spec.tasks import family_of
from ..rows.selection import RowRef
from .dialects import CHAT_TEMPLATE_ALLOWANCE

BOS_ALLOWANCE = 1


def margin_for(task: str, margin: float | None) -> float:
    """``--count-margin`` if given, else the calibrated margin of the task's family."""
    return margin if margin is not None else family_of(task).count_margin


def estimate(rows: list[RowRef], margin: float | None, chat: bool) -> tuple[dict[str, int], str]:
    """(row id → estimated prompt tokens, how): ``num_tokens`` x (1 + margin) + the template allowance."""
    allowance = CHAT_TEMPLATE_ALLOWANCE if chat else BOS_ALLOWANCE
    counts = {r.id: math.ceil(r.num_tokens * (1 + margin_for(r.task, margin))) + allowance for r in rows}
    tokenizers = ", ".join(sorted({r.tokenizer for r in rows}))
    if margin is not None:
        how = f"+ {margin:.0%} (--count-margin)"
    else:
        used = {family_of(r.task) for r in rows}
        shown = ", ".join(f"{f.name} {f.count_margin:.0%}" for f in sorted(used, key=lambda f: f.name))
        how = f"+ a margin per task ({shown})"
    return counts, f"the dataset's num_tokens ({tokenizers}) {how} + {allowance} tokens for the template"
