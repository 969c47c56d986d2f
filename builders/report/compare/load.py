"""``oneruler compare`` reads report folders back: each folder's ``scores.json`` (options, the run's meta for
the model name, the dataset's identity) and ``examples.jsonl`` (every row's outcome) become the same
``Report`` that ``oneruler score`` computed, so every table, interval and figure of the comparison is
computed by the same code (``views/``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...base.errors import OneRulerError
from ..documents.examples_jsonl import read_examples
from ..documents.scores_json import ScoresDocument, read_scores
from ..report_data import Report, ReportSettings


@dataclass
class ModelReport:
    """One report folder: its label, its scores.json and the Report rebuilt from its examples."""

    label: str
    path: Path
    document: ScoresDocument
    report: Report


def load_report(path: Path, settings: ReportSettings = ReportSettings()) -> ModelReport:
    """A report folder written by ``oneruler score``; the label is the run's model, else the folder name."""
    path = Path(path)
    document = read_scores(path)
    try:
        report = Report(document.options, tuple(read_examples(path)), settings, document.dataset, dict(document.extra))
    except OneRulerError as exc:  # e.g. token depths asked of a report scored without them
        raise OneRulerError(f"{path}: {exc.marked}") from None
    if not report.records:
        raise OneRulerError(f"{path}: examples.jsonl holds no example")
    return ModelReport(str(document.model or path.name), path, document, report)


def load_reports(paths: list[Path], settings: ReportSettings = ReportSettings()) -> list[ModelReport]:
    """Every folder, labels made unique (``model (folder)`` when two share a model name)."""
    reports = [load_report(p, settings) for p in paths]
    labels = [r.label for r in reports]
    for r in reports:
        if labels.count(r.label) > 1:
            r.label = f"{r.label} ({r.path.name})"
    if len({r.label for r in reports}) < len(reports):
        raise OneRulerError("two report folders have the same model and folder name; give distinct folders")
    return reports
