"""Reading a predictions file: one JSON object per line with ``id`` and ``prediction``.

``{"id": "<config>/<index>", "prediction": "..." | null, "finish_reason": "stop" | "length" | null}``;
other fields are ignored. Every malformed line and duplicate id is reported at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import OneRulerError, problems_error


@dataclass
class Prediction:
    """One line of the predictions file."""

    id: str
    prediction: str | None
    finish_reason: str | None
    line: int


def config_of(ident: str) -> str:
    """The config part of a row id (``pl_s_niah_8k/3`` → ``pl_s_niah_8k``)."""
    return ident.rpartition("/")[0]


def parse_line(raw: bytes, number: int) -> Prediction:
    """One predictions line; ValueError naming the line and the problem."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"line {number}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {number}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise ValueError(f"line {number}: expected a JSON object, got {type(obj).__name__}")
    ident = obj.get("id")
    if not isinstance(ident, str):
        raise ValueError(f"line {number}: field 'id' must be a string like 'en_s_niah_8k/0', got {ident!r}")
    config, _, index = ident.rpartition("/")
    if not config or not index.isdigit():
        raise ValueError(f"line {number}: id {ident!r} is not '{{config}}/{{index}}'")
    if "prediction" not in obj:
        raise ValueError(f"line {number} (id {ident!r}): missing field 'prediction' (null means no response)")
    text = obj["prediction"]
    if text is not None and not isinstance(text, str):
        raise ValueError(f"line {number} (id {ident!r}): 'prediction' must be a string or null, "
                         f"got {type(text).__name__}")
    reason = obj.get("finish_reason")
    if reason is not None and not isinstance(reason, str):
        raise ValueError(f"line {number} (id {ident!r}): 'finish_reason' must be a string or null")
    return Prediction(ident, text, reason, number)


def read_predictions(path: Path) -> dict[str, Prediction]:
    """Parse a predictions JSONL file; every malformed line or duplicate id is reported at once."""
    path = Path(path)
    if not path.is_file():
        raise OneRulerError(f"predictions file not found: {path}")
    predictions: dict[str, Prediction] = {}
    problems: list[str] = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                pred = parse_line(raw, number)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            first = predictions.get(pred.id)
            if first is not None:
                problems.append(f"line {number}: duplicate id {pred.id!r} (first on line {first.line})")
                continue
            predictions[pred.id] = pred
    if problems:
        raise problems_error(problems, f"problem(s) in {path}")
    if not predictions:
        raise OneRulerError(f"no predictions in {path}")
    return predictions


def first_per_config(predictions: dict[str, Prediction]) -> dict[str, Prediction]:
    """Config name → the first prediction that refers to it (for messages naming a line)."""
    configs: dict[str, Prediction] = {}
    for pred in predictions.values():
        configs.setdefault(config_of(pred.id), pred)
    return configs
