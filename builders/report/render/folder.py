"""The report folder ``oneruler score`` writes: scores.json, scores.csv, errors.csv, examples.jsonl,
effective_length.csv, depth.csv and the figures, each file written atomically, all of them under the folder's
lock (``report_lock``, which ``publish`` reads under); ``csv_bytes`` and ``write_files`` are shared with
``oneruler compare``'s folder."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Callable

from ...base.files import atomic_write_bytes
from ...base.forked import Child, in_child, spare_core
from ...base.locking import FolderLock
from ..documents.examples_jsonl import example_line
from ..documents.scores_json import ScoresDocument
from ..report_data import Report
from ..views.depth import DepthCell, depth_title, report_depth_cells
from ..views.effective import EffectiveLength
from ..views.heatmap import heatmap
from ..views.summaries import disagreements
from .plots import depth_png, language_heatmap_png
from .ruler import LabelledRow, drawable, ruler_csv, ruler_figure
from .tables import ERROR_HEADER


REPORT_LOCK_WAIT_S = 120.0  # score writes a report in seconds; publish reads one in less


def report_lock(out_dir: Path, log: Callable[[str], None] | None = None) -> FolderLock:
    """The report folder's lock: ``score`` writes every file of a report under it and ``publish`` reads them under
    it, so that a publication never pairs one scoring's values with another's details; each waits for the other
    (saying so through ``log``) at most ``REPORT_LOCK_WAIT_S``."""
    return FolderLock(out_dir, wait=REPORT_LOCK_WAIT_S, log=log, what="another oneruler command (score or publish)")


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


def heatmap_file(report: Report) -> bytes:
    """heatmap.png: accuracy by language and length."""
    grid = heatmap(report.columns)
    return language_heatmap_png(grid, f"Accuracy (%) on {grid.scope}" + (", strict" if report.strict else ""))


def depth_file(report: Report) -> bytes | None:
    """depth.png: accuracy by needle depth and length, per task (None: the report has no needles)."""
    bins, depth = report_depth_cells(report)
    return depth_png(depth, bins, depth_title(report, "Accuracy (%) by needle depth, languages pooled")) if depth else None


FIGURE_MODULES = ("numpy", "matplotlib.figure", "matplotlib.backends.backend_agg", "matplotlib.colors",
                  "matplotlib.patches")  # what drawing needs: imported once, before the children are forked


def draw_figures(report: Report) -> dict[str, Child]:
    """heatmap.png and depth.png, each drawn in a forked child from now on (``base/forked.py``) while the report's
    other files are made, when a core is free for them (else when collected); ``report_files`` collects them."""
    spare = spare_core()
    return {"heatmap.png": in_child(lambda: heatmap_file(report), spare),
            "depth.png": in_child(lambda: depth_file(report), spare)}


def report_files(report: Report, document: ScoresDocument, effective: list[EffectiveLength],
                 figures: dict[str, Child] | None = None) -> dict[str, bytes]:
    """scores.json (``document``), scores.csv, errors.csv, examples.jsonl, effective_length.csv (``effective``),
    depth.csv, heatmap.png, depth.png (when the report has needles), ruler_table.csv (when it holds
    RULER's rows) and ruler.png (when a length of it is determined) and, strict, disagreements.jsonl; the figures those ``draw_figures`` started, else drawn here."""
    _, depth = report_depth_cells(report)
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
    }
    drawn = {"heatmap.png": figures["heatmap.png"].result() if figures else heatmap_file(report),
             "depth.png": figures["depth.png"].result() if figures else depth_file(report)}
    files.update({name: data for name, data in drawn.items() if data is not None})
    if document.ruler_table:
        rows = [LabelledRow(None, row) for row in document.ruler_table]
        files["ruler_table.csv"] = csv_bytes(*ruler_csv(rows))
        if drawable(rows):  # no length determined (tasks missing at every length): the table says so, no empty figure
            files["ruler.png"] = ruler_figure(rows, (), "RULER's score (%) by length, mean of its 13 tasks, 95 % bands",
                                              ranked=False)
    if report.strict:
        files["disagreements.jsonl"] = "".join(
            json.dumps(d, ensure_ascii=False) + "\n" for d in disagreements(report.scored)
        ).encode("utf-8", "backslashreplace")
    return files
