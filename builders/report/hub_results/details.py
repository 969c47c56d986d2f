"""``details.parquet``: one row per prediction of a report, what a leaderboard's number is made of.

``oneruler score`` writes it beside the report's other files (it alone has the predictions and the
dataset rows at hand); ``oneruler publish --details ORG/NAME`` publishes it as a dataset split by
length. Columns (``DETAILS_SCHEMA``): the row (``id``, ``config``, ``language``, ``task``, ``length``,
``tokenizer``), where its needles were (``needle_depth``: nominal, % of the haystack;
``needle_actual_depth``: % of its sentences; ``needle_token_depth``: % of its tokens, null where the
dataset does not record it; empty for CWE), ``gold``, ``prediction``, how it was produced
(``reasoning_chars``: the length of the reasoning the server split off, ``reasoning_tokens``,
``finish_reason``, ``prompt_tokens``, ``completion_tokens``: null where the predictions file does
not record them), and how it scored in the paper's mode: ``correct`` (full credit: passed a pass/fail rule,
or every reference found under a graded one), ``counted`` (in the accuracy's denominator), ``error_category``,
``recall`` (the share of the gold answers found) and ``score`` (the row's credit in its family's rule, what the
accuracy averages: the graded fraction for RULER's rows, ``string_match_all``'s share of references found or
``string_match_part``'s 1/0; 1.0 or 0.0 for ONERULER's pass/fail rows; null for a row not counted, as lm-eval's
and Inspect's per-row values leave it out; ``scoring.ExampleScore.score``). A RULER row with two of its four
values found has ``score`` 0.5 and ``correct`` False.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from ...base.errors import OneRulerError
from ...scoring import ExampleScore
from ..score.prediction import Prediction
from ..score.records import Record

DETAILS_FILE = "details.parquet"
DETAILS_SCHEMA = pa.schema([
    ("id", pa.string()), ("config", pa.string()), ("language", pa.string()), ("task", pa.string()),
    ("length", pa.int64()), ("tokenizer", pa.string()),
    ("needle_depth", pa.list_(pa.float64())), ("needle_actual_depth", pa.list_(pa.float64())),
    ("needle_token_depth", pa.list_(pa.float64())),
    ("gold", pa.list_(pa.string())), ("prediction", pa.string()),
    ("reasoning_chars", pa.int64()), ("reasoning_tokens", pa.int64()), ("finish_reason", pa.string()),
    ("prompt_tokens", pa.int64()), ("completion_tokens", pa.int64()),
    ("correct", pa.bool_()), ("counted", pa.bool_()), ("error_category", pa.string()), ("recall", pa.float64()),
    ("score", pa.float64()),
])


def _count(usage: dict | None, key: str) -> int | None:
    value = (usage or {}).get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _valid_text(text: str | None) -> str | None:
    """Model output as valid UTF-8: a lone surrogate becomes its ``\\udxxx`` escape (as in scores.json)."""
    return None if text is None else text.encode("utf-8", "backslashreplace").decode("utf-8")


def _depths(needles: Sequence[dict] | None, key: str) -> list[float | None]:
    return [None if n.get(key) is None else float(n[key]) for n in needles or ()]


def row_score(score: ExampleScore) -> float | None:
    """A row's credit in its family's rule (``ExampleScore.score``), None when it is not counted."""
    return float(score.score) if score.counted else None


def details_row(record: Record, prediction: Prediction, row: dict[str, Any]) -> dict[str, Any]:
    """One prediction's row of details.parquet."""
    needles, usage, score = row.get("needles"), prediction.usage, record.paper
    return {"id": record.id, "config": record.config, "language": record.language, "task": record.task,
            "length": record.length, "tokenizer": record.tokenizer,
            "needle_depth": _depths(needles, "depth"), "needle_actual_depth": _depths(needles, "actual_depth"),
            "needle_token_depth": _depths(needles, "token_depth"), "gold": [str(a) for a in row["answers"]],
            "prediction": _valid_text(record.prediction), "reasoning_chars": prediction.reasoning_chars,
            "reasoning_tokens": _count(usage, "reasoning_tokens"), "finish_reason": _valid_text(record.finish_reason),
            "prompt_tokens": _count(usage, "prompt_tokens"), "completion_tokens": _count(usage, "completion_tokens"),
            "correct": bool(score.passed), "counted": bool(score.counted), "error_category": score.category,
            "recall": float(score.recall), "score": row_score(score)}


def details_table(records: Sequence[Record], predictions: dict[str, Prediction], rows: dict[str, dict]) -> pa.Table:
    """One row per record with a prediction line, in the records' order (config, then index)."""
    lines = [details_row(r, predictions[r.id], rows[r.id]) for r in records if not r.no_line and r.id in predictions]
    return pa.Table.from_pylist(lines, schema=DETAILS_SCHEMA)


def parquet_bytes(table: pa.Table) -> bytes:
    """A table as zstd Parquet bytes (the same table gives the same bytes)."""
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd")
    return buffer.getvalue()


def read_details(folder: Path) -> pa.Table:
    """The details.parquet of a report folder; one error naming the folder when it is absent or unreadable."""
    path = Path(folder) / DETAILS_FILE
    if not path.is_file():
        raise OneRulerError(f"{folder}: no {DETAILS_FILE}; rescore the predictions with `oneruler score` "
                            f"(this version writes it)")
    try:
        return pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        raise OneRulerError(f"{path}: not a readable Parquet file ({exc})") from None
