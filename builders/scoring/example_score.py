"""One example scored by a named rule (``score_example``), with the paper's policies for missing and cut
answers, and the aggregate of many (``summarize``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Literal, Sequence, get_args

from .answer_text import as_text, extract_answer
from .none_words import none_words
from .rule_registry import Rule, get_rule

CATEGORIES: tuple[str, ...] = ("correct", "none_when_present", "distractor", "partial", "wrong", "no_answer")
TruncationPolicy = Literal["paper", "score", "wrong"]  # finish_reason "length": no response / as written / wrong
TRUNCATION_POLICIES: tuple[str, ...] = get_args(TruncationPolicy)
# paper: null NIAH outputs dropped, null CWE ones wrong (footnote 10); upstream: null and truncated dropped.
MissingPolicy = Literal["paper", "upstream"]
MISSING_POLICIES: tuple[str, ...] = get_args(MissingPolicy)
ScoreStatus = Literal["scored", "no_response", "truncated", "missing"]  # "missing": reports' rows without a line


@dataclass(frozen=True)
class ExampleScore:
    """The score of one example: ``passed`` (0/1), ``recall`` (fraction of gold answers found, RULER's partial
    credit), ``category`` (one of CATEGORIES), ``counted`` (in the accuracy's denominator: False only for rows
    whose rule drops them — NIAH — when null, or truncated under the paper policy) and ``status`` (null output:
    "no_response"; finish_reason "length": "truncated")."""

    passed: bool
    recall: float
    category: str
    counted: bool = True
    status: ScoreStatus = "scored"
    graded: bool = False  # scored by a graded rule (RULER's): the row's score is ``recall``, not ``passed``

    @property
    def score(self) -> float:
        """The row's score: its partial credit under a graded rule (RULER's), else 1.0 or 0.0 for pass/fail."""
        return self.recall if self.graded else float(self.passed)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (for JSON); ``graded`` only when True, so the paper's rows keep their keys."""
        doc = {"passed": self.passed, "recall": self.recall, "category": self.category, "counted": self.counted,
               "status": self.status}
        return {**doc, "graded": True} if self.graded else doc


def check_policies(truncation: str, missing_policy: str) -> None:
    """ValueError unless both policies are known ones."""
    if truncation not in TRUNCATION_POLICIES:
        raise ValueError(f"unknown truncation policy {truncation!r}; valid: {', '.join(TRUNCATION_POLICIES)}")
    if missing_policy not in MISSING_POLICIES:
        raise ValueError(f"unknown missing policy {missing_policy!r}; valid: {', '.join(MISSING_POLICIES)}")


def _unscored(rule: Rule, is_null: bool, truncation: TruncationPolicy, missing_policy: MissingPolicy) -> ExampleScore:
    """The score of a null or length-truncated output that is not scored as text."""
    dropped = missing_policy == "upstream" or (rule.null_dropped and (is_null or truncation == "paper"))
    return ExampleScore(False, 0.0, "no_answer", counted=not dropped, status="no_response" if is_null else "truncated",
                        graded=rule.graded)


def score_example(
    prediction: Any,
    answers: Sequence[str],
    rule: str,
    instruction_language: str | None = None,
    *,
    needles: Iterable[Any] | None = None,
    strict: bool = False,
    finish_reason: str | None = None,
    truncation: TruncationPolicy = "paper",
    missing_policy: MissingPolicy = "paper",
    strip_think: bool = True,
    answer_tag: bool = False,
) -> ExampleScore:
    """Score one output against a row's gold `answers` with the scoring rule named `rule` (``RULES``).

    `instruction_language` is required by rules that need it (the none words of NIAH). `needles`
    (the row's list of {key, value, depth}, or just the values) enables the `distractor`
    category; without it distractors are reported as `wrong`/`partial`. A None prediction is
    "no response": under `missing_policy="paper"` left out of the accuracy where the rule drops it (NIAH)
    and counted wrong otherwise (CWE); under `missing_policy="upstream"` left out for every rule, as are
    length-truncated outputs. Otherwise, when `finish_reason == "length"`, `truncation` decides: "paper"
    treats the output as no response (a rule that scores cut answers as written, RULER's, scores it: that is
    RULER's own rule), "wrong" counts it wrong for every rule, "score" scores the text like any other. The
    text scored is `extract_answer(prediction, strip_think=..., answer_tag=...)`.
    """
    chosen = get_rule(rule)
    check_policies(truncation, missing_policy)
    if chosen.needs_language:
        none_words(instruction_language)  # type: ignore[arg-type]
    text = as_text(prediction)
    truncated = finish_reason == "length"
    as_written = truncation == "score" or (truncation == "paper" and chosen.cut_scored)
    if text is None or (truncated and (missing_policy == "upstream" or not as_written)):
        return _unscored(chosen, text is None, truncation, missing_policy)
    text = extract_answer(text, strip_think=strip_think, answer_tag=answer_tag)
    passed, recall, category = chosen.score(text, answers, instruction_language, needles, strict)
    if category not in CATEGORIES:
        raise ValueError(f"scoring rule {rule!r} gave category {category!r}; valid: {', '.join(CATEGORIES)}")
    return ExampleScore(passed, recall, category, status="truncated" if truncated else "scored", graded=chosen.graded)


def mean_score(scores: Iterable[ExampleScore]) -> float | None:
    """The mean ``score`` of the counted examples (None when nothing is counted): a graded rule's mean credit
    (RULER's task score, as a fraction), the accuracy for pass/fail rules."""
    counted = [s.score for s in scores if s.counted]
    return sum(counted) / len(counted) if counted else None


def summarize(scores: Iterable[ExampleScore]) -> dict[str, Any]:
    """Aggregate: accuracy = passed / counted (None when nothing is counted), mean recall, counts."""
    total = counted = passed = no_response = truncated = 0
    recall = 0.0
    categories = dict.fromkeys(CATEGORIES, 0)
    for score in scores:
        total += 1
        no_response += score.status == "no_response"
        truncated += score.status == "truncated"
        if score.counted:
            counted += 1
            passed += score.passed
            recall += score.recall
            categories[score.category] += 1
    return {"accuracy": passed / counted if counted else None, "recall": recall / counted if counted else None,
            "passed": passed, "counted": counted, "dropped": total - counted, "total": total,
            "no_response": no_response, "truncated": truncated, "categories": categories}
