"""The paper's metric inside lm-eval: ``acc`` per example through the project's scoring core (for RULER's tasks
the row's credit, RULER's graded score, so a task's ``acc`` is RULER's mean credit).

lm-eval passes ``process_results`` only the row and the model's outputs, so the scoring options
of the run travel in every row, as JSON in the column ``oneruler_scoring``.

No response: lm-eval's API back ends replace a null ``content`` by
``$LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER`` (default ``""``, which is scored: it fails and counts).
When that variable is set to a non-empty marker, a response equal to it is treated as no response,
as the paper does: a NIAH row gets ``acc = None`` (``counted_mean`` leaves it out), a CWE row
counts as wrong. lm-eval reports no ``finish_reason``, so a length-truncated answer is scored as
written (``oneruler run`` drops truncated NIAH answers).

A row with an answer prefix (its task's ``gen_prefix``) is scored on the model's continuation: a
response that begins with the prefix (llama.cpp returns a prefill's text before its continuation)
has it cut off first (``spec.family.continuation``; ``oneruler score`` reads the samples the same way).
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Iterable

from ..report.score.options import ScoringOptions
from ..scoring import score_example
from ..spec.family import ANSWER_PREFIX, continuation
from ..spec.tasks import get_task

SCORING_COLUMN = "oneruler_scoring"
NO_RESPONSE_ENV = "LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER"


def is_no_response(response: Any) -> bool:
    """True for None and for lm-eval's null-content marker when one is set (see the module docstring)."""
    marker = os.environ.get(NO_RESPONSE_ENV)
    return response is None or (bool(marker) and response == marker)


def options_json(options: ScoringOptions) -> str:
    """The options as the JSON stored in ``oneruler_scoring``."""
    return json.dumps({"strict": options.strict, "strip_think": options.strip_think,
                       "answer_tag": options.answer_tag}, sort_keys=True)


def options_of(doc: dict) -> ScoringOptions:
    """The scoring options stored in a row (the paper's defaults when the column is absent)."""
    raw = doc.get(SCORING_COLUMN)
    return ScoringOptions(**json.loads(raw)) if raw else ScoringOptions()


def score_doc(doc: dict, response: Any) -> float | None:
    """1.0 / 0.0 for one output (a RULER task's row: its credit, 0–1, RULER's score), or None when the paper leaves
    the example out of the accuracy."""
    options = options_of(doc)
    text = None if is_no_response(response) else continuation(response, doc.get(ANSWER_PREFIX))
    score = score_example(text, doc["answers"], get_task(doc["task"]).scoring_rule, doc["instruction_language"],
                          needles=doc.get("needles"), strict=options.strict, **options.kwargs())
    return score.score if score.counted else None


def counted_mean(values: Iterable[float | None]) -> float:
    """The accuracy: mean of the counted examples (NaN when none is counted)."""
    counted = [v for v in values if v is not None]
    return sum(counted) / len(counted) if counted else math.nan
