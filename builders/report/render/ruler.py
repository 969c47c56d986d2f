"""RULER's table as text, Markdown and CSV: ``oneruler score``'s rows (one per tokenizer) and ``compare``'s (one per
model and tokenizer), with RULER's published rows beside them when asked (``spec/ruler_published.py``), each
published row said to be RULER's own numbers (another harness and tokenizer, no interval)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ...spec.grids import RULER_LENGTHS
from ...spec.ruler_published import CAVEAT, SOURCE, PublishedRow
from ..documents.ruler_table import AVG, WAVG_DEC, WAVG_INC, RulerRow, missing_text
from ..views.ruler_table import ruler_label
from .plots import RulerCurve, ruler_png
from .tables import render_rows

AVERAGES = (AVG, WAVG_INC, WAVG_DEC)
RULER_TITLE = ("RULER's table (Hsieh et al., 2024): per length the mean of its 13 tasks' scores (%) [95 % interval], "
               "Avg. and wAvg. over 4K … 128K, effective length (RULER's rule; per tokenizer)")
GRADED_NOTE = "RULER's tasks (ruler_*) score each row's credit (0–1): their cells are mean scores (%)"
PUBLISHED_ORIGIN = "RULER's README (published)"


@dataclass(frozen=True)
class LabelledRow:
    """A report's RULER row with the names it is shown under: its model (compare) or none (score), its tokenizer."""

    model: str | None
    row: RulerRow


def table_lengths(rows: Sequence[LabelledRow]) -> list[int]:
    """RULER's six lengths and every other length a row holds, in order."""
    return sorted(set(RULER_LENGTHS).union(*(r.row.lengths for r in rows)))


def _row_cells(row: RulerRow, lengths: list[int]) -> list[str]:
    cells = []
    for name in [ruler_label(n) for n in lengths] + list(AVERAGES):
        try:
            value = row.column(name)
        except KeyError:
            cells.append("-")
            continue
        cells.append(value.text() if value.value is not None else "-")
    return cells + [row.effective_text()]


def _published_cells(row: PublishedRow, lengths: list[int]) -> list[str]:
    shown = [row.score_at(n) for n in lengths] + [row.avg, row.wavg_inc, row.wavg_dec]
    cells = ["-" if v is None else f"{v:.1f}" for v in shown]
    for k, rank in ((-2, row.rank_inc), (-1, row.rank_dec)):
        if rank is not None:
            cells[k] += f" ({ordinal(rank)})"
    return cells + [row.effective_length or "-"]


