"""Reading a predictions file: one JSON object per line with ``id`` and ``prediction``.

``{"id": "<config>/<index>", "prediction": "..." | null, "finish_reason": "stop" | "length" | null}``,
and ``status`` as `oneruler run` writes it; other fields are ignored. Every malformed line and duplicate id is reported at once.

Lines of lm-eval's ``--log_samples`` output (``samples_<task>_<date>.jsonl``: ``doc_id``, ``doc``,
``filtered_resps``, ...) are recognised per line, so such files, concatenated, score as they are:
the row id is ``doc["id"]``, the prediction the first filtered response, ``finish_reason`` unknown.

An Inspect AI log of the ONERULER task (``.eval``, or a ``.json`` log) is read by ``inspect_log.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...base.errors import OneRulerError, problems_error
from ...spec.ids import check_id, config_of
from ...spec.prediction_line import UNSCORED_STATUSES, PredictionLine
from .inspect_log import is_inspect_log, read_inspect_log
from .prediction import Prediction
from .sniff import EXPECTED, what_it_is

LM_EVAL_SAMPLE_KEYS = ("doc_id", "doc", "filtered_resps")


def is_lm_eval_sample(obj: dict) -> bool:
    """A line of lm-eval's ``--log_samples`` output (it has ``doc_id``, ``doc`` and ``filtered_resps``)."""
    return all(key in obj for key in LM_EVAL_SAMPLE_KEYS)


def parse_lm_eval_sample(obj: dict, number: int) -> Prediction:
    """One lm-eval sample as a prediction of the row ``doc["id"]``; ValueError naming the line."""
    doc = obj["doc"]
    ident = doc.get("id") if isinstance(doc, dict) else None
    if not isinstance(ident, str):
        raise ValueError(f"line {number}: lm-eval sample (doc_id {obj['doc_id']!r}) has no string doc.id; "
                         f"only samples of the oneruler_* tasks can be scored")
    check_id(ident, number)
    resps = obj["filtered_resps"]
    text = resps[0] if isinstance(resps, list) and resps else None
    if isinstance(text, list):  # a task with repeats: the first generation
        text = text[0] if text else None
    if not isinstance(text, str):
        raise ValueError(f"line {number} (id {ident!r}): lm-eval sample's 'filtered_resps' must hold a string, "
                         f"got {resps!r:.80}")
    # The oneruler tasks log acc null exactly for a response that had no content (the paper drops
    # it); lm-eval logs such a response as a placeholder text.
    if "acc" in obj and obj["acc"] is None:
        text = None
    return Prediction(ident, text, None, number)


def parse_line(raw: bytes, number: int) -> Prediction:
    """One predictions line; ValueError naming the line and the problem."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"line {number}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {number}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    if isinstance(obj, dict) and is_lm_eval_sample(obj):
        return parse_lm_eval_sample(obj, number)
    line = PredictionLine.from_json(obj, number, lenient=True)
    reasoning = len(line.reasoning) if isinstance(line.reasoning, str) else None
    return Prediction(line.id, line.prediction, line.finish_reason, number, line.status, reasoning, line.usage)


def read_predictions(path: Path) -> dict[str, Prediction]:
    """Parse a predictions JSONL file; every malformed line or duplicate id is reported at once."""
    path = Path(path)
    if not path.is_file():
        raise OneRulerError(f"predictions file not found: {path}")
    said = what_it_is(path)
    if said is not None:
        raise OneRulerError(f"{path} is {said}; {EXPECTED}")
    if is_inspect_log(path):
        return read_inspect_log(path)
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
    if problems and not predictions:  # not one line read: the file is something else, said once
        raise OneRulerError(f"{path} is not a predictions file: none of its {len(problems)} non-empty line(s) is one "
                            f"({problems[0]}); {EXPECTED}")
    if problems:
        raise problems_error(problems, f"problem(s) in {path}")
    if not predictions:
        raise OneRulerError(f"no predictions in {path}")
    return predictions


def unscored(predictions: dict[str, Prediction]) -> dict[str, str]:
    """Id → status of the lines that hold no model output (`oneruler run`'s ``failed`` and ``skipped``)."""
    return {i: p.status for i, p in predictions.items() if p.status in UNSCORED_STATUSES}


def first_per_config(predictions: dict[str, Prediction]) -> dict[str, Prediction]:
    """Config name → the first prediction that refers to it (for messages naming a line)."""
    configs: dict[str, Prediction] = {}
    for pred in predictions.values():
        configs.setdefault(config_of(pred.id), pred)
    return configs
