"""The report folder ``oneruler score`` writes: scores.json, scores.csv, errors.csv, examples.jsonl,
effective_length.csv, depth.csv and the figures, each file written atomically; ``csv_bytes`` and
``write_files`` are shared with ``oneruler compare``'s folder."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from ...base.files import atomic_write_bytes
from ..documents.examples_jsonl import example_line
from ..documents.scores_json import ScoresDocument
from ..report_data import Report
from ..views.depth import DepthCell, depth_title, report_depth_cells
from ..views.effective import EffectiveLength
from ..views.heatmap import heatmap
from ..views.summaries import disagreements
from .plots import depth_png, language_heatmap_png
from .ruler import LabelledRow, ruler_csv, ruler_figure
from .tables import ERROR_HEADER


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


def write_report(report: Report, document: ScoresDocument, effective: list[EffectiveLength], out_dir: Path) -> list[Path]:
    """Write scores.json (``document``), scores.csv, errors.csv, examples.jsonl, effective_length.csv
    (``effective``), depth.csv, heatmap.png, ruler_table.csv and ruler.png (when the report holds RULER's rows),
    depth.png (when the report has needles) and, strict, disagreements.jsonl."""
    bins, depth = report_depth_cells(report)
    grid = heatmap(report.columns)
    graded = any(g.graded for g in document.groups)
    header = document.groups[0].csv_header(report.strict, graded) if document.groups else []
    files = {
        "scores.json": document.to_bytes(),
        "scores.csv": csv_bytes(header, [g.csv_row(report.strict, graded) for g in document.groups]),
        "errors.csv": csv_bytes(ERROR_HEADER, [[t] + [c[k] for k in ERROR_HEADER[1:]]
                                               for t, c in document.errors.items()]),
        "examples.jsonl": "".join(example_line(r, report.strict) for r in report.records).encode("utf-8"),
        "effective_length.csv": csv_bytes(EffectiveLength.HEADER, [r.csv_row() for r in effective]),
        "depth.csv": csv_bytes(DepthCell.HEADER, [c.csv_row() for c in depth]),
        "heatmap.png": language_heatmap_png(grid, f"Accuracy (%) on {grid.scope}"
                                            + (", strict" if report.strict else "")),
    }
    if document.ruler_table:
        rows = [LabelledRow(None, row) for row in document.ruler_table]
        files["ruler_table.csv"] = csv_bytes(*ruler_csv(rows))
        files["ruler.png"] = ruler_figure(rows, (), "RULER's score (%) by length, mean of its 13 tasks, 95 % bands",
                                          ranked=False)
    if depth:
        files["depth.png"] = depth_png(depth, bins, depth_title(report, "Accuracy (%) by needle depth, languages pooled"))
    if report.strict:
        files["disagreements.jsonl"] = "".join(
            json.dumps(d, ensure_ascii=False) + "\n" for d in disagreements(report.scored)
        ).encode("utf-8", "backslashreplace")
    return write_files(out_dir, files)
