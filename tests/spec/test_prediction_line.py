"""The predictions line: what run writes is what run and score read, and bad lines are named."""

from __future__ import annotations

import json

import pytest

from builders.spec.prediction_line import PredictionLine


def test_a_line_reads_back_as_written_key_order_kept():
    line = PredictionLine("pl_s_niah_8k/3", "1234567", "stop", "thinking…", {"prompt_tokens": 7950}, 1.5, None, "ok",
                          0.25)
    doc = line.to_json()
    assert list(doc) == ["id", "prediction", "finish_reason", "reasoning", "usage", "latency_s", "error", "status",
                         "wait_s"]
    assert PredictionLine.from_json(json.loads(json.dumps(doc)), 1) == line
    assert "wait_s" not in PredictionLine("a_s_niah_8k/0", None).to_json()  # only streamed rows have it


def test_other_writers_lines_take_defaults_and_unknown_statuses_only_leniently():
    plain = {"id": "en_s_niah_8k/0", "prediction": "x"}
    assert PredictionLine.from_json(plain, 1).status == "ok"
    assert PredictionLine.from_json(plain, 1, lenient=True).status is None
    odd = dict(plain, status="maybe")
    assert PredictionLine.from_json(odd, 1, lenient=True).status is None
    with pytest.raises(ValueError, match=r"line 4 \(id 'en_s_niah_8k/0'\): 'status' must be one of ok, failed, skipped"):
        PredictionLine.from_json(odd, 4)


@pytest.mark.parametrize("obj, message", [
    ([1], "line 2: expected a JSON object, got list"),
    ({"prediction": "x"}, "line 2: field 'id' must be a string"),
    ({"id": "no-index", "prediction": "x"}, "line 2: id 'no-index' is not '{config}/{index}'"),
    ({"id": "a_s_niah_8k/0"}, "missing field 'prediction'"),
    ({"id": "a_s_niah_8k/0", "prediction": 5}, "'prediction' must be a string or null, got int"),
    ({"id": "a_s_niah_8k/0", "prediction": "x", "finish_reason": 1}, "'finish_reason' must be a string or null"),
])
def test_bad_lines_are_named(obj, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("{", r"\{")
                       .replace("}", r"\}")):
        PredictionLine.from_json(obj, 2)


def test_outcome_leaves_timing_and_usage_aside():
    a = PredictionLine("a_s_niah_8k/0", "x", "stop", None, {"prompt_tokens": 1}, 1.0)
    b = PredictionLine("a_s_niah_8k/0", "x", "stop", None, {"prompt_tokens": 2}, 9.0)
    assert a.outcome == b.outcome and a.outcome != PredictionLine("a_s_niah_8k/0", "y", "stop").outcome
