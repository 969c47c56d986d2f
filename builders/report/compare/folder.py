"""The folder ``oneruler compare`` writes: tables (text, CSV, Markdown), effective lengths side by side, RULER's
table of the reports holding RULER's rows with RULER's published rows asked for (``ruler_table.csv``,
``ruler.png``), paired comparisons (``paired.csv``, difference heatmaps) and the figures of every model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from ...spec.ruler_published import PublishedRow
from ...spec.tasks import has_needles
from ...spec.configs import render_length
from ..render.folder import csv_bytes, write_files
from ..render.plots import (GridCell, depth_png, difference_png, group_curves_png, language_heatmap_png,
                            none_errors_png)
from ..render.ruler import RULER_TITLE, LabelledRow, drawable, ruler_csv, ruler_figure, ruler_table_text
from ..render.tables import cell_text, render_rows
from ..stats.cells import Cell
from ..views.depth import DepthCell, depth_title, report_depth_cells
from ..views.effective import ALL_LANGUAGES, EffectiveLength, effective_lengths
from ..views.heatmap import HeatmapGrid, heatmap
from ..views.ruler_table import ruler_rows
from .load import ModelReport
from .paired import (GRADED_TESTS_LINE, SIGN_FLIP, TESTS_LINE, PairedCell, headline, pair_summary, paired_cells,
                     pairing)
from .tables import group_curves, language_table, none_errors, task_length_table


def slug(label: str) -> str:
    """A file-name-safe form of a model label."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-") or "model"


def _accuracy_csv(head: list[str], keys: list, per_model: list[dict[Any, Cell]], models: list[str]) -> bytes:
    """Accuracies (fractions) per model, then each model's interval and counted rows."""
    columns = head + models + [f"{m} {what}" for m in models for what in ("ci_low", "ci_high", "counted")]
    rows = []
    for key in keys:
        key_cells = list(key) if isinstance(key, tuple) else [key]
        key_cells = [render_length(v) if isinstance(v, int) else v for v in key_cells]
        cells = [cells.get(key) for cells in per_model]
        rows.append(key_cells + [c.accuracy if c else None for c in cells]
                    + [v for c in cells for v in (tuple(c.interval.as_list()) if c and c.interval else (None, None))
                       + ((c.counted if c else None),)])
    return csv_bytes(columns, rows)


def _tables(reports: list[ModelReport]) -> tuple[str, str, dict[str, bytes]]:
    models = [r.label for r in reports]
    tl_keys, tl_cells = task_length_table(reports)
    lang_keys, lang_cells = language_table(reports)
    tl_head, lang_head = ["task", "length", *models], ["language", *models]
    tl_rows = [[task, render_length(n)] + [cell_text(c.get((task, n))) for c in tl_cells] for task, n in tl_keys]
    lang_rows = [[lang] + [cell_text(c.get(lang)) for c in lang_cells] for lang in lang_keys]
    text = (f"accuracy (%) [95 % interval] by task and length\n{render_rows(tl_head, tl_rows)}\n\n"
            f"accuracy (%) [95 % interval] by language (all tasks and lengths)\n{render_rows(lang_head, lang_rows)}")
    markdown = (f"## Accuracy (%) [95 % interval] by task and length\n\n{render_rows(tl_head, tl_rows, True)}\n\n"
                f"## Accuracy (%) [95 % interval] by language\n\n{render_rows(lang_head, lang_rows, True)}\n")
    files = {"by_task_length.csv": _accuracy_csv(["task", "length"], tl_keys, tl_cells, models),
             "by_language.csv": _accuracy_csv(["language"], lang_keys, lang_cells, models)}
    return text, markdown, files


