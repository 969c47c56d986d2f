"""``ScoringOptions``: how outputs are scored (the paper's metric by default; docs/scoring.md), with one writer
(``as_json``: the ``options`` of scores.json) and one reader (``from_json``: ``oneruler compare`` reading them back)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ... import scoring
from ...base.errors import SettingError, named_setting
from .predictions import Prediction


@dataclass(frozen=True)
class ScoringOptions:
    """How outputs are scored (the paper's metric by default; see docs/scoring.md); checked when made, so that every
    way in (``score``, lm-eval, Inspect, a scores.json read back) refuses the same combinations."""

    strict: bool = False
    truncation: scoring.TruncationPolicy = "paper"
    missing_policy: scoring.MissingPolicy = "paper"
    strip_think: bool = True
    answer_tag: bool = False

    def __post_init__(self) -> None:
        for setting, valid in (("truncation", scoring.TRUNCATION_POLICIES), ("missing_policy", scoring.MISSING_POLICIES)):
            if getattr(self, setting) not in valid:
                raise SettingError(setting, f"must be one of {', '.join(valid)}, got {getattr(self, setting)!r}")
        if self.missing_policy == "upstream" and self.truncation != "paper":
            raise SettingError("truncation", f"{self.truncation} has no effect with {named_setting('missing_policy')} "
                                             f"upstream (truncated outputs are dropped)")

    def kwargs(self) -> dict:
        """Keyword arguments of ``scoring.score_example`` (strictness excepted)."""
        return dict(truncation=self.truncation, missing_policy=self.missing_policy, strip_think=self.strip_think,
                    answer_tag=self.answer_tag)

    def as_json(self) -> dict:
        """The ``options`` of scores.json (``missing``: the ``missing_policy``)."""
        return {"strict": self.strict, "truncation": self.truncation, "missing": self.missing_policy,
                "strip_think": self.strip_think, "answer_tag": self.answer_tag}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScoringOptions:
        """The options ``as_json`` wrote; a key an older scores.json lacks takes its default."""
        default = cls()
        return cls(data.get("strict", default.strict), data.get("truncation", default.truncation),
                   data.get("missing", default.missing_policy), data.get("strip_think", default.strip_think),
                   data.get("answer_tag", default.answer_tag))

    def answer_text(self, pred: Prediction) -> str | None:
        """The text the rules score of a prediction (None: null, or cut and treated as unanswered by the policies)."""
        cut = pred.finish_reason == "length" and (self.missing_policy == "upstream" or self.truncation != "score")
        if pred.prediction is None or cut:
            return None
        return scoring.extract_answer(pred.prediction, strip_think=self.strip_think, answer_tag=self.answer_tag)
