"""One scored row (``Record``) per dataset row of the configs a predictions file refers to (``score_rows``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ...base.errors import OneRulerError, problems_error
from ... import scoring
from ...spec.configs import ConfigNameError, language_label, parse_config_name, render_length
from ...spec.tasks import get_task
from ...spec.ids import id_order
from .needles import NeedleHit, needle_hits
from .options import ScoringOptions
from .predictions import Prediction


# The score of a row with no prediction line: a run that did not finish, never in any accuracy.
NO_LINE_SCORE = scoring.ExampleScore(False, 0.0, "no_answer", counted=False, status="missing")


@dataclass(frozen=True)
class Record:
    """A dataset row joined to its prediction and scored (``paper`` is ``score`` unless strict).

    ``no_line``: the predictions file has no line for this row (an unfinished run); such records
    enter no accuracy and make their config partial. ``index``: the row's example index (rows of
    one index share their draws across languages). ``needle_hits``: where each queried needle of a counted
    NIAH row sits and whether it was retrieved (docs/scoring.md, "Accuracy by depth").
    """

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
    no_line: bool = False
    index: int = 0
    needle_hits: tuple[NeedleHit, ...] = ()

    @property
    def length_label(self) -> str:
        """``8k``, ``128k``, ``1m`` or the digits."""
        return render_length(self.length)

    @property
    def fixed_depth(self) -> int | None:
        """The depth D of a fixed-depth sweep config (``_at{D}``); None for every other config."""
        return fixed_depth(self.config)

    def field(self, key: str):
        """A grouping key by name: ``task``, ``language`` or ``length_label``."""
        return getattr(self, key)


@lru_cache(maxsize=None)
def fixed_depth(config: str) -> int | None:
    """The ``_at{D}`` of a config name (None: not a sweep config, or not a config name); any tokenizer alias is
    accepted, the report reads configs built elsewhere."""
    try:
        return parse_config_name(config, (config.rsplit("_", 1)[-1],)).depth
    except ConfigNameError:
        return None


def _rule_of(task: str, rules: dict[str, scoring.Rule]) -> scoring.Rule:
    """The scoring rule of a task (its record's ``scoring_rule``), looked up once per task in ``rules``."""
    if task not in rules:
        rules[task] = scoring.get_rule(get_task(task).scoring_rule)
    return rules[task]


def score_rows(predictions: dict[str, Prediction], rows: dict[str, dict],
               options: ScoringOptions = ScoringOptions()) -> list[Record]:
    """Score every row with its task's rule; rows without a prediction line are missing. Unknown ids are an error."""
    unknown = [f"line {p.line}: unknown id {p.id!r}" for p in predictions.values() if p.id not in rows]
    if unknown:
        raise problems_error(unknown, "prediction id(s) not in the dataset")
    records: list[Record] = []
    rules: dict[str, scoring.Rule] = {}
    for _, index, ident in sorted(map(id_order, rows)):
        row = rows[ident]
        language = language_label(row["context_language"], row["instruction_language"])
        head = (ident, row["config"], row["task"], language, row["length"], row["tokenizer"])
        pred = predictions.get(ident)
        if pred is None:
            records.append(Record(*head, None, None, NO_LINE_SCORE, NO_LINE_SCORE, no_line=True, index=index))
            continue
        kwargs = dict(needles=row["needles"], finish_reason=pred.finish_reason, **options.kwargs())
        try:
            rule = _rule_of(row["task"], rules)
            args = (pred.prediction, row["answers"], rule.name, row["instruction_language"])
            score = scoring.score_example(*args, strict=options.strict, **kwargs)
            paper = scoring.score_example(*args, strict=False, **kwargs) if options.strict else score
        except ValueError as exc:
            raise OneRulerError(f"row {ident!r}: {exc}") from None
        hits = needle_hits(row, score, rule, lambda: options.answer_text(pred))
        records.append(Record(*head, pred.prediction, pred.finish_reason, score, paper, index=index, needle_hits=hits))
    return records
