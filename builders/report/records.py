"""One scored row (``Record``) per dataset row of the configs a predictions file refers to."""

from __future__ import annotations

from dataclasses import dataclass

from ..base.errors import OneRulerError, problems_error
from ..scoring import core as scoring
from ..spec.configs import render_length
from .predictions import Prediction, config_of


@dataclass(frozen=True)
class Record:
    """A dataset row joined to its prediction and scored (``paper`` is ``score`` unless strict)."""

    id: str
    config: str
    task: str
    language: str  # context language, or "ctx-inst" for cross-lingual rows
    length: int
    tokenizer: str
    prediction: str | None
    finish_reason: str | None
    score: scoring.ExampleScore
    paper: scoring.ExampleScore

    @property
    def length_label(self) -> str:
        """``8k``, ``128k``, ``1m`` or the digits."""
        return render_length(self.length)

    def field(self, key: str):
        """A grouping key by name: ``task``, ``language`` or ``length_label``."""
        return getattr(self, key)


def language_label(row: dict) -> str:
    """The context language, or "ctx-inst" for cross-lingual rows."""
    ctx, inst = row["context_language"], row["instruction_language"]
    return ctx if ctx == inst else f"{ctx}-{inst}"


def _id_order(ident: str):
    index = ident.rpartition("/")[2]
    return config_of(ident), int(index) if index.isdigit() else -1, ident


def score_rows(predictions: dict[str, Prediction], rows: dict[str, dict], *, strict: bool = False,
               truncation: str = "paper") -> list[Record]:
    """Score every row; rows without a prediction count as no response. Unknown ids are an error."""
    unknown = [f"line {p.line}: unknown id {p.id!r}" for p in predictions.values() if p.id not in rows]
    if unknown:
        raise problems_error(unknown, "prediction id(s) not in the dataset")
    records = []
    for ident in sorted(rows, key=_id_order):
        row = rows[ident]
        pred = predictions.get(ident)
        text, reason = (pred.prediction, pred.finish_reason) if pred else (None, None)
        kwargs = dict(needles=row["needles"], finish_reason=reason, truncation=truncation)
        args = (text, row["answers"], row["task"], row["instruction_language"])
        try:
            score = scoring.score_example(*args, strict=strict, **kwargs)
            paper = scoring.score_example(*args, strict=False, **kwargs) if strict else score
        except ValueError as exc:
            raise OneRulerError(f"row {ident!r}: {exc}") from None
        records.append(Record(ident, row["config"], row["task"], language_label(row), row["length"],
                              row["tokenizer"], text, reason, score, paper))
    return records
