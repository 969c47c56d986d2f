"""The language × length heatmap (paper Fig. 3): NIAH tasks pooled, each cell with its interval; drawn by
``oneruler score`` (heatmap.png) and ``oneruler compare`` (one per model, and the languages of the
difference heatmaps)."""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.configs import render_length
from ...spec.languages import LANGUAGES
from ..stats.cells import Cell, RecordColumns
from .grouping import niah_scope


@dataclass(frozen=True)
class HeatmapGrid:
    """Accuracy by language (rows) × length (columns) over NIAH tasks pooled (paper Fig. 3); cells None: no rows.

    Monolingual languages come first, by accuracy, then cross-lingual pairs (``ko-en``), by accuracy.
    """

    languages: list[str]
    lengths: list[str]
    cells: list[list[Cell | None]]
    scope: str


def heatmap(columns: RecordColumns) -> HeatmapGrid:
    """Accuracy (with intervals and reasons) by language × length over the NIAH tasks pooled (paper Fig. 3)."""
    where, scope = niah_scope(columns)
    cells = columns.cells(("language", "length"), where)
    overall = {k[0]: c.accuracy for k, c in columns.cells(("language",), where).items()}
    languages = sorted(overall, key=lambda lang: (lang not in LANGUAGES, -(overall[lang] or 0.0), lang))
    lengths = sorted({n for _, n in cells})
    grid = [[cells.get((lang, n)) for n in lengths] for lang in languages]
    return HeatmapGrid(languages, [render_length(n) for n in lengths], grid, scope)
