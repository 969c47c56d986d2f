"""``Prediction``: one answer to score, whichever file it came from (a predictions line, an lm-eval sample,
an Inspect sample)."""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.prediction_line import LineStatus


@dataclass
class Prediction:
    """One line of the predictions file."""

    id: str
    prediction: str | None
    finish_reason: str | None
    line: int
    status: LineStatus | None = None  # None: a status this version does not know (another writer)
    reasoning_chars: int | None = None  # the length of the reasoning the server split off (None: none recorded)
    usage: dict | None = None  # the line's usage: prompt_tokens, completion_tokens, reasoning_tokens
