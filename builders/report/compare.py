"""``oneruler compare``: several report folders (one per model) side by side, with the paper's figures.

Reads each folder's ``scores.json`` (options, the run's meta for the model name, the dataset's
identity) and ``examples.jsonl`` (every row's outcome) back into the same ``Report`` that
``oneruler score`` computed, so every table, interval and heatmap is computed by the same code.
Accuracies are micro averages (passed / counted) over the rows pooled, as in the paper. Language
groups (paper §1, Table 2): low-resource = fewer than 250K Wikipedia articles (hi, st, sw, ta),
Latin script = ``script == "Latin"``; cross-lingual configs (``ko-en``) are left out of the groups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import OneRulerError
from ..scoring import core as scoring
from ..spec.configs import render_length
from ..spec.languages import LANGUAGES
from .aggregate import ABSOLUTE_THRESHOLD, Report, task_rank
from .cells import Cell
from .depth import DEPTH_BINS
from .documents import ScoresDocument, read_examples, read_scores
from .records import ScoringOptions

NONE_ERRORS_TASK = "s_niah"  # the task whose "none" answers Figures 18-19 count
NONE_ERRORS_LENGTHS = (64_000, 128_000)  # Figures 18-19: S-NIAH at long context


@dataclass
class ModelReport:
    """One report folder: its label, its scores.json and the Report rebuilt from its examples."""

    label: str
    path: Path
    document: ScoresDocument
    report: Report


def load_report(path: Path, threshold: float = ABSOLUTE_THRESHOLD, depth_bins: int = DEPTH_BINS) -> ModelReport:
    """A report folder written by ``oneruler score``; the label is the run's model, else the folder name."""
    path = Path(path)
    document = read_scores(path)
    options = document.options
    scoring_options = ScoringOptions(options.get("strict", False), options.get("truncation", "paper"),
                                     options.get("missing", "paper"), options.get("strip_think", True),
                                     options.get("answer_tag", False))
    report = Report(scoring_options, read_examples(path), threshold=threshold, depth_bins=depth_bins,
                    dataset=document.dataset)
    if not report.records:
        raise OneRulerError(f"{path}: examples.jsonl holds no example")
    return ModelReport(str(document.model or path.name), path, document, report)


def load_reports(paths: list[Path], threshold: float = ABSOLUTE_THRESHOLD, depth_bins: int = DEPTH_BINS) -> list[ModelReport]:
    """Every folder, labels made unique (``model (folder)`` when two share a model name)."""
    reports = [load_report(p, threshold, depth_bins) for p in paths]
    labels = [r.label for r in reports]
    for r in reports:
        if labels.count(r.label) > 1:
            r.label = f"{r.label} ({r.path.name})"
    if len({r.label for r in reports}) < len(reports):
        raise OneRulerError("two report folders have the same model and folder name; give distinct folders")
    return reports


def task_length_table(reports: list[ModelReport]):
    """(keys, per model {key: Cell}): every task × length, then "all" per length."""
    per_model = []
    for r in reports:
        cells = dict(r.report.columns.cells(("task", "length")))
        cells.update({("all", k[0]): c for k, c in r.report.columns.cells(("length",)).items()})
        per_model.append(cells)
    keys = {k for cells in per_model for k in cells}
    order = sorted(keys, key=lambda k: (k[0] == "all", task_rank(k[0]) if k[0] != "all" else (0,), k[1]))
    return order, per_model


def language_table(reports: list[ModelReport]):
    """(keys, per model {key: Cell}): every language (all tasks and lengths pooled), then "all"."""
    per_model = []
    for r in reports:
        cells = {k[0]: c for k, c in r.report.columns.cells(("language",)).items()}
        overall = r.report.overall_cell()
        if overall is not None:
            cells["all"] = overall
        per_model.append(cells)
    keys = sorted({k for cells in per_model for k in cells}, key=lambda x: (x == "all", "-" in x, x))
    return keys, per_model


LANGUAGE_GROUPS = {
    "high-resource": lambda lang: not lang.low_resource,
    "low-resource (hi, st, sw, ta)": lambda lang: lang.low_resource,
    "Latin script": lambda lang: lang.script == "Latin",
    "other scripts": lambda lang: lang.script != "Latin",
}


def group_curves(report: ModelReport) -> tuple[list[str], dict[str, list[Cell | None]]]:
    """(lengths, group → pooled cell per length, with its 95 % interval) over all tasks, for the four language groups."""
    columns = report.report.columns
    lengths = sorted({r.length for r in report.report.records if r.language in LANGUAGES})
    curves = {}
    for name, member in LANGUAGE_GROUPS.items():
        where = columns.mask("language", lambda code: code in LANGUAGES and member(LANGUAGES[code]))
        cells = {k[0]: c for k, c in columns.cells(("length",), where).items()}
        curves[name] = [cells.get(n) for n in lengths]
    return [render_length(n) for n in lengths], curves


def none_errors(reports: list[ModelReport]) -> tuple[list[str], dict[str, list[int]], str]:
    """(languages, model → count of "none" answers where a needle was present, scope) like paper Figs. 18–19.

    S-NIAH examples in the accuracy whose category is ``none_when_present``, at 64K and 128K when
    the reports have them, else at every length they have.
    """
    examples = [(r.label, e) for r in reports for e in r.report.scored
                if e.task == NONE_ERRORS_TASK and e.score.counted and e.language in LANGUAGES]
    long_ones = [(m, e) for m, e in examples if e.length in NONE_ERRORS_LENGTHS]
    chosen = long_ones or examples
    lengths = sorted({e.length for _, e in chosen})
    languages = sorted({e.language for _, e in chosen})
    counts = {r.label: [sum(1 for m, e in chosen if m == r.label and e.language == lang
                            and e.score.category == "none_when_present") for lang in languages] for r in reports}
    scope = f"S-NIAH at {', '.join(render_length(n) for n in lengths)}" if lengths else "no S-NIAH examples"
    return languages, counts, scope


def slug(label: str) -> str:
    """A file-name-safe form of a model label."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-") or "model"


def is_niah_task(task: str) -> bool:
    """The tasks pooled in heatmaps and difference heatmaps (NIAH, as paper Fig. 3)."""
    return scoring.is_niah(task)
