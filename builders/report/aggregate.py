"""``Report``: the summaries ``oneruler score`` prints and writes, computed from scored records."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from ..scoring import core as scoring
from ..spec.configs import render_length
from .predictions import Prediction
from .records import Record, ScoringOptions, score_rows


def _flat(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k != "categories"}


def task_rank(task: str) -> int:
    """Sort key of a task: the paper's order, unknown tasks last."""
    return scoring.TASK_IDS.index(task) if task in scoring.TASK_IDS else len(scoring.TASK_IDS)


@dataclass
class Report:
    """Everything `oneruler score` computes, ready to print and write.

    ``records`` holds every row of the configs the predictions refer to; ``scored`` those that
    have a prediction line. Only scored records enter an accuracy; the others make their config
    partial (its coverage is reported everywhere).
    """

    options: ScoringOptions
    records: list[Record] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # copied into scores.json as is (e.g. the run's meta)

    @property
    def strict(self) -> bool:
        """Whole-token matching (with paper-mode scores kept for comparison)."""
        return self.options.strict

    @functools.cached_property
    def scored(self) -> list[Record]:
        """The records that have a prediction line."""
        return [r for r in self.records if not r.missing]

    def summary(self, paper: bool = False) -> dict[str, Any]:
        """``scoring.summarize`` over the scored records (the paper-mode scores if ``paper``)."""
        return scoring.summarize((r.paper if paper else r.score) for r in self.scored)

    def coverage(self) -> dict[str, tuple[int, int]]:
        """Config → (rows with a prediction line, rows), for every config referred to."""
        out: dict[str, list[int]] = {}
        for r in self.records:
            cell = out.setdefault(r.config, [0, 0])
            cell[0] += not r.missing
            cell[1] += 1
        return {name: (have, total) for name, (have, total) in out.items()}

    def partial(self) -> dict[str, tuple[int, int]]:
        """The configs whose coverage is incomplete."""
        return {name: c for name, c in self.coverage().items() if c[0] < c[1]}

    def rank(self, key: str, value: Any):
        """Sort key of a group value: tasks in paper order, lengths by size, others alphabetically."""
        if key == "task":
            return task_rank(value)
        if key == "length_label":
            return next(r.length for r in self.records if r.length_label == value)
        return 0

    def groups(self) -> list[dict[str, Any]]:
        """One summary per config (task x language x length x tokenizer)."""
        by_config: dict[str, list[Record]] = {}
        for r in self.records:
            by_config.setdefault(r.config, []).append(r)
        out = []
        order = lambda rs: (self.rank("task", rs[0].task), rs[0].language, rs[0].length, rs[0].tokenizer)  # noqa: E731
        for records in sorted(by_config.values(), key=order):
            first = records[0]
            scored = [r for r in records if not r.missing]
            entry = {"config": first.config, "task": first.task, "language": first.language,
                     "length": first.length, "tokenizer": first.tokenizer,
                     "coverage": f"{len(scored)}/{len(records)}", "partial": len(scored) < len(records)}
            entry.update(_flat(scoring.summarize(r.score for r in scored)))
            if self.strict:
                entry["paper_accuracy"] = scoring.summarize(r.paper for r in scored)["accuracy"]
            out.append(entry)
        return out

    def by(self, key: str) -> dict[str, dict]:
        """Micro-averaged summaries per value of a record field (task, language, length_label)."""
        grouped: dict[Any, list[Record]] = {}
        for r in self.scored:  # one pass, not one pass per value
            grouped.setdefault(r.field(key), []).append(r)
        values = sorted(grouped, key=lambda v: (self.rank(key, v), str(v)))
        return {str(v): scoring.summarize(r.score for r in grouped[v]) for v in values}

    def errors(self) -> dict[str, dict[str, int]]:
        """Error categories per task over counted examples, plus the dropped count."""
        out = {}
        for task, summary in self.by("task").items():
            out[task] = dict(summary["categories"], counted=summary["counted"], dropped=summary["dropped"])
        return out

    def disagreements(self) -> list[dict[str, Any]]:
        """Examples whose pass/fail differs between strict and paper mode (strict reports only)."""
        if not self.strict:
            return []
        return [
            {"id": r.id, "task": r.task, "paper": int(r.paper.passed), "strict": int(r.score.passed),
             "prediction": (r.prediction or "")[:300]}
            for r in self.scored
            if r.paper.counted and r.paper.passed != r.score.passed
        ]

    def heatmap_matrix(self) -> tuple[list[str], list[str], list[list[float | None]], str]:
        """(languages, lengths, accuracy[language][length], scope): NIAH tasks pooled, like paper Fig. 3."""
        niah = [r for r in self.scored if scoring.is_niah(r.task)]
        records, scope = (niah, "NIAH tasks") if niah else (self.scored, "all tasks")
        lengths = sorted({r.length for r in records})
        cells: dict[tuple[str, int], list] = {}
        for r in records:
            cells.setdefault((r.language, r.length), []).append(r.score)
        overall = {lang: scoring.summarize(r.score for r in records if r.language == lang)["accuracy"]
                   for lang in {r.language for r in records}}
        languages = sorted(overall, key=lambda lang: (-(overall[lang] or 0.0), lang))
        matrix = [[scoring.summarize(cells.get((lang, n), []))["accuracy"] for n in lengths] for lang in languages]
        return languages, [render_length(n) for n in lengths], matrix, scope

    @functools.cached_property
    def data(self) -> dict[str, Any]:
        """The content of scores.json (computed once: build the records first)."""
        missing = [r for r in self.scored if r.score.status == "no_response"]
        truncated = [r for r in self.scored if r.finish_reason == "length"]
        partial = self.partial()
        data = {
            "mode": "strict" if self.strict else "paper",
            "truncation": self.options.truncation,
            "options": dict(vars(self.options)),
            "complete": not partial,
            "coverage": {"rows": len(self.records), "predicted": len(self.scored),
                         "missing_lines": len(self.records) - len(self.scored),
                         "partial_configs": {name: f"{have}/{total}" for name, (have, total) in sorted(partial.items())}},
            "overall": self.summary(),
            "null_predictions": {"niah": sum(scoring.is_niah(r.task) for r in missing),
                                 "cwe": sum(r.task in scoring.CWE_TASKS for r in missing),
                                 "dropped": sum(not r.score.counted for r in missing),
                                 "counted_wrong": sum(r.score.counted for r in missing)},
            "finish_reason_length": {"count": len(truncated),
                                     "niah": sum(scoring.is_niah(r.task) for r in truncated),
                                     "cwe": sum(r.task in scoring.CWE_TASKS for r in truncated)},
            "by_task": self.by("task"),
            "by_language": self.by("language"),
            "by_length": self.by("length_label"),
            "groups": self.groups(),
            "errors": self.errors(),
        }
        if self.strict:
            data["paper_overall"] = self.summary(paper=True)
            data["disagreements"] = {"count": len(self.disagreements()), "examples": self.disagreements()[:50]}
        data.update(self.extra)
        return data


def score_predictions(predictions: dict[str, Prediction], rows: dict[str, dict],
                      options: ScoringOptions = ScoringOptions()) -> Report:
    """Score every row of the referenced configs into a Report."""
    return Report(options, score_rows(predictions, rows, options))
