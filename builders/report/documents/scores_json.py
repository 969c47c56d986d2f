"""scores.json as a typed record with one writer and one reader: ``ScoresDocument`` (``to_bytes`` /
``read_scores``) and its parts (``Summary``, ``ConfigScore``, ``Coverage``, ``SampleSize``, ...).

``oneruler score`` builds it (``views/document.py``) and writes it (``render/folder.py``), RULER's table row
(``ruler_table``, ``documents/ruler_table.py``) only for reports holding RULER's rows;
``oneruler compare`` reads it back (``compare/load.py``). Accuracies and interval bounds are
fractions (0–1). Fields added after a report was written (intervals, sample size, dataset
identity) read as None from older folders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from ...base.errors import OneRulerError
from ...dataset.source import DatasetIdentity
from ... import scoring
from ...spec.run_meta import RunMeta, copied_meta
from ..score.options import ScoringOptions
from .ruler_table import RulerRow

Mode = Literal["paper", "strict"]


@dataclass
class Counts:
    """``scoring.summarize`` of some examples: accuracy and recall (None: nothing counted) and the counts.

    ``graded`` (True, written only then): some counted example is scored by a graded rule (RULER's), and
    ``accuracy`` is the mean score of the counted examples (RULER's task score as a fraction: each graded row its
    credit, a pass/fail row 1 or 0); ``passed`` still counts the examples with full credit."""

    accuracy: float | None
    recall: float | None
    passed: int
    counted: int
    dropped: int
    total: int
    no_response: int
    truncated: int
    graded: bool | None = None


@dataclass
class Summary(Counts):
    """Counts with their categories and the 95 % interval of the accuracy (``ci``: [low, high])."""

    categories: dict[str, int] | None = None
    ci: list[float] | None = None


@dataclass
class ConfigIdentity:
    """Which config a line of ``groups`` is, and how many of its rows have a prediction line."""

    config: str
    task: str
    language: str
    length: int
    tokenizer: str
    coverage: str  # "have/total" prediction lines
    partial: bool


@dataclass
class ConfigScore(Counts, ConfigIdentity):
    """One config's line of scores.json ``groups`` and of scores.csv (``ci`` is two CSV columns): the identity's
    fields, then the counts', then these."""

    paper_accuracy: float | None = None  # strict reports only
    ci: list[float] | None = None
    empty_reason: str | None = None  # why nothing is counted, e.g. "all 50 truncated (finish_reason=length) ..."
    over_limit: int | None = None  # rows whose gold answer exceeds the run's limit of new tokens (score/answer_room.py)

    def csv_header(self, strict: bool, graded: bool = False) -> list[str]:
        """scores.csv's columns (``paper_accuracy`` only in strict reports, ``graded`` only in reports with graded
        rows)."""
        names = [f.name for f in fields(self) if f.name != "ci" and (strict or f.name != "paper_accuracy")
                 and (graded or f.name != "graded")]
        at = names.index("empty_reason")
        return names[:at] + ["ci_low", "ci_high"] + names[at:]

    def csv_row(self, strict: bool, graded: bool = False) -> list[Any]:
        """The values of ``csv_header``."""
        values = {**vars(self), "ci_low": self.ci[0] if self.ci else None, "ci_high": self.ci[1] if self.ci else None}
        return [values[name] for name in self.csv_header(strict, graded)]


@dataclass
class Coverage:
    """How many rows have a prediction line; ``partial_configs``: each incomplete config's "have/total"."""

    rows: int
    predicted: int
    missing_lines: int
    partial_configs: dict[str, str]


@dataclass
class NullPredictions:
    """Scored rows without a response (null output): per task family (``by_family``: every family of the scored
    rows, e.g. ``{"niah": 3, "cwe": 0}``), and how the missing-answer policy took them."""

    by_family: dict[str, int]
    dropped: int
    counted_wrong: int

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "NullPredictions":
        """Read scores.json's object (before 0.3.0 the families were the keys ``niah`` and ``cwe``)."""
        return cls(_by_family(data), data["dropped"], data["counted_wrong"])


@dataclass
class FinishReasonLength:
    """Outputs cut at the token limit (finish_reason "length"), in all and per task family; ``unknown``: outputs
    whose line records no finish_reason (0 in reports written before it was counted)."""

    count: int
    by_family: dict[str, int]
    unknown: int = 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "FinishReasonLength":
        """Read scores.json's object (before 0.3.0 the families were the keys ``niah`` and ``cwe``)."""
        return cls(data["count"], _by_family(data), data.get("unknown", 0))


def _by_family(data: dict[str, Any]) -> dict[str, int]:
    """The per-family counts of a scores.json object, written by family or (before 0.3.0) as ``niah``/``cwe``."""
    return dict(data["by_family"]) if "by_family" in data else {"niah": data["niah"], "cwe": data["cwe"]}


@dataclass
class SampleSize:
    """The smallest differences the sample size can detect (two-sided ``alpha``, ``power``), at the observed
    ``accuracy``: per config (``examples_per_config``, the median) and overall (the cluster bootstrap's error)."""

    alpha: float
    power: float
    accuracy: float
    examples_per_config: int
    config_detectable_difference: float
    overall_standard_error: float
    overall_detectable_difference: float


@dataclass
class ScoresDocument:
    """The content of scores.json, in the order written."""

    mode: Mode
    truncation: scoring.TruncationPolicy
    options: ScoringOptions
    complete: bool
    coverage: Coverage
    overall: Summary
    null_predictions: NullPredictions
    finish_reason_length: FinishReasonLength
    by_task: dict[str, Summary]
    by_language: dict[str, Summary]
    by_length: dict[str, Summary]
    groups: list[ConfigScore]
    errors: dict[str, dict[str, int]]
    paper_overall: Summary | None = None  # strict reports only
    disagreements: dict[str, Any] | None = None  # strict reports only
    intervals: dict[str, str] | None = None  # method per kind of accuracy
    sample_size: SampleSize | None = None  # None: nothing to size (written as {})
    dataset: DatasetIdentity | None = None
    ruler_table: list[RulerRow] | None = None  # RULER's table row per tokenizer (reports holding RULER's rows)
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. "run" (the run's meta), "unscored_lines"

    def __post_init__(self) -> None:
        room = self.extra.get("answer_room")  # report/score/answer_room.py: each config's over_limit comes from it
        over = room.get("over_limit") if isinstance(room, dict) else None
        if isinstance(over, dict):
            for group in self.groups:
                if group.over_limit is None:
                    group.over_limit = over.get(group.config)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object (optional parts left out when absent; ``extra`` merged at the top level)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "sample_size" and value is None:
                out[f.name] = {}
            elif f.name == "ruler_table" and value is not None:
                out[f.name] = [row.to_json() for row in value]
            elif f.name != "extra" and not (value is None and f.default is None):
                out[f.name] = value.as_json() if isinstance(value, ScoringOptions) else _plain(value)
        if self.mode != "strict":  # paper_accuracy is a strict report's column (null there when nothing is counted)
            for group in out["groups"]:
                del group["paper_accuracy"]
        out.update(self.extra)
        return out

    def to_bytes(self) -> bytes:
        """scores.json's bytes (lone surrogates of model output become valid ``\\udxxx`` escapes)."""
        return (json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n").encode("utf-8", "backslashreplace")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ScoresDocument":
        """The document of a parsed scores.json (KeyError/TypeError when it is not one)."""
        known = {f.name for f in fields(cls)}
        summaries = {k: {name: Summary(**s) for name, s in data[k].items()} for k in ("by_task", "by_language", "by_length")}
        return cls(
            **{k: data[k] for k in ("mode", "truncation", "complete", "errors")},
            options=ScoringOptions.from_json(data["options"]), coverage=Coverage(**data["coverage"]),
            null_predictions=NullPredictions.from_json(data["null_predictions"]),
            finish_reason_length=FinishReasonLength.from_json(data["finish_reason_length"]),
            overall=Summary(**data["overall"]), groups=[ConfigScore(**g) for g in data["groups"]], **summaries,
            paper_overall=Summary(**data["paper_overall"]) if data.get("paper_overall") else None,
            disagreements=data.get("disagreements"), intervals=data.get("intervals"),
            sample_size=SampleSize(**data["sample_size"]) if data.get("sample_size") else None,
            dataset=DatasetIdentity(**data["dataset"]) if data.get("dataset") else None,
            ruler_table=[RulerRow.from_json(r) for r in data["ruler_table"]] if "ruler_table" in data else None,
            extra={k: v for k, v in data.items() if k not in known},
        )

    @property
    def run(self) -> RunMeta | None:
        """The run's meta copied into scores.json, as its record (None: no run meta)."""
        return copied_meta(self.extra.get("run"))

    @property
    def model(self) -> str | None:
        """The model the run's meta names (None: no run meta)."""
        return self.run.model if self.run is not None else None

    def manifest_sha256(self) -> str | None:
        """The identity of the rows scored: the dataset's manifest sha256 from scoring time, else the run's meta."""
        if self.dataset is not None and self.dataset.manifest_sha256:
            return self.dataset.manifest_sha256
        return self.run.dataset_field("manifest_sha256") if self.run is not None else None


_LEFT_OUT_WHEN_NONE = ("categories", "graded")  # fields written only when set (a config's line has no categories)


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "__dataclass_fields__"):  # shallow, field by field (asdict deep-copies every value)
        items = ((f.name, getattr(value, f.name)) for f in fields(value))
        return {k: _plain(v) for k, v in items if not (k in _LEFT_OUT_WHEN_NONE and v is None)}
    return value


def read_scores(folder: Path) -> ScoresDocument:
    """The scores.json of a report folder; one error naming the folder when it is absent or not one."""
    path = Path(folder) / "scores.json"
    if not path.is_file():
        raise OneRulerError(f"{folder}: no scores.json; give report folders written by `oneruler score` or `run --report`")
    try:
        return ScoresDocument.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise OneRulerError(f"{folder}: unreadable scores.json ({type(exc).__name__}: {exc})") from None