def _effective(reports: list[ModelReport]) -> tuple[str, bytes]:
    """The effective lengths side by side (all languages pooled printed; every scope in the CSV)."""
    per_model = {r.label: effective_lengths(r.report.columns, r.report.settings.threshold) for r in reports}
    keys = list(dict.fromkeys((e.scope, e.tasks, e.definition) for rows in per_model.values() for e in rows))
    found = {(m, e.scope, e.tasks, e.definition): e for m, rows in per_model.items() for e in rows}
    head = ["tasks", "definition", *per_model]
    rows = []
    for scope, tasks, definition in keys:
        if scope != ALL_LANGUAGES:
            continue
        cells = [found.get((m, scope, tasks, definition)) for m in per_model]
        rows.append([tasks, definition] + [_effective_text(e) for e in cells])
    text = ("effective context length (RULER §3): estimate (with 95 % confidence); per language in effective_length.csv\n"
            + render_rows(head, rows))
    lines = [[m] + e.csv_row() for m, rows in per_model.items() for e in rows]
    return text, csv_bytes(("model",) + EffectiveLength.HEADER, lines)


def _effective_text(e: EffectiveLength | None) -> str:
    """``32k (8k)``: the estimate and, in brackets, the length held with 95 % confidence; an undetermined one once."""
    if e is None:
        return "-"
    if e.effective_length == e.effective_length_conservative and e.effective_length.startswith("not determined"):
        return e.effective_length
    return f"{e.effective_length} ({e.effective_length_conservative})"


def _paired(reports: list[ModelReport], grids: list[HeatmapGrid]) -> tuple[str, str, dict[str, bytes]]:
    """Every pair of models: the headline (each pair's clustered overall result), the printed summary, paired.csv
    and a difference heatmap per pair (``grids``: each model's heatmap, whose language order they keep)."""
    heads, texts, files, every = [], [], {}, []
    for i, a in enumerate(reports):
        for b in reports[i + 1:]:
            reason = pairing(a.document.manifest_sha256(), b.document.manifest_sha256())
            cells = [] if reason else paired_cells(a.label, a.report.scored, b.label, b.report.scored, has_needles)
            if reason or not cells:
                texts.append(f"{a.label} vs {b.label}: no paired comparison ({reason or 'no row counted in both'}); "
                             f"compare their intervals instead")
                heads.append(texts[-1])
                continue
            every += cells
            heads.append(headline(cells))
            texts.append(pair_summary(cells))
            files[f"diff-{slug(a.label)}-vs-{slug(b.label)}.png"] = _difference_png(a.label, b.label, cells, grids[i])
    if every:
        files = {"paired.csv": csv_bytes(PairedCell.HEADER, [c.csv_row() for c in every]), **files}
    if every:
        texts.append(TESTS_LINE)
    if any(c.scope == "config" and c.test == SIGN_FLIP for c in every):
        texts.append(GRADED_TESTS_LINE)
    head = "" if not heads else "\n".join(["overall, paired (rows sharing an example index are resampled and tested "
                                           "together):", *heads] + ([TESTS_LINE] if every else []))
    return head, "\n".join(texts), files


def _difference_png(label_a: str, label_b: str, cells: list[PairedCell], grid_a: HeatmapGrid) -> bytes:
    """The difference heatmap of a pair: its language × length cells, languages in model A's heatmap order."""
    grid = {c.key: c for c in cells if c.scope == "language × length"}
    languages = [lang for lang in grid_a.languages if any(k[0] == lang for k in grid)]
    lengths = sorted({k[1] for k in grid})
    matrix = [[_diff_cell(grid.get((lang, n))) for n in lengths] for lang in languages]
    title = (f"{label_a} minus {label_b}: accuracy difference (points) by language and length; "
             f"pale: not significant (sign-flip test over example indices, Benjamini–Hochberg q ≥ 0.05)")
    return difference_png(matrix, languages, [render_length(n) for n in lengths], title)


def _diff_cell(cell: PairedCell | None) -> GridCell:
    if cell is None:
        return GridCell(None, "no rows")
    points = round(100 * cell.diff) + 0  # + 0: no "-0" for a difference that rounds to nothing
    return GridCell(100 * cell.diff, f"{points:+d}" if points else "0", muted=not cell.significant, bold=cell.significant)