def ordinal(rank: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st`` (RULER's rank subscripts)."""
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"


def ruler_table_text(rows: Sequence[LabelledRow], published: Sequence[PublishedRow] = (),
                     markdown: bool = False) -> str:
    """The table (one line per row, RULER's columns, the effective length), then what is not determined and, with
    published rows, where they come from."""
    lengths = table_lengths(rows)
    threshold = rows[0].row.threshold if rows else 85.6
    by_model = any(r.model is not None for r in rows) or bool(published)
    head = (["model"] if by_model else []) + ["tokenizer"] + [ruler_label(n) for n in lengths] + list(AVERAGES)
    head.append(f"effective length (≥ {threshold:g})")
    lines = [([r.model or ""] if by_model else []) + [r.row.tokenizer] + _row_cells(r.row, lengths) for r in rows]
    lines += [[f"{p.label} [published]", "its own"] + _published_cells(p, lengths) for p in published]
    notes = [f"{_named(r)}: {v.column} not determined ({missing_text(v.missing or [])})"
             for r in rows for v in r.row.columns if v.value is None]
    if published:
        notes.append(f"[published]: {CAVEAT}; {SOURCE.url}")
    text = render_rows(head, lines, markdown)
    return text + "".join(f"\n{'- ' if markdown else '  '}{n}" for n in notes)


def _named(row: LabelledRow) -> str:
    return f"{row.model}, {row.row.tokenizer}" if row.model else row.row.tokenizer


def ruler_csv(rows: Sequence[LabelledRow], published: Sequence[PublishedRow] = ()) -> tuple[list[str], list[list]]:
    """ruler_table.csv's header and lines: one line per row, RULER's columns as fractions with their interval
    bounds, the effective length and its interval; published rows (percent / 100, no interval) with their claimed
    length and ranks."""
    lengths = table_lengths(rows)
    names = [ruler_label(n) for n in lengths] + list(AVERAGES)
    header = ["model", "origin", "tokenizer", *[f"{n}{s}" for n in names for s in ("", " ci_low", " ci_high")],
              "effective length", "effective length ci_low", "effective length ci_high", "threshold", "rows",
              "indices", "claimed length", "rank wAvg. (inc)", "rank wAvg. (dec)", "not determined"]
    out = [_report_line(r, names) for r in rows] + [_published_line(p, lengths) for p in published]
    return header, out


def _report_line(labelled: LabelledRow, names: list[str]) -> list[Any]:
    row = labelled.row
    found = {c.column: c for c in row.columns}
    values = [v for n in names for v in ((found[n].value, *(found[n].ci or (None, None))) if n in found
                                         else (None, None, None))]
    ci = row.effective_length_ci or (None, None)
    lacking = "; ".join(f"{c.column}: {missing_text(c.missing or [])}" for c in row.columns if c.value is None)
    return [labelled.model, "this report", row.tokenizer, *values, row.effective_length, *ci, row.threshold, row.rows,
            row.indices, None, None, None, lacking]


def _published_line(row: PublishedRow, lengths: list[int]) -> list[Any]:
    shown = [row.score_at(n) for n in lengths] + [row.avg, row.wavg_inc, row.wavg_dec]
    values = [v for s in shown for v in (None if s is None else round(s / 100, 6), None, None)]
    return [row.label, PUBLISHED_ORIGIN, None, *values, row.effective_length, None, None, None, None, None,
            row.claimed_length, row.rank_inc, row.rank_dec, None]


def drawable(rows: Sequence[LabelledRow]) -> bool:
    """Whether any row has a determined value to draw (a figure of no point is not written)."""
    return any(c.value is not None for r in rows for c in r.row.columns)


def ruler_figure(rows: Sequence[LabelledRow], published: Sequence[PublishedRow], title: str, ranked: bool) -> bytes:
    """ruler.png: each row's score by length with its band (``plots.ruler_png``), published rows dashed; ``ranked``:
    the Avg. of every row beside it."""
    lengths = table_lengths(rows)
    curves = [_curve(r, lengths) for r in rows]
    curves += [RulerCurve(p.label, f"{p.label}: Avg. {'-' if p.avg is None else p.avg}, effective "
                          f"{p.effective_length or '-'} [published]", lengths, [p.score_at(n) for n in lengths], [None] * len(lengths), p.avg, None, published=True)
               for p in published]
    threshold = rows[0].row.threshold if rows else 85.6
    return ruler_png(curves, [ruler_label(n) for n in lengths], threshold, title, ranked)


def _curve(labelled: LabelledRow, lengths: list[int]) -> RulerCurve:
    row = labelled.row
    found = {c.column: c for c in row.columns}
    values = [found.get(ruler_label(n)) for n in lengths]
    scores = [None if v is None or v.value is None else 100 * v.value for v in values]
    intervals = [None if v is None or not v.ci else (100 * v.ci[0], 100 * v.ci[1]) for v in values]
    avg = found[AVG]
    name = _named(labelled)
    label = f"{name}: Avg. {avg.text() if avg.value is not None else '-'}, effective {row.effective_text()}"
    return RulerCurve(name, label, lengths, scores, intervals, None if avg.value is None else 100 * avg.value,
                      None if not avg.ci else (100 * avg.ci[0], 100 * avg.ci[1]))
