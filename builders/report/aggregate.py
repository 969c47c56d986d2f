"""``Report``: the summaries ``oneruler score`` prints and writes (and ``oneruler compare`` reads back),
computed from scored records, each accuracy with its 95 % interval."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from ..scoring import core as scoring
from ..spec.configs import render_length
from ..spec.languages import LANGUAGES
from .cells import Cell, RecordColumns
from .depth import DEPTH_BINS, DepthCell, depth_cells
from .effective import EffectiveLength, report_effective_lengths
from ..dataset.source import DatasetIdentity
from .documents import ConfigScore, ScoresDocument, Summary
from .predictions import Prediction
from .records import Record, ScoringOptions, score_rows
from .stats import ALPHA, POWER, Z95, detectable_difference, detectable_from_error

ABSOLUTE_THRESHOLD = 0.856  # RULER §3: Llama-2-7B's accuracy at 4K


def task_rank(task: str) -> tuple[int, int, str]:
    """Sort key of a task: the paper's order; ``mv{K}[e]_niah`` right after mv_niah by K; other ids last."""
    if task in scoring.TASK_IDS:
        return scoring.TASK_IDS.index(task), 0, ""
    variant = scoring.MULTI_VALUE_TASK.fullmatch(task) if isinstance(task, str) else None
    if variant:
        return scoring.TASK_IDS.index("mv_niah"), int(variant["values"]) * 2 + bool(variant["even"]), task
    return len(scoring.TASK_IDS), 0, str(task)


def with_ci(summary: dict[str, Any], cell: Cell | None) -> Summary:
    """A ``scoring.summarize`` dict as a Summary carrying the cell's interval."""
    interval = cell.interval if cell is not None else None
    return Summary(**summary, ci=interval.as_list() if interval else None)