def _model_figures(r: ModelReport, grid: HeatmapGrid) -> tuple[dict[str, bytes], list[DepthCell]]:
    """One model's heatmap, language-group curves and depth figure, and its depth cells."""
    files = {f"heatmap-{slug(r.label)}.png": language_heatmap_png(grid, f"{r.label}: accuracy (%) on {grid.scope}")}
    lengths, curves = group_curves(r)
    files[f"groups-{slug(r.label)}.png"] = group_curves_png(lengths, curves, r.label)
    bins, depth = report_depth_cells(r.report)
    if depth:
        title = depth_title(r.report, f"{r.label}: accuracy (%) by needle depth, languages pooled")
        files[f"depth-{slug(r.label)}.png"] = depth_png(depth, bins, title)
    return files, depth


def _ruler(reports: list[ModelReport], published: Sequence[PublishedRow]) -> tuple[str, str, dict[str, bytes]]:
    """RULER's table of every report holding RULER's rows (one line per model and tokenizer) and the published rows
    asked for: text, Markdown, ruler_table.csv and ruler.png ("" and nothing when there is neither)."""
    rows = [LabelledRow(r.label, row) for r in reports
            for row in ruler_rows(r.report.columns, r.report.settings.threshold)]
    if not rows and not published:
        return "", "", {}
    title = RULER_TITLE + ("; beside RULER's published rows" if published else "")
    figure_title = ("RULER's score (%) by length, mean of its 13 tasks: each report with its 95 % band"
                    + ("; dashed: RULER's published numbers (another harness and tokenizer, no interval)"
                       if published else ""))
    files = {"ruler_table.csv": csv_bytes(*ruler_csv(rows, published))}
    if published or drawable(rows):  # nothing determined and nothing published: no empty figure
        files["ruler.png"] = ruler_figure(rows, published, figure_title, ranked=True)
    return (f"{title}\n{ruler_table_text(rows, published)}",
            f"## RULER's table\n\n{title}\n\n{ruler_table_text(rows, published, markdown=True)}\n\n", files)


def write_comparison(reports: list[ModelReport], out_dir: Path,
                     published: Sequence[PublishedRow] = ()) -> tuple[str, list[Path]]:
    """Write the tables (CSV, Markdown) and figures into ``out_dir``; return the printed text and the files.
    ``published``: RULER's published rows to set beside the reports' RULER tables."""
    grids = [heatmap(r.report.columns) for r in reports]
    text, markdown, files = _tables(reports)
    effective_text, files["effective_length.csv"] = _effective(reports)
    ruler_text, ruler_markdown, ruler_files = _ruler(reports, published)
    head, paired_text, paired_files = _paired(reports, grids)
    lead = f"## Headline\n\n```\n{head}\n```\n\n" if head else ""
    files["compare.md"] = (f"# ONERULER comparison\n\n{lead}{markdown}\n## Effective context length\n\n```\n"
                           f"{effective_text}\n```\n\n{ruler_markdown}## Paired comparisons\n\n```\n{paired_text}\n```\n"
                           ).encode("utf-8")
    files.update(ruler_files)
    files.update(paired_files)
    depth_rows = []
    for r, grid in zip(reports, grids):
        figures, depth = _model_figures(r, grid)
        files.update(figures)
        depth_rows += [[r.label] + c.csv_row() for c in depth]
    files["depth.csv"] = csv_bytes(("model",) + DepthCell.HEADER, depth_rows)
    languages, counts, scope = none_errors(reports)
    if languages:  # no figure of nothing: reports without S-NIAH rows (RULER's tasks alone) have no "none" answer
        files["none-errors.png"] = none_errors_png(languages, counts, scope)
    ruler_part = f"{ruler_text}\n\n" if ruler_text else ""
    printed = f"{text}\n\n{effective_text}\n\n{ruler_part}paired comparisons\n{paired_text}"
    return (f"{head}\n\n{printed}" if head else printed), write_files(out_dir, files)
