"""The printed tables of a report: text (and Markdown) tables of accuracies with their intervals, the error
categories per task and the effective lengths; the cell and table formats ``oneruler compare`` shares."""

from __future__ import annotations

from typing import Any

from ...base.text import plural
from ... import scoring
from ...spec.configs import render_length
from ..documents.scores_json import ScoresDocument
from ..report_data import Report
from ..stats.cells import Cell
from ..views.effective import ALL_LANGUAGES, EffectiveLength
from ..views.grouping import task_rank
from ..views.sweep import sweep_tables

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


def render_table(report: Report, document: ScoresDocument) -> str:
    """Accuracy (%) with its 95 % interval by task x language (rows) and length (columns, plus "all"), then the
    overall line (from ``document``). A cell whose config lacks prediction lines shows its coverage, e.g.
    ``100.0 [..] (25/50)``."""
    columns = report.columns
    multi_tok = len(columns.values["tokenizer"]) > 1
    row_fields = ("task", "language") + (("tokenizer",) if multi_tok else ())
    by_length = columns.cells(row_fields + ("length",))
    by_row = columns.cells(row_fields)
    lengths = sorted({key[-1] for key in by_length})
    head = list(row_fields) + [render_length(n) for n in lengths] + ["all"]
    lines = []
    for key in sorted(by_row, key=lambda k: (task_rank(k[0]),) + k[1:]):
        lines.append(list(key) + [cell_text(by_length.get(key + (n,))) for n in lengths] + [cell_text(by_row[key])])
    overall = document.overall
    line = (f"overall accuracy: {pct(overall.accuracy)}% ({overall.passed}/{overall.counted})" if overall.counted else
            f"overall accuracy: none: no row is counted ({overall.dropped} dropped by the missing-answer policy, "
            f"notes below)")
    if overall.counted and overall.graded:
        line = (f"overall score: {pct(overall.accuracy)}% (the mean score of {overall.counted} counted rows, a RULER "
                f"row's score its credit; {overall.passed} with full credit)")
    if overall.ci:
        line += f", 95 % interval {pct(overall.ci[0])}–{pct(overall.ci[1])}"
    cov = document.coverage
    if cov.missing_lines:
        line += (f" -- PARTIAL: {cov.missing_lines} of {cov.rows} rows have no prediction line "
                 f"({plural(len(cov.partial_configs), 'config')} incomplete)")
    return f"{render_rows(head, lines)}\n\n{line}"


def render_sweep(report: Report) -> str:
    """The fixed-depth sweep configs (``_at{D}``) as depth × length tables per task, languages pooled ("": none)."""
    parts = []
    for table in sweep_tables(report.columns):
        head = ["depth %"] + [render_length(n) for n in table.lengths]
        rows = [[str(depth)] + [cell_text(table.cells.get((depth, n))) for n in table.lengths]
                for depth in table.depths]
        pooled = ", ".join(table.languages)
        parts.append(f"{table.task}, {'languages pooled: ' if len(table.languages) > 1 else 'language: '}{pooled}\n"
                     + render_rows(head, rows))
    if not parts:
        return ""
    return ("fixed-depth sweep (configs _at{D}: every needle at D % of the haystack's tokens): accuracy (%) "
            "[95 % interval] by depth and length\n" + "\n\n".join(parts))


ERROR_HEADER = ("task", *scoring.CATEGORIES, "counted", "dropped")  # errors.csv and the printed table


def render_errors(errors: dict[str, dict[str, int]]) -> str:
    """Error-type breakdown per task (counts over the examples in the accuracy)."""
    head = list(ERROR_HEADER)
    return render_rows(head, [[task] + [str(c[k]) for k in head[1:]] for task, c in errors.items()])


def render_effective(rows: list[EffectiveLength]) -> str:
    """The effective lengths of all languages pooled (per language: effective_length.csv)."""
    head = ["tasks", "definition", "threshold %", "effective length", "with 95 % confidence"]
    pooled = [[r.tasks, r.definition, "-" if r.threshold is None else f"{r.threshold:g}", r.effective_length,
               r.effective_length_conservative] for r in rows if r.scope == ALL_LANGUAGES]
    return render_rows(head, pooled)
