"""Rendering a Report: the printed tables and notes, and the files of the report folder."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from ..base.files import atomic_write_bytes
from ..scoring import core as scoring
from ..spec.configs import render_length
from .aggregate import Report
from .cells import Cell
from .depth import DepthCell
from .documents import example_line
from .effective import ALL_LANGUAGES, EffectiveLength

FEW_ROWS = 10  # a cell resting on fewer counted rows shows its count


def pct(value: float | None) -> str:
    """An accuracy as a percentage with one decimal ("-": none)."""
    return "-" if value is None else f"{100 * value:.1f}"


def cell_text(cell: Cell | None) -> str:
    """A table cell: ``87.0 [79–96]`` (accuracy, 95 % interval), ``n=2`` on few rows, ``(25/50)`` when lines lack,
    ``- (50 cut)`` when nothing is counted; ``-`` when the cell has no rows."""
    if cell is None:
        return "-"
    if cell.accuracy is None:
        text = f"- ({cell.short_reason()})"
    else:
        text = pct(cell.accuracy)
        if cell.interval is not None:
            text += f" [{100 * cell.interval.low:.0f}–{100 * cell.interval.high:.0f}]"
        if cell.counted < FEW_ROWS:
            text += f" n={cell.counted}"
    return text if cell.lines == cell.rows or not cell.lines else f"{text} ({cell.lines}/{cell.rows})"


def render_rows(head: list[str], rows: list[list[Any]], markdown: bool = False) -> str:
    """A plain (or Markdown) table; cells that are not text are accuracies, shown as percentages."""
    cells = [head] + [[c if isinstance(c, str) else pct(c) for c in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(r) + " |" for r in cells]
        return "\n".join(lines[:1] + ["|" + "---|" * len(head)] + lines[1:])
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells)


def render_table(report: Report) -> str:
    """Accuracy (%) with its 95 % interval by task x language (rows) and length (columns, plus "all"), then the
    overall line. A cell whose config lacks prediction lines shows its coverage, e.g. ``100.0 [..] (25/50)``."""
    multi_tok = len(report.columns.values["tokenizer"]) > 1
    row_fields = ("task", "language") + (("tokenizer",) if multi_tok else ())
    by_length = report.columns.cells(row_fields + ("length",))
    by_row = report.columns.cells(row_fields)
    lengths = sorted({key[-1] for key in by_length})
    head = list(row_fields) + [render_length(n) for n in lengths] + ["all"]
    lines = []
    for key in sorted(by_row, key=lambda k: (report.rank("task", k[0]),) + k[1:]):
        lines.append(list(key) + [cell_text(by_length.get(key + (n,))) for n in lengths] + [cell_text(by_row[key])])
    overall = report.document.overall
    line = f"overall accuracy: {pct(overall.accuracy)}% ({overall.passed}/{overall.counted})"
    if overall.ci:
        line += f", 95 % interval {pct(overall.ci[0])}–{pct(overall.ci[1])}"
    cov = report.document.coverage
    if cov["missing_lines"]:
        line += (f" -- PARTIAL: {cov['missing_lines']} of {cov['rows']} rows have no prediction line "
                 f"({len(cov['partial_configs'])} config(s) incomplete)")
    return f"{render_rows(head, lines)}\n\n{line}"


def render_errors(report: Report) -> str:
    """Error-type breakdown per task (counts over the examples in the accuracy)."""
    head = ["task", *scoring.CATEGORIES, "counted", "dropped"]
    return render_rows(head, [[task] + [str(c[k]) for k in head[1:]] for task, c in report.errors().items()])


def render_effective(rows: list[EffectiveLength]) -> str:
    """The effective lengths of all languages pooled (per language: effective_length.csv)."""
    head = ["tasks", "definition", "threshold %", "effective length", "with 95 % confidence"]
    pooled = [[r.tasks, r.definition, "-" if r.threshold is None else f"{r.threshold:g}", r.effective_length,
               r.effective_length_conservative] for r in rows if r.scope == ALL_LANGUAGES]
    return render_rows(head, pooled)


def render_notes(report: Report) -> str:
    """Missing and truncated outputs, empty cells, intervals, sample size and disagreements, in words."""
    doc = report.document
    m = doc.null_predictions
    options = report.options
    if options.missing_policy == "upstream":
        null_policy = "dropped from the accuracy (upstream policy)"
    else:
        null_policy = "NIAH dropped from the accuracy, CWE counted wrong (paper policy)"
    lines = [f"null predictions: {m['niah']} NIAH, {m['cwe']} CWE; {null_policy}", _truncation_note(report),
             f"reasoning: {'leading <think> blocks removed' if options.strip_think else '<think> blocks scored as text'}"
             + ("; only the last <Answer> block scored" if options.answer_tag else "")]
    lines += _empty_notes(report)
    for name, cov in sorted(doc.coverage["partial_configs"].items()):
        lines.append(f"partial: {name} has prediction lines for {cov} rows")
    lines.append(f"intervals: 95 %; one config: Wilson; pooled: {report.columns.bootstrap.describe()}")
    size = doc.sample_size
    if size:
        lines.append(f"sample size: {size['examples_per_config']} examples per config; at the observed "
                     f"{pct(size['accuracy'])} % two models must differ by about {pct(size['config_detectable_difference'])} "
                     f"points on one config, {pct(size['overall_detectable_difference'])} overall, to be told apart "
                     f"(two-sided α 0.05, power 0.8); build with --samples N for tighter intervals (docs/scoring.md)")
    if report.strict:
        dis = report.disagreements()
        lost = sum(d["paper"] for d in dis)
        lines.append(f"strict vs paper: {len(dis)} example(s) differ ({lost} pass only in paper mode, "
                     f"{len(dis) - lost} only in strict mode); paper accuracy {pct(doc.paper_overall.accuracy)}%")
    return "\n".join(lines)


def _truncation_note(report: Report) -> str:
    t, options = report.document.finish_reason_length, report.options
    if options.missing_policy == "upstream":
        policy = "upstream policy: dropped for every task"
    else:
        policy = {"paper": "paper policy: treated as no response (NIAH dropped, CWE counted wrong)",
                  "score": "scored as written", "wrong": "counted wrong for every task"}[options.truncation]
    answered = sum(r.prediction is not None for r in report.scored)
    if answered and t["unknown"] == answered:
        return (f"finish_reason: not recorded for any of the {answered} outputs (e.g. lm-eval samples): "
                f"outputs cut at the token limit cannot be told apart and are scored as written")
    note = f"finish_reason=length: {t['count']} ({t['niah']} NIAH, {t['cwe']} CWE); {policy}"
    return note + (f"; {t['unknown']} output(s) record no finish_reason (scored as written)" if t["unknown"] else "")


def _empty_notes(report: Report) -> list[str]:
    empty = [g for g in report.document.groups if g.counted == 0 and g.total]
    reasons: dict[str, list[str]] = {}
    for g in empty:
        reasons.setdefault(g.empty_reason or "", []).append(g.config)
    lines = []
    for reason, configs in reasons.items():
        shown = ", ".join(configs[:4]) + (f" and {len(configs) - 4} more (scores.csv)" if len(configs) > 4 else "")
        lines.append(f"empty: {len(configs)} config(s) have no counted row, {reason}: {shown}")
    if any(g.truncated for g in empty):
        lines.append("  outputs cut at the token limit: rerun with a larger --max-tokens (`oneruler run`), "
                     "or score the cut text with --truncated score")
    return lines


def csv_bytes(header: list[str] | tuple[str, ...], rows: list[list[Any]]) -> bytes:
    """A CSV file (None cells empty) as UTF-8 bytes."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def write_files(out_dir: Path, files: dict[str, bytes]) -> list[Path]:
    """Write each file atomically into ``out_dir``; the paths, in order."""
    out_dir = Path(out_dir)
    for name, data in files.items():
        atomic_write_bytes(out_dir / name, data)
    return [out_dir / name for name in files]


