"""The report as data: ``Report`` holds what ``oneruler score`` computed (and ``oneruler compare`` reads
back from a report folder): the scored records, the options they were scored under, the settings of
the views (``ReportSettings``), the dataset's identity and what is copied into scores.json as is.

Its records as numpy columns, with the one cluster bootstrap every pooled interval shares
(``stats/cells.py:RecordColumns``), and the unit its depth view bins by are settled once, when the
Report is made. Every table, figure and file is a function of a Report (``views/``, ``render/``);
none is stored in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..dataset.source import DatasetIdentity
from ..spec.defaults import EFFECTIVE_LENGTH_THRESHOLD
from ..spec.run_meta import RunMeta, copied_meta
from .score.needles import DepthUnit, depth_unit_of
from .score.options import ScoringOptions
from .score.predictions import Prediction
from .score.records import Record, score_rows
from .stats.cells import RecordColumns

ABSOLUTE_THRESHOLD = EFFECTIVE_LENGTH_THRESHOLD / 100  # a fraction (0.856)
DEPTH_BINS = 10  # bins of 10 points by default (a sweep's: one per step of its depths)


@dataclass(frozen=True)
class ReportSettings:
    """How the views read the records: ``threshold`` of the absolute effective length (a fraction), the number of
    needle-depth bins (None: ``DEPTH_BINS``, or for a fixed-depth sweep one per step of its depths) and their unit
    (``depth_unit``; None: tokens when the dataset records them, else sentences)."""

    threshold: float = ABSOLUTE_THRESHOLD
    depth_bins: int | None = None
    depth_unit: DepthUnit | None = None


@dataclass(frozen=True)
class Report:
    """Everything `oneruler score` computes its tables and files from.

    ``records`` holds every row of the configs the predictions refer to; ``scored`` those that
    have a prediction line. Only scored records enter an accuracy; the others make their config
    partial (its coverage is reported everywhere). ``extra`` is copied into scores.json as is
    (e.g. the run's meta). ``scored``, ``columns`` and ``depth_unit`` (the unit the depth view bins
    by: the settings' unit, else tokens when every queried needle records its token depth, else
    sentences) are derived from ``records`` when the Report is made.
    """

    options: ScoringOptions
    records: tuple[Record, ...]
    settings: ReportSettings = ReportSettings()
    dataset: DatasetIdentity | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    scored: tuple[Record, ...] = field(init=False, repr=False, compare=False)
    columns: RecordColumns = field(init=False, repr=False, compare=False)
    depth_unit: DepthUnit = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        records = tuple(self.records)
        object.__setattr__(self, "records", records)
        object.__setattr__(self, "scored", tuple(r for r in records if not r.no_line))
        object.__setattr__(self, "columns", RecordColumns(records))
        hits = [(r.config, hit) for r in self.scored for hit in r.needle_hits]
        object.__setattr__(self, "depth_unit", depth_unit_of(hits, self.settings.depth_unit))

    @property
    def strict(self) -> bool:
        """Whole-token matching (with paper-mode scores kept for comparison)."""
        return self.options.strict

    @property
    def run(self) -> RunMeta | None:
        """The run's meta the report copies into scores.json (``extra["run"]``), as its record (None: none)."""
        return copied_meta(self.extra.get("run"))

    @property
    def depth_fallback(self) -> bool:
        """The depth view is in sentences only because the dataset records no token depths (none was asked for)."""
        return self.settings.depth_unit is None and self.depth_unit == "sentences"


def score_predictions(predictions: dict[str, Prediction], rows: dict[str, dict],
                      options: ScoringOptions = ScoringOptions(), settings: ReportSettings = ReportSettings(),
                      dataset: DatasetIdentity | None = None, extra: dict[str, Any] | None = None) -> Report:
    """Score every row of the referenced configs into a Report."""
    return Report(options, tuple(score_rows(predictions, rows, options)), settings, dataset, dict(extra or {}))
