"""``oneruler compare``: several report folders (one per model) side by side, with the paper's figures.

Reads each folder's ``scores.json`` (per-config passed/counted, and the run's meta for the model
name) and ``examples.jsonl`` (error categories). Accuracies are micro averages (passed / counted)
over the configs pooled, as in the paper. Language groups (paper §1, Table 2): low-resource =
fewer than 250K Wikipedia articles (hi, st, sw, ta), Latin script = ``script == "Latin"``;
cross-lingual configs (``ko-en``) are left out of the groups and the heatmap.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.errors import OneRulerError
from ..base.files import atomic_write_bytes
from ..scoring import core as scoring
from ..spec.configs import render_length
from ..spec.languages import LANGUAGES
from .aggregate import task_rank
from .render import csv_bytes, render_rows

NONE_TASK = "s_niah"
NONE_LENGTHS = (64_000, 128_000)  # Figures 18-19: S-NIAH at long context


@dataclass
class ModelReport:
    """One report folder: its label, the groups of scores.json and the examples."""

    label: str
    path: Path
    groups: list[dict]
    examples: list[dict] = field(default_factory=list)


def load_report(path: Path) -> ModelReport:
    """A report folder written by ``oneruler score``; the label is the run's model, else the folder name."""
    path = Path(path)
    scores = path / "scores.json"
    if not scores.is_file():
        raise OneRulerError(f"{path}: no scores.json; give report folders written by `oneruler score` or `run --report`")
    try:
        data = json.loads(scores.read_text(encoding="utf-8"))
        groups = data["groups"]
        examples_path = path / "examples.jsonl"
        examples = [json.loads(line) for line in examples_path.read_text(encoding="utf-8").splitlines() if line.strip()] \
            if examples_path.is_file() else []
    except (ValueError, KeyError, TypeError) as exc:
        raise OneRulerError(f"{path}: unreadable report ({type(exc).__name__}: {exc})") from None
    label = ((data.get("run") or {}).get("model")) or path.name
    return ModelReport(str(label), path, groups, examples)


def load_reports(paths: list[Path]) -> list[ModelReport]:
    """Every folder, labels made unique (``model (folder)`` when two share a model name)."""
    reports = [load_report(p) for p in paths]
    labels = [r.label for r in reports]
    for r in reports:
        if labels.count(r.label) > 1:
            r.label = f"{r.label} ({r.path.name})"
    if len({r.label for r in reports}) < len(reports):
        raise OneRulerError("two report folders have the same model and folder name; give distinct folders")
    return reports


def accuracy(groups: list[dict]) -> float | None:
    """Micro-averaged accuracy of some config groups (None when nothing is counted)."""
    counted = sum(g["counted"] for g in groups)
    return sum(g["passed"] for g in groups) / counted if counted else None


def task_length_rows(reports: list[ModelReport]) -> list[list[Any]]:
    """[task, length, accuracy of each model ...] for every task × length, then "all" per length."""
    keys = sorted({(g["task"], g["length"]) for r in reports for g in r.groups}, key=lambda k: (task_rank(k[0]), k))
    lengths = sorted({k[1] for k in keys})
    rows = [[task, render_length(n)] + [accuracy([g for g in r.groups if (g["task"], g["length"]) == (task, n)])
                                         for r in reports] for task, n in keys]
    rows += [["all", render_length(n)] + [accuracy([g for g in r.groups if g["length"] == n]) for r in reports]
             for n in lengths]
    return rows


def language_rows(reports: list[ModelReport]) -> list[list[Any]]:
    """[language, accuracy of each model ...] (all tasks and lengths pooled), then "all"."""
    languages = sorted({g["language"] for r in reports for g in r.groups}, key=lambda x: ("-" in x, x))
    rows = [[lang] + [accuracy([g for g in r.groups if g["language"] == lang]) for r in reports] for lang in languages]
    return rows + [["all"] + [accuracy(r.groups) for r in reports]]


def heatmap_cells(report: ModelReport) -> tuple[list[str], list[str], list[list[float | None]], str]:
    """(languages by accuracy, lengths, accuracy[language][length], scope): NIAH tasks pooled (paper Fig. 3)."""
    groups = [g for g in report.groups if g["language"] in LANGUAGES]
    niah = [g for g in groups if scoring.is_niah(g["task"])]
    niah, scope = (niah, "NIAH tasks") if niah else (groups, "all tasks")
    lengths = sorted({g["length"] for g in niah})
    overall = {lang: accuracy([g for g in niah if g["language"] == lang]) for lang in {g["language"] for g in niah}}
    languages = sorted(overall, key=lambda lang: (-(overall[lang] or 0.0), lang))
    matrix = [[accuracy([g for g in niah if g["language"] == lang and g["length"] == n]) for n in lengths]
              for lang in languages]
    return languages, [render_length(n) for n in lengths], matrix, scope