def write_report(report: Report, out_dir: Path) -> list[Path]:
    """Write scores.json, scores.csv, errors.csv, examples.jsonl, effective_length.csv, depth.csv, heatmap.png,
    depth.png (when the report has needles) and, strict, disagreements.jsonl."""
    from .plots import depth_png, heatmap_png

    doc = report.document
    err_head = ["task", *scoring.CATEGORIES, "counted", "dropped"]
    depth: list[DepthCell] = report.depth
    header = doc.groups[0].csv_header(report.strict) if doc.groups else []
    files = {
        "scores.json": doc.to_bytes(),
        "scores.csv": csv_bytes(header, [g.csv_row(report.strict) for g in doc.groups]),
        "errors.csv": csv_bytes(err_head, [[t] + [c[k] for k in err_head[1:]] for t, c in doc.errors.items()]),
        "examples.jsonl": "".join(example_line(r, report.strict) for r in report.records).encode("utf-8"),
        "effective_length.csv": csv_bytes(EffectiveLength.HEADER, [r.csv_row() for r in report.effective_lengths]),
        "depth.csv": csv_bytes(DepthCell.HEADER, [c.csv_row() for c in depth]),
        "heatmap.png": heatmap_png(report),
    }
    if depth:
        files["depth.png"] = depth_png(depth, "Accuracy (%) by needle depth, languages pooled")
    if report.strict:
        files["disagreements.jsonl"] = "".join(
            json.dumps(d, ensure_ascii=False) + "\n" for d in report.disagreements()
        ).encode("utf-8", "backslashreplace")
    return write_files(out_dir, files)
