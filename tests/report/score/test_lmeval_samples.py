"""`oneruler score` input: lines of lm-eval's ``--log_samples`` files (``samples_<task>_<date>.jsonl``).

The lines below have the shape lm-eval 0.4 writes (``evaluator.py`` + ``EvaluationTracker``);
tests/lmeval/test_harness.py scores files written by a real lm-eval run.
"""

from __future__ import annotations

import json

import pytest
from report_fixtures import make_row, run_cli, write_export

from builders.base.errors import OneRulerError
from builders.report.score.predictions import Prediction, read_predictions


def sample(ident: str | None, response, acc=1.0, doc_id: int = 0) -> dict:
    doc = {"config": "en_s_niah_8k", "task": "s_niah", "input": "long prompt", "answers": ["4817290"]}
    if ident is not None:
        doc["id"] = ident
    return {"doc_id": doc_id, "doc": doc, "target": "4817290",
            "arguments": {"gen_args_0": {"arg_0": "long prompt", "arg_1": {"max_gen_toks": 30, "until": []}}},
            "resps": [[str(response)]], "filtered_resps": [response] if response is not None else [],
            "filter": "none", "metrics": ["acc"], "doc_hash": "ab", "prompt_hash": "cd", "target_hash": "ef",
            "acc": acc}


def write(tmp_path, lines) -> object:
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def test_samples_become_predictions_of_their_rows(tmp_path):
    path = write(tmp_path, [
        sample("en_s_niah_8k/0", "<Answer> 4817290 </Answer>"),
        sample("en_s_niah_8k/1", "", acc=0.0, doc_id=1),
        {"id": "en_s_niah_8k/2", "prediction": "plain line", "finish_reason": "length"},  # formats may mix
    ])
    assert read_predictions(path) == {
        "en_s_niah_8k/0": Prediction("en_s_niah_8k/0", "<Answer> 4817290 </Answer>", None, 1),
        "en_s_niah_8k/1": Prediction("en_s_niah_8k/1", "", None, 2),
        "en_s_niah_8k/2": Prediction("en_s_niah_8k/2", "plain line", "length", 3),
    }


def test_a_response_the_task_left_out_is_no_response(tmp_path):
    # the oneruler tasks log acc null exactly for a null content (lm-eval logs its placeholder text)
    path = write(tmp_path, [sample("en_s_niah_8k/0", "<no response>", acc=None)])
    assert read_predictions(path)["en_s_niah_8k/0"].prediction is None


def test_nested_responses_of_repeated_generations_take_the_first(tmp_path):
    line = sample("en_s_niah_8k/0", None) | {"filtered_resps": [["first", "second"]]}
    assert read_predictions(write(tmp_path, [line]))["en_s_niah_8k/0"].prediction == "first"


def test_bad_samples_are_named_by_line(tmp_path):
    path = write(tmp_path, [
        sample(None, "x"),                                     # not a oneruler task: no doc.id
        sample("en_s_niah_8k", "x"),                           # id without an index
        sample("en_s_niah_8k/0", None),                        # no response text at all
        sample("en_s_niah_8k/1", "ok"),
        sample("en_s_niah_8k/1", "again"),                     # the same row twice (two runs concatenated)
        sample("en_s_niah_8k/2", "x") | {"doc": "not a dict"},
    ])
    with pytest.raises(OneRulerError) as info:
        read_predictions(path)
    message = str(info.value)
    assert "5 problem(s)" in message
    assert "line 1: lm-eval sample (doc_id 0) has no string doc.id; only samples of the oneruler_* tasks" in message
    assert "line 2: id 'en_s_niah_8k' is not '{config}/{index}'" in message
    assert "line 3 (id 'en_s_niah_8k/0'): lm-eval sample's 'filtered_resps' must hold a string" in message
    assert "line 5: duplicate id 'en_s_niah_8k/1' (first on line 4)" in message
    assert "line 6: lm-eval sample (doc_id 0) has no string doc.id" in message


def test_a_report_of_samples_does_not_claim_zero_truncated_outputs(tmp_path):
    """lm-eval does not record finish_reason: the report says it is unknown instead of "finish_reason=length: 0"."""
    name = "en_s_niah_8k"
    rows = [make_row(name, i, "s_niah", "en", "en", 8000, ["4817290"], [("k", "4817290", 50)]) for i in range(2)]
    export = write_export(tmp_path / "export", {name: rows})
    path = write(tmp_path, [sample(f"{name}/0", "4817290"), sample(f"{name}/1", "123", acc=0.0, doc_id=1)])
    result = run_cli(["score", path, "--dataset", export, "--out", tmp_path / "report"])
    assert result.exit_code == 0, result.output
    assert "finish_reason=length" not in result.output
    assert "finish_reason: not recorded for any of the 2 outputs" in result.output
    scores = json.loads((tmp_path / "report" / "scores.json").read_text(encoding="utf-8"))
    assert scores["finish_reason_length"] == {"count": 0, "by_family": {"niah": 0}, "unknown": 2}
