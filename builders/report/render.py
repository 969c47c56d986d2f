"""Rendering a Report: the printed tables and notes, and the files of the report folder."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from ..base.files import atomic_write_bytes
from ..scoring import core as scoring
from .aggregate import Report
from .plots import heatmap_png


def pct(value: float | None) -> str:
    """An accuracy as a percentage with one decimal ("-": none)."""
    return "-" if value is None else f"{100 * value:.1f}"


def render_rows(head: list[str], rows: list[list[Any]], markdown: bool = False) -> str:
    """A plain (or Markdown) table; cells that are not text are accuracies, shown as percentages."""
    cells = [head] + [[c if isinstance(c, str) else pct(c) for c in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(r) + " |" for r in cells]
        return "\n".join(lines[:1] + ["|" + "---|" * len(head)] + lines[1:])
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells)


def _cell(records: list) -> str:
    scored = [r.score for r in records if not r.missing]
    text = pct(scoring.summarize(scored)["accuracy"]) if records else "-"
    return text if len(scored) == len(records) else f"{text} ({len(scored)}/{len(records)})"


def render_table(report: Report) -> str:
    """Accuracy (%) by task x language (rows) and length (columns, plus "all"), then the overall line.

    A cell whose config lacks prediction lines shows its coverage, e.g. ``100.0 (25/50)``.
    """
    lengths = sorted({(r.length, r.length_label) for r in report.records})
    multi_tok = len({r.tokenizer for r in report.records}) > 1
    rows: dict[tuple, dict[int, list]] = {}
    for r in report.records:
        key = (r.task, r.language) + ((r.tokenizer,) if multi_tok else ())
        rows.setdefault(key, {}).setdefault(r.length, []).append(r)
    head = ["task", "language"] + (["tokenizer"] if multi_tok else []) + [lab for _, lab in lengths] + ["all"]
    lines = []
    for key in sorted(rows, key=lambda k: (report.rank("task", k[0]),) + k[1:]):
        cells = [_cell(rows[key].get(n, [])) for n, _ in lengths]
        lines.append(list(key) + cells + [_cell([r for records in rows[key].values() for r in records])])
    text = render_rows(head, lines)
    overall = report.data["overall"]
    line = f"overall accuracy: {pct(overall['accuracy'])}% ({overall['passed']}/{overall['counted']})"
    cov = report.data["coverage"]
    if cov["missing_lines"]:
        line += (f" -- PARTIAL: {cov['missing_lines']} of {cov['rows']} rows have no prediction line "
                 f"({len(cov['partial_configs'])} config(s) incomplete)")
    return f"{text}\n\n{line}"


def render_errors(report: Report) -> str:
    """Error-type breakdown per task (counts over the examples in the accuracy)."""
    head = ["task", *scoring.CATEGORIES, "counted", "dropped"]
    return render_rows(head, [[task] + [str(c[k]) for k in head[1:]] for task, c in report.errors().items()])


def render_notes(report: Report) -> str:
    """Missing predictions, truncated outputs and strict-vs-paper disagreements, in words."""
    data = report.data
    m, t = data["null_predictions"], data["finish_reason_length"]
    options = report.options
    if options.missing == "upstream":
        null_policy = "dropped from the accuracy (upstream policy)"
        policy = "upstream policy: dropped for every task"
    else:
        null_policy = "NIAH dropped from the accuracy, CWE counted wrong (paper policy)"
        policy = {"paper": "paper policy: treated as no response (NIAH dropped, CWE counted wrong)",
                  "score": "scored as written", "wrong": "counted wrong for every task"}[options.truncation]
    lines = [f"null predictions: {m['niah']} NIAH, {m['cwe']} CWE; {null_policy}",
             f"finish_reason=length: {t['count']} ({t['niah']} NIAH, {t['cwe']} CWE); {policy}",
             f"reasoning: {'leading <think> blocks removed' if options.strip_think else '<think> blocks scored as text'}"
             + ("; only the last <Answer> block scored" if options.answer_tag else "")]
    for name, cov in sorted(data["coverage"]["partial_configs"].items()):
        lines.append(f"partial: {name} has prediction lines for {cov} rows")
    if report.strict:
        dis = report.disagreements()
        lost = sum(d["paper"] for d in dis)
        lines.append(f"strict vs paper: {len(dis)} example(s) differ ({lost} pass only in paper mode, "
                     f"{len(dis) - lost} only in strict mode); paper accuracy "
                     f"{pct(data['paper_overall']['accuracy'])}%")
    return "\n".join(lines)


def csv_bytes(header: list[str], rows: list[list[Any]]) -> bytes:
    """A CSV file (None cells empty) as UTF-8 bytes."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def _json_bytes(obj: Any) -> bytes:
    # backslashreplace turns lone surrogates from model output into valid \udxxx JSON escapes
    return (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode("utf-8", "backslashreplace")


def write_report(report: Report, out_dir: Path) -> list[Path]:
    """Write scores.json, scores.csv, errors.csv, examples.jsonl, heatmap.png (+ disagreements.jsonl)."""
    out_dir = Path(out_dir)
    groups = report.groups()
    columns = list(groups[0]) if groups else []
    errors = report.errors()
    err_head = ["task", *scoring.CATEGORIES, "counted", "dropped"]
    examples = "".join(
        json.dumps({"id": r.id, "task": r.task, "language": r.language, "length": r.length,
                    "finish_reason": r.finish_reason, **r.score.to_dict(),
                    **({"paper_passed": r.paper.passed} if report.strict else {})}) + "\n"
        for r in report.records
    )
    files = {
        "scores.json": _json_bytes(report.data),
        "scores.csv": csv_bytes(columns, [[g[c] for c in columns] for g in groups]),
        "errors.csv": csv_bytes(err_head, [[t] + [c[k] for k in err_head[1:]] for t, c in errors.items()]),
        "examples.jsonl": examples.encode("utf-8"),
        "heatmap.png": heatmap_png(report),
    }
    if report.strict:
        files["disagreements.jsonl"] = "".join(
            json.dumps(d, ensure_ascii=False) + "\n" for d in report.disagreements()
        ).encode("utf-8", "backslashreplace")
    written = []
    for name, data in files.items():
        atomic_write_bytes(out_dir / name, data)
        written.append(out_dir / name)
    return written
