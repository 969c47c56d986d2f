"""The content of scores.json as a function of a Report (``scores_document``): coverage, summaries with
intervals, null and truncated outputs, error categories, how the intervals were computed, the sample
size, RULER's table row when the report holds RULER's rows, and in strict reports the paper-mode overall and
the disagreements."""

from __future__ import annotations

from typing import Sequence

from ...spec.tasks import FAMILIES, family_of
from ..documents.scores_json import Coverage, FinishReasonLength, NullPredictions, ScoresDocument, Summary
from ..report_data import Report
from ..score.records import Record
from ..stats.bootstrap import ClusterBootstrap
from ..stats.closed_form import Z95
from .ruler_table import ruler_rows
from .sample_size import sample_size
from .summaries import (config_scores, disagreements, errors_by_task, overall_cell, partial_configs, summaries_by,
                        summarize, with_ci)

DISAGREEMENTS_SHOWN = 50  # examples of scores.json's disagreements (all of them in disagreements.jsonl)


GRADED_INTERVAL = ("graded rows (RULER's rules: each row's credit, 0–1) are never Wilson's: a config or pool holding "
                   "any takes the cluster bootstrap of its rows' mean score")


def intervals_method(bootstrap: ClusterBootstrap, graded: bool = False) -> dict[str, str]:
    """How each kind of interval was computed (stated in scores.json; ``graded``: the report holds graded rows)."""
    method = {"confidence": "95 %", "config": f"Wilson score interval (z = {Z95:.4f})", "pooled": bootstrap.describe()}
    return {**method, "graded": GRADED_INTERVAL} if graded else method


def by_family(scored: Sequence[Record], chosen: Sequence[Record]) -> dict[str, int]:
    """How many of ``chosen`` each task family has, for every family of the ``scored`` rows (in the families'
    order; a family with none of them counts 0)."""
    families = {task: family_of(task).name for task in {r.task for r in scored}}
    counts = {name: 0 for name in FAMILIES if name in families.values()}
    for r in chosen:
        counts[families[r.task]] += 1
    return counts


def null_predictions(scored: Sequence[Record]) -> NullPredictions:
    """The scored rows without a response, per task family, and how the policy counted them."""
    unanswered = [r for r in scored if r.score.status == "no_response"]
    return NullPredictions(by_family(scored, unanswered), sum(not r.score.counted for r in unanswered),
                           sum(r.score.counted for r in unanswered))


def finish_reason_length(scored: Sequence[Record]) -> FinishReasonLength:
    """The outputs cut at the token limit per task family, and the outputs whose line records no finish_reason."""
    truncated = [r for r in scored if r.finish_reason == "length"]
    return FinishReasonLength(len(truncated), by_family(scored, truncated),
                              sum(r.finish_reason is None and r.prediction is not None for r in scored))


def scores_document(report: Report) -> ScoresDocument:
    """The content of scores.json (it pools every summary: compute it once per report)."""
    records, scored, columns = report.records, report.scored, report.columns
    partial = partial_configs(records)
    groups = config_scores(records, columns, report.strict)
    by_task = summaries_by("task", scored, columns)
    doc = ScoresDocument(
        mode="strict" if report.strict else "paper", truncation=report.options.truncation, options=report.options,
        complete=not partial,
        coverage=Coverage(len(records), len(scored), len(records) - len(scored),
                          {name: f"{have}/{total}" for name, (have, total) in sorted(partial.items())}),
        overall=with_ci(summarize(scored), overall_cell(columns)), null_predictions=null_predictions(scored),
        finish_reason_length=finish_reason_length(scored), by_task=by_task,
        by_language=summaries_by("language", scored, columns), by_length=summaries_by("length_label", scored, columns),
        groups=groups, errors=errors_by_task(by_task), intervals=intervals_method(columns.bootstrap, bool(columns.graded.any())),
        sample_size=sample_size(columns, groups), dataset=report.dataset,
        ruler_table=ruler_rows(columns, report.settings.threshold) or None, extra=dict(report.extra))
    if report.strict:
        doc.paper_overall = Summary(**summarize(scored, paper=True))
        found = disagreements(scored)
        doc.disagreements = {"count": len(found), "examples": found[:DISAGREEMENTS_SHOWN]}
    return doc