LANGUAGE_GROUPS = {
    "high-resource": lambda lang: not lang.low_resource,
    "low-resource (hi, st, sw, ta)": lambda lang: lang.low_resource,
    "Latin script": lambda lang: lang.script == "Latin",
    "other scripts": lambda lang: lang.script != "Latin",
}


def group_curves(report: ModelReport) -> tuple[list[str], dict[str, list[float | None]]]:
    """(lengths, group → accuracy per length) over all tasks, for the four language groups."""
    groups = [g for g in report.groups if g["language"] in LANGUAGES]
    lengths = sorted({g["length"] for g in groups})
    curves = {}
    for name, member in LANGUAGE_GROUPS.items():
        inside = [g for g in groups if member(LANGUAGES[g["language"]])]
        curves[name] = [accuracy([g for g in inside if g["length"] == n]) for n in lengths]
    return [render_length(n) for n in lengths], curves


def none_errors(reports: list[ModelReport]) -> tuple[list[str], dict[str, list[int]], str]:
    """(languages, model → count of "none" answers where a needle was present, scope) like paper Figs. 18–19.

    S-NIAH examples in the accuracy whose category is ``none_when_present``, at 64K and 128K when
    the reports have them, else at every length they have.
    """
    examples = [(r.label, e) for r in reports for e in r.examples
                if e.get("task") == NONE_TASK and e.get("counted") and e.get("language") in LANGUAGES]
    long_ones = [(m, e) for m, e in examples if e.get("length") in NONE_LENGTHS]
    chosen = long_ones or examples
    lengths = sorted({e["length"] for _, e in chosen})
    languages = sorted({e["language"] for _, e in chosen})
    counts = {r.label: [sum(1 for m, e in chosen if m == r.label and e["language"] == lang
                            and e.get("category") == "none_when_present") for lang in languages] for r in reports}
    scope = f"S-NIAH at {', '.join(render_length(n) for n in lengths)}" if lengths else "no S-NIAH examples"
    return languages, counts, scope


def slug(label: str) -> str:
    """A file-name-safe form of a model label."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-") or "model"


def write_comparison(reports: list[ModelReport], out_dir: Path) -> tuple[str, list[Path]]:
    """Write the tables (CSV, Markdown) and figures into ``out_dir``; return the printed tables and the files."""
    from .plots import group_curves_png, language_heatmap_png, none_errors_png

    models = [r.label for r in reports]
    tl_head, lang_head = ["task", "length", *models], ["language", *models]
    tl_rows, lang_rows = task_length_rows(reports), language_rows(reports)
    text = (f"accuracy (%) by task and length\n{render_rows(tl_head, tl_rows)}\n\n"
            f"accuracy (%) by language (all tasks and lengths)\n{render_rows(lang_head, lang_rows)}")
    markdown = (f"# ONERULER comparison\n\n## Accuracy (%) by task and length\n\n{render_rows(tl_head, tl_rows, True)}\n\n"
                f"## Accuracy (%) by language\n\n{render_rows(lang_head, lang_rows, True)}\n")
    files: dict[str, bytes] = {"by_task_length.csv": csv_bytes(tl_head, tl_rows), "by_language.csv": csv_bytes(lang_head, lang_rows),
                               "compare.md": markdown.encode("utf-8")}
    for r in reports:
        languages, lengths, matrix, scope = heatmap_cells(r)
        files[f"heatmap-{slug(r.label)}.png"] = language_heatmap_png(languages, lengths, matrix,
                                                                     f"{r.label}: accuracy (%) on {scope}")
        lengths, curves = group_curves(r)
        files[f"groups-{slug(r.label)}.png"] = group_curves_png(lengths, curves, r.label)
    languages, counts, scope = none_errors(reports)
    files["none-errors.png"] = none_errors_png(languages, counts, scope)
    out_dir = Path(out_dir)
    for name, data in files.items():
        atomic_write_bytes(out_dir / name, data)
    return text, [out_dir / name for name in files]
