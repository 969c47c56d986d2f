"""The paper's metric as an Inspect scorer: each answer scored by the project's scoring core.

The answer is ``state.output.completion``: the text Inspect kept once it took the reasoning off
(a server's ``reasoning_content``, a ``<think>`` block), as ``oneruler run`` keeps it; a leading
``<think>`` block still in the text is stripped by the core (unless ``keep_think``). Inspect
records why generation stopped; ``max_tokens`` is OpenAI's ``finish_reason`` "length", so the
truncation rules are the paper's, as for ``oneruler run`` files: a cut NIAH answer is dropped
from the accuracy, a cut CWE answer counts as wrong (``truncation``, ``missing_policy``: the
``oneruler score`` options).

Dropped answers: the score's value is NaN, Inspect's sentinel for "no value" (``Score.unscored``
in recent releases): Inspect's results leave every NaN score out of every metric and count it
as unscored, so ``accuracy`` is the paper's passed / counted. The score's metadata holds the
core's verdict: ``category`` (correct, partial, distractor, none_when_present, no_answer, wrong),
``recall``, ``counted``, ``status`` and the ``finish_reason``.

RULER's tasks are graded: a row's value is its credit (0–1, ``ExampleScore.score``), so ``accuracy`` over them is
RULER's mean credit. Metrics: ``accuracy`` and ``stderr`` over every counted row, and per ``config``, ``language``,
``task`` and ``length`` (``grouped``, named ``{group}:{value}`` and ``{group}:{value}:stderr``).
The standard error is clustered by example index (``stderr(cluster="index")``): rows of one index
share their draws across configs, so they are not independent.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, Score, Scorer, Target, accuracy, grouped, scorer, stderr
from inspect_ai.solver import TaskState

from ..report.score.options import ScoringOptions
from ..scoring import ExampleScore, extract_answer, score_example
from ..spec.prediction_line import finish_reason_of
from ..spec.tasks import get_task

GROUPS = ("config", "language", "task", "length")
CLUSTER = "index"


def oneruler_metrics() -> list[Metric]:
    """Accuracy and clustered standard error, overall and per config, language, task and length."""
    metrics = [accuracy(), stderr(cluster=CLUSTER)]
    for key in GROUPS:
        metrics += [grouped(accuracy(), key, all=False, name_template=f"{key}:{{group_name}}"),
                    grouped(stderr(cluster=CLUSTER), key, all=False, name_template=f"{key}:{{group_name}}:stderr")]
    return metrics


def explain(result: ExampleScore, finish_reason: str | None) -> str:
    """One line for the log viewer: the category, or why the answer is left out or counted wrong."""
    cut = " (cut at max_tokens)" if finish_reason == "length" else ""
    if not result.counted:
        return f"left out of the accuracy{cut}: {result.status.replace('_', ' ')}"
    return f"{result.category.replace('_', ' ')}, recall {result.recall:.2f}{cut}"


def score_answer(text: str | None, target: list[str], metadata: dict, finish_reason: str | None,
                 options: ScoringOptions) -> Score:
    """The Score of one answer: 1.0 / 0.0 (a RULER task's row: its credit, 0–1), or NaN when the paper leaves it out;
    the core's verdict as metadata."""
    kwargs = dict(needles=metadata.get("needles"), finish_reason=finish_reason, **options.kwargs())
    args = (text, target, get_task(metadata["task"]).scoring_rule, metadata["instruction_language"])
    result = score_example(*args, strict=options.strict, **kwargs)
    details = {**result.to_dict(), "finish_reason": finish_reason}
    if options.strict:
        details["paper_passed"] = score_example(*args, strict=False, **kwargs).passed
    answer = extract_answer(text, strip_think=options.strip_think, answer_tag=options.answer_tag)
    return Score(value=result.score if result.counted else math.nan, answer=answer,
                 explanation=explain(result, finish_reason), metadata=details)


@scorer(metrics=oneruler_metrics(), name="oneruler")
def oneruler_scorer(strict: bool = False, truncation: str = "paper", missing_policy: str = "paper",
                    keep_think: bool = False, answer_tag: bool = False) -> Scorer:
    """The paper's metric (``strict``: whole-token matching; the rest as ``oneruler score``'s options)."""
    options = ScoringOptions(strict, truncation, missing_policy, not keep_think, answer_tag)

    async def score(state: TaskState, target: Target) -> Score:
        return score_answer(state.output.completion, list(target.target), state.metadata,
                            finish_reason_of(state.output.stop_reason), options)

    return score
