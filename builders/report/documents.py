"""The records of a report folder, each with one writer and one reader: ``scores.json``
(``ScoresDocument``) and the lines of ``examples.jsonl`` (``example_line`` / ``record_of_line``).

``oneruler score`` writes them (``render.write_report``); ``oneruler compare`` reads them back
(``read_scores``, ``read_examples``). Accuracies and interval bounds are fractions (0–1). Fields
added after a report was written (intervals, dataset identity) read as None from older folders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from ..base.errors import OneRulerError
from ..scoring import core as scoring
from ..spec.ids import config_of, id_order
from ..dataset.source import DatasetIdentity
from .records import Record

Mode = Literal["paper", "strict"]


@dataclass
class Counts:
    """``scoring.summarize`` of some examples: accuracy and recall (None: nothing counted) and the counts."""

    accuracy: float | None
    recall: float | None
    passed: int
    counted: int
    dropped: int
    total: int
    no_response: int
    truncated: int


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

    def csv_header(self, strict: bool) -> list[str]:
        """scores.csv's columns (``paper_accuracy`` only in strict reports)."""
        names = [f.name for f in fields(self) if f.name != "ci" and (strict or f.name != "paper_accuracy")]
        return names[:names.index("empty_reason")] + ["ci_low", "ci_high", "empty_reason"]

    def csv_row(self, strict: bool) -> list[Any]:
        """The values of ``csv_header``."""
        values = {**vars(self), "ci_low": self.ci[0] if self.ci else None, "ci_high": self.ci[1] if self.ci else None}
        return [values[name] for name in self.csv_header(strict)]


@dataclass
class ScoresDocument:
    """The content of scores.json, in the order written."""

    mode: Mode
    truncation: scoring.TruncationPolicy
    options: dict[str, Any]
    complete: bool
    coverage: dict[str, Any]  # rows, predicted, missing_lines, partial_configs
    overall: Summary
    null_predictions: dict[str, int]
    finish_reason_length: dict[str, int]  # count, niah, cwe, unknown (lines that record no finish_reason)
    by_task: dict[str, Summary]
    by_language: dict[str, Summary]
    by_length: dict[str, Summary]
    groups: list[ConfigScore]
    errors: dict[str, dict[str, int]]
    paper_overall: Summary | None = None  # strict reports only
    disagreements: dict[str, Any] | None = None  # strict reports only
    intervals: dict[str, str] | None = None  # method per kind of accuracy
    sample_size: dict[str, Any] | None = None
    dataset: DatasetIdentity | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. "run" (the run's meta), "unscored_lines"

    def to_dict(self) -> dict[str, Any]:
        """The JSON object (optional parts left out when absent; ``extra`` merged at the top level)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "extra" or (value is None and f.default is None):
                continue
            out[f.name] = _plain(value)
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
            **{k: data[k] for k in ("mode", "truncation", "options", "complete", "coverage", "null_predictions",
                                    "finish_reason_length", "errors")},
            overall=Summary(**data["overall"]), groups=[ConfigScore(**g) for g in data["groups"]], **summaries,
            paper_overall=Summary(**data["paper_overall"]) if data.get("paper_overall") else None,
            disagreements=data.get("disagreements"), intervals=data.get("intervals"),
            sample_size=data.get("sample_size"),
            dataset=DatasetIdentity(**data["dataset"]) if data.get("dataset") else None,
            extra={k: v for k, v in data.items() if k not in known},
        )

    @property
    def model(self) -> str | None:
        """The model the run's meta names (None: no run meta)."""
        run = self.extra.get("run")
        return run.get("model") if isinstance(run, dict) else None

    def manifest_sha256(self) -> str | None:
        """The identity of the rows scored: the dataset's manifest sha256 from scoring time, else the run's meta."""
        if self.dataset is not None and self.dataset.manifest_sha256:
            return self.dataset.manifest_sha256
        run = self.extra.get("run")
        sent = run.get("dataset") if isinstance(run, dict) else None
        return sent.get("manifest_sha256") if isinstance(sent, dict) else None


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "__dataclass_fields__"):  # shallow, field by field (asdict deep-copies every value)
        items = ((f.name, getattr(value, f.name)) for f in fields(value))
        return {k: _plain(v) for k, v in items if not (k == "categories" and v is None)}
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


def example_line(record: Record, strict: bool) -> str:
    """One line of examples.jsonl (``needle_hits`` only for rows with needles scored by depth)."""
    line = {"id": record.id, "task": record.task, "language": record.language, "length": record.length,
            "tokenizer": record.tokenizer, "finish_reason": record.finish_reason, **record.score.to_dict()}
    if strict:
        line["paper_passed"] = record.paper.passed
    if record.needle_hits:
        line["needle_hits"] = [[depth, int(hit)] for depth, hit in record.needle_hits]
    return json.dumps(line) + "\n"


def record_of_line(line: dict[str, Any]) -> Record:
    """The record an examples.jsonl line was written from (without the prediction text)."""
    score = scoring.ExampleScore(line["passed"], line["recall"], line["category"], line["counted"], line["status"])
    paper = score if "paper_passed" not in line else scoring.ExampleScore(
        line["paper_passed"], line["recall"], line["category"], line["counted"], line["status"])
    hits = tuple((float(d), bool(h)) for d, h in line.get("needle_hits", ()))
    return Record(line["id"], config_of(line["id"]), line["task"], line["language"], line["length"],
                  line.get("tokenizer", ""), None, line["finish_reason"], score, paper,
                  no_line=line["status"] == "missing", index=id_order(line["id"])[1], needle_hits=hits)


def read_examples(folder: Path) -> list[Record]:
    """The records of a report folder's examples.jsonl; one error naming the folder and line otherwise."""
    path = Path(folder) / "examples.jsonl"
    if not path.is_file():
        raise OneRulerError(f"{folder}: no examples.jsonl; rescore the predictions with `oneruler score`")
    records = []
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            if not text.strip():
                continue
            try:
                records.append(record_of_line(json.loads(text)))
            except (ValueError, KeyError, TypeError) as exc:
                raise OneRulerError(f"{path}: line {number} is not an example line "
                                    f"({type(exc).__name__}: {exc})") from None
    return records
