"""Summaries of the records, each accuracy with its 95 % interval: one line per config (``config_scores``),
micro averages per task, language or length (``summaries_by``), the overall one, error categories per
task, coverage, and the strict/paper disagreements. The parts of scores.json and of the printed tables.
A group holding rows of a graded rule (RULER's) is valued by the mean score of its rows (their credit).
"""

from __future__ import annotations

from typing import Any, Sequence

from ... import scoring
from ...spec.configs import render_length
from ..documents.scores_json import ConfigScore, Summary
from ..score.records import Record
from ..stats.cells import Cell, RecordColumns
from .grouping import task_rank


def with_ci(summary: dict[str, Any], cell: Cell | None) -> Summary:
    """A ``scoring.summarize`` dict as a Summary carrying the cell's interval."""
    interval = cell.interval if cell is not None else None
    return Summary(**summary, ci=interval.as_list() if interval else None)


def summarize(scored: Sequence[Record], paper: bool = False) -> dict[str, Any]:
    """``scoring.summarize`` over scored records (their paper-mode scores if ``paper``); where a counted record is
    graded (RULER's rules), ``accuracy`` is the mean score (``scoring.mean_score``) and ``graded`` is True."""
    scores = [r.paper if paper else r.score for r in scored]
    summary = scoring.summarize(scores)
    if any(s.graded and s.counted for s in scores):
        summary.update(accuracy=scoring.mean_score(scores), graded=True)
    return summary


def coverage(records: Sequence[Record]) -> dict[str, tuple[int, int]]:
    """Config → (rows with a prediction line, rows), for every config referred to."""
    out: dict[str, list[int]] = {}
    for r in records:
        cell = out.setdefault(r.config, [0, 0])
        cell[0] += not r.no_line
        cell[1] += 1
    return {name: (have, total) for name, (have, total) in out.items()}


def partial_configs(records: Sequence[Record]) -> dict[str, tuple[int, int]]:
    """The configs whose coverage is incomplete."""
    return {name: c for name, c in coverage(records).items() if c[0] < c[1]}


def config_scores(records: Sequence[Record], columns: RecordColumns, strict: bool) -> list[ConfigScore]:
    """One line per config (task x language x length x tokenizer), with its Wilson interval, in paper order."""
    by_config: dict[str, list[Record]] = {}
    for r in records:
        by_config.setdefault(r.config, []).append(r)
    cells = columns.cells(("config",))
    out = []
    order = lambda rs: (task_rank(rs[0].task), rs[0].language, rs[0].length, rs[0].tokenizer)  # noqa: E731
    for mine in sorted(by_config.values(), key=order):
        first = mine[0]
        scored = [r for r in mine if not r.no_line]
        summary = summarize(scored)
        del summary["categories"]
        cell = cells[(first.config,)]
        paper = summarize(scored, paper=True)["accuracy"] if strict else None
        out.append(ConfigScore(first.config, first.task, first.language, first.length, first.tokenizer,
                               f"{len(scored)}/{len(mine)}", len(scored) < len(mine), **summary,
                               paper_accuracy=paper, ci=cell.interval.as_list() if cell.interval else None,
                               empty_reason=cell.empty_reason()))
    return out


def _value_rank(key: str, value: Any, records: Sequence[Record]) -> Any:
    """Sort key of a group value: tasks in paper order, lengths by size, others alphabetically."""
    if key == "task":
        return task_rank(value)
    if key == "length_label":
        return next(r.length for r in records if r.length_label == value)
    return 0


def summaries_by(key: str, scored: Sequence[Record], columns: RecordColumns) -> dict[str, Summary]:
    """Micro-averaged summaries per value of a record field (task, language, length_label), with intervals."""
    grouped: dict[Any, list[Record]] = {}
    for r in scored:  # one pass, not one pass per value
        grouped.setdefault(r.field(key), []).append(r)
    field_name = "length" if key == "length_label" else key
    cells = {render_length(k[0]) if key == "length_label" else k[0]: c
             for k, c in columns.cells((field_name,)).items()}
    values = sorted(grouped, key=lambda v: (_value_rank(key, v, scored), str(v)))
    return {str(v): with_ci(summarize(grouped[v]), cells.get(v)) for v in values}


def overall_cell(columns: RecordColumns) -> Cell | None:
    """All scored records pooled."""
    return columns.cells(()).get(())


def errors_by_task(by_task: dict[str, Summary]) -> dict[str, dict[str, int]]:
    """Error categories per task over counted examples, plus the dropped count."""
    return {task: dict(s.categories, counted=s.counted, dropped=s.dropped) for task, s in by_task.items()}


def disagreements(scored: Sequence[Record]) -> list[dict[str, Any]]:
    """Examples whose pass/fail differs between strict and paper mode (only strict records can differ)."""
    return [
        {"id": r.id, "task": r.task, "paper": int(r.paper.passed), "strict": int(r.score.passed),
         "prediction": (r.prediction or "")[:300]}
        for r in scored
        if r.paper.counted and r.paper.passed != r.score.passed
    ]
