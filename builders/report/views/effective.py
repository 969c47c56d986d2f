"""Effective context length (RULER §3; NoLiMa's relative rule), per model and per language.

Over every length a report holds, in order, the effective length is the longest length L such that
the accuracy is at or above the threshold at L and at every shorter length. ``absolute``: the
threshold is RULER's 85.6 % (Llama-2-7B at 4K; the report's ``threshold``); ``relative``: 85 % of the
model's own accuracy at its shortest length (NoLiMa). Each also in a conservative form that
compares the interval's lower bound instead of the accuracy ("≥ L with 95 % confidence").
``<8k``: not even the shortest length reached; ``≥128k``: every length reached, the longest held.
With one length the relative rule compares that length with itself: it is ``not determined (one
length)``; a length without a counted row (every NIAH answer cut and dropped, say) makes the rule
``not determined (no counted row)`` wherever it would read that length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ...spec.configs import render_length
from ..stats.cells import Cell, RecordColumns
from .grouping import niah_scope

RELATIVE_SHARE = 0.85  # NoLiMa: 85 % of the base score
ALL_LANGUAGES = "all languages"
ONE_LENGTH = "not determined (one length)"
NO_ROWS = "not determined (no counted row)"


@dataclass(frozen=True)
class EffectiveLength:
    """One line of effective_length.csv."""

    scope: str  # "all languages" or a language (ctx-inst for cross-lingual pairs)
    tasks: str  # "all tasks" or "NIAH tasks"
    definition: str  # "absolute" or "relative"
    threshold: float | None  # percent; None: undefined (relative rule with 0 % at the shortest length)
    effective_length: str
    effective_length_conservative: str
    accuracy_by_length: str  # "8k 96.0 [93.1–97.8]; 32k ..." (what the rule read)

    HEADER = ("scope", "tasks", "definition", "threshold", "effective_length", "effective_length_conservative",
              "accuracy_by_length")

    def csv_row(self) -> list[Any]:
        """The values in ``HEADER`` order."""
        return [getattr(self, name) for name in self.HEADER]


def reach(lengths: Sequence[int], values: Sequence[float | None], threshold: float) -> str:
    """The longest length whose value and every shorter one's are >= threshold: ``32k``, ``<8k`` or ``≥128k``; a length
    with no counted row met before the rule fails leaves it ``not determined (no counted row)`` (``… at 64k)`` when
    shorter lengths held): no conclusion is drawn from rows that were not counted."""
    reached = None
    for length, value in zip(lengths, values):
        if value is None:
            return NO_ROWS if reached is None else f"{NO_ROWS[:-1]} at {render_length(length)})"
        if value < threshold - 1e-12:
            break
        reached = length
    if reached is None:
        return f"<{render_length(lengths[0])}"
    return f"≥{render_length(reached)}" if reached == lengths[-1] else render_length(reached)


def _described(lengths: Sequence[int], cells: Sequence[Cell | None]) -> str:
    parts = []
    for length, cell in zip(lengths, cells):
        if cell is None or cell.accuracy is None:
            parts.append(f"{render_length(length)} -")
        else:
            low, high = (cell.interval.low, cell.interval.high) if cell.interval else (cell.accuracy, cell.accuracy)
            parts.append(f"{render_length(length)} {100 * cell.accuracy:.1f} [{100 * low:.1f}–{100 * high:.1f}]")
    return "; ".join(parts)


def scope_effective_lengths(scope: str, tasks: str, by_length: dict[int, Cell], threshold: float) -> list[EffectiveLength]:
    """The absolute and relative effective lengths of one scope from its accuracy per length."""
    lengths = sorted(by_length)
    if not lengths:
        return []
    cells = [by_length[n] for n in lengths]
    points = [c.accuracy for c in cells]
    lows = [c.interval.low if c.interval else None for c in cells]
    text = _described(lengths, cells)
    out = [EffectiveLength(scope, tasks, "absolute", round(100 * threshold, 2), reach(lengths, points, threshold),
                           reach(lengths, lows, threshold), text)]
    base = points[0]
    if len(lengths) == 1:
        out.append(EffectiveLength(scope, tasks, "relative", None, ONE_LENGTH, ONE_LENGTH, text))
    elif base is None:
        out.append(EffectiveLength(scope, tasks, "relative", None, NO_ROWS, NO_ROWS, text))
    elif base:
        relative = RELATIVE_SHARE * base
        out.append(EffectiveLength(scope, tasks, "relative", round(100 * relative, 2), reach(lengths, points, relative),
                                   reach(lengths, lows, relative), text))
    else:
        out.append(EffectiveLength(scope, tasks, "relative", None, "n/a", "n/a", text))
    return out


def effective_lengths(columns: RecordColumns, threshold: float) -> list[EffectiveLength]:
    """Every scope of the records: all languages pooled, then each language; all tasks, then NIAH tasks alone."""
    scopes = [("all tasks", None)]
    niah, name = niah_scope(columns)
    if niah is not None:
        scopes.append((name, niah))
    out: list[EffectiveLength] = []
    for tasks, where in scopes:
        pooled = {key[0]: cell for key, cell in columns.cells(("length",), where).items()}
        out += scope_effective_lengths(ALL_LANGUAGES, tasks, pooled, threshold)
    per_language = [(tasks, columns.cells(("language", "length"), where)) for tasks, where in scopes]
    languages = sorted({lang for _, cells in per_language for lang, _ in cells}, key=lambda x: ("-" in x, x))
    for language in languages:
        for tasks, cells in per_language:
            mine = {n: cell for (lang, n), cell in cells.items() if lang == language}
            out += scope_effective_lengths(language, tasks, mine, threshold)
    return out