@dataclass(frozen=True)
class HeatmapGrid:
    """Accuracy by language (rows) × length (columns) over NIAH tasks pooled (paper Fig. 3); cells None: no rows.

    Monolingual languages come first, by accuracy, then cross-lingual pairs (``ko-en``), by accuracy.
    """

    languages: list[str]
    lengths: list[str]
    cells: list[list[Cell | None]]
    scope: str


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
    threshold: float = ABSOLUTE_THRESHOLD  # of the absolute effective length (--threshold, as a fraction)
    depth_bins: int = DEPTH_BINS
    dataset: DatasetIdentity | None = None
    _by: dict[str, dict[str, Summary]] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def strict(self) -> bool:
        """Whole-token matching (with paper-mode scores kept for comparison)."""
        return self.options.strict

    @functools.cached_property
    def scored(self) -> list[Record]:
        """The records that have a prediction line."""
        return [r for r in self.records if not r.no_line]

    @functools.cached_property
    def columns(self) -> RecordColumns:
        """The records as numpy columns, with the bootstrap every pooled interval uses."""
        return RecordColumns(self.records)

    def summary(self, paper: bool = False) -> dict[str, Any]:
        """``scoring.summarize`` over the scored records (the paper-mode scores if ``paper``)."""
        return scoring.summarize((r.paper if paper else r.score) for r in self.scored)

    def coverage(self) -> dict[str, tuple[int, int]]:
        """Config → (rows with a prediction line, rows), for every config referred to."""
        out: dict[str, list[int]] = {}
        for r in self.records:
            cell = out.setdefault(r.config, [0, 0])
            cell[0] += not r.no_line
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

    @functools.cached_property
    def config_scores(self) -> list[ConfigScore]:
        """One line per config (task x language x length x tokenizer), with its Wilson interval."""
        by_config: dict[str, list[Record]] = {}
        for r in self.records:
            by_config.setdefault(r.config, []).append(r)
        cells = self.columns.cells(("config",))
        out = []
        order = lambda rs: (self.rank("task", rs[0].task), rs[0].language, rs[0].length, rs[0].tokenizer)  # noqa: E731
        for records in sorted(by_config.values(), key=order):
            first = records[0]
            scored = [r for r in records if not r.no_line]
            summary = scoring.summarize(r.score for r in scored)
            del summary["categories"]
            cell = cells[(first.config,)]
            paper = scoring.summarize(r.paper for r in scored)["accuracy"] if self.strict else None
            out.append(ConfigScore(first.config, first.task, first.language, first.length, first.tokenizer,
                                   f"{len(scored)}/{len(records)}", len(scored) < len(records), **summary,
                                   paper_accuracy=paper, ci=cell.interval.as_list() if cell.interval else None,
                                   empty_reason=cell.empty_reason()))
        return out

    def by(self, key: str) -> dict[str, Summary]:
        """Micro-averaged summaries per value of a record field (task, language, length_label), with intervals."""
        if key not in self._by:
            self._by[key] = self._summaries(key)
        return self._by[key]

    def _summaries(self, key: str) -> dict[str, Summary]:
        grouped: dict[Any, list[Record]] = {}
        for r in self.scored:  # one pass, not one pass per value
            grouped.setdefault(r.field(key), []).append(r)
        field_name = "length" if key == "length_label" else key
        cells = {render_length(k[0]) if key == "length_label" else k[0]: c
                 for k, c in self.columns.cells((field_name,)).items()}
        values = sorted(grouped, key=lambda v: (self.rank(key, v), str(v)))
        return {str(v): with_ci(scoring.summarize(r.score for r in grouped[v]), cells.get(v)) for v in values}

    def overall_cell(self) -> Cell | None:
        """All scored records pooled."""
        return self.columns.cells(()).get(())

    def errors(self) -> dict[str, dict[str, int]]:
        """Error categories per task over counted examples, plus the dropped count."""
        out = {}
        for task, summary in self.by("task").items():
            out[task] = dict(summary.categories, counted=summary.counted, dropped=summary.dropped)
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

    def niah_scope(self) -> tuple[Any, str]:
        """(row mask, name): the NIAH tasks when the report has any, else every task."""
        niah = self.columns.mask("task", scoring.is_niah)
        return (niah, "NIAH tasks") if niah.any() else (None, "all tasks")

    def heatmap(self) -> HeatmapGrid:
        """Accuracy (with intervals and reasons) by language × length over the NIAH tasks pooled (paper Fig. 3)."""
        where, scope = self.niah_scope()
        cells = self.columns.cells(("language", "length"), where)
        overall = {k[0]: c.accuracy for k, c in self.columns.cells(("language",), where).items()}
        languages = sorted(overall, key=lambda lang: (lang not in LANGUAGES, -(overall[lang] or 0.0), lang))
        lengths = sorted({n for _, n in cells})
        grid = [[cells.get((lang, n)) for n in lengths] for lang in languages]
        return HeatmapGrid(languages, [render_length(n) for n in lengths], grid, scope)

    @functools.cached_property
    def depth(self) -> list[DepthCell]:
        """Accuracy by task × length × needle-depth bin, pooled over languages (depth.csv)."""
        return depth_cells(self.scored, self.columns.bootstrap, self.depth_bins, task_rank)

    @functools.cached_property
    def effective_lengths(self) -> list[EffectiveLength]:
        """Effective context lengths: all languages pooled, then each language (effective_length.csv)."""
        return report_effective_lengths(self)

    def sample_size(self) -> dict[str, Any]:
        """The smallest differences the sample size can detect (two-sided α 0.05, power 0.8), per config and overall."""
        overall = self.overall_cell()
        sizes = sorted(g.counted for g in self.config_scores if g.counted)
        if overall is None or overall.accuracy is None or not sizes:
            return {}
        per_config = sizes[len(sizes) // 2]
        error = self.columns.standard_error()
        # The cluster bootstrap's error can come out near 0 with few indices (every index alike); the
        # rows' own binomial bound is then the honest floor.
        overall_gap = max(detectable_from_error(error), detectable_difference(overall.accuracy, sum(sizes)) or 0.0)
        return {"alpha": ALPHA, "power": POWER, "accuracy": round(overall.accuracy, 6),
                "examples_per_config": per_config,
                "config_detectable_difference": round(detectable_difference(overall.accuracy, per_config), 6),
                "overall_standard_error": round(error, 6),
                "overall_detectable_difference": round(overall_gap, 6)}

    def intervals_method(self) -> dict[str, str]:
        """How each kind of interval was computed (stated in scores.json)."""
        return {"confidence": "95 %", "config": f"Wilson score interval (z = {Z95:.4f})",
                "pooled": self.columns.bootstrap.describe()}

    @functools.cached_property
    def document(self) -> ScoresDocument:
        """The content of scores.json (computed once: build the records first)."""
        unanswered = [r for r in self.scored if r.score.status == "no_response"]
        truncated = [r for r in self.scored if r.finish_reason == "length"]
        partial = self.partial()
        doc = ScoresDocument(
            mode="strict" if self.strict else "paper", truncation=self.options.truncation,
            options=self.options.as_json(), complete=not partial,
            coverage={"rows": len(self.records), "predicted": len(self.scored),
                      "missing_lines": len(self.records) - len(self.scored),
                      "partial_configs": {name: f"{have}/{total}" for name, (have, total) in sorted(partial.items())}},
            overall=with_ci(self.summary(), self.overall_cell()),
            null_predictions={"niah": sum(scoring.is_niah(r.task) for r in unanswered),
                              "cwe": sum(r.task in scoring.CWE_TASKS for r in unanswered),
                              "dropped": sum(not r.score.counted for r in unanswered),
                              "counted_wrong": sum(r.score.counted for r in unanswered)},
            finish_reason_length={"count": len(truncated), "niah": sum(scoring.is_niah(r.task) for r in truncated),
                                  "cwe": sum(r.task in scoring.CWE_TASKS for r in truncated),
                                  "unknown": sum(r.finish_reason is None and r.prediction is not None for r in self.scored)},
            by_task=self.by("task"), by_language=self.by("language"), by_length=self.by("length_label"),
            groups=self.config_scores, errors=self.errors(),
            intervals=self.intervals_method(), sample_size=self.sample_size(), dataset=self.dataset,
            extra=dict(self.extra))
        if self.strict:
            doc.paper_overall = Summary(**self.summary(paper=True))
            doc.disagreements = {"count": len(self.disagreements()), "examples": self.disagreements()[:50]}
        return doc


def score_predictions(predictions: dict[str, Prediction], rows: dict[str, dict],
                      options: ScoringOptions = ScoringOptions(), **settings) -> Report:
    """Score every row of the referenced configs into a Report (``settings``: threshold, depth_bins, dataset)."""
    return Report(options, score_rows(predictions, rows, options), **settings)
