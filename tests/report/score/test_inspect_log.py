"""`oneruler score` input: Inspect AI logs (``.eval``, ``.json``) read as predictions (report/score/inspect_log.py).

The logs are written by Inspect itself, by a real ``inspect_ai.eval`` of a small task whose solver
records a chosen output per sample (text, reasoning, stop reason) or fails, so no model is asked;
tests/inspect_eval/test_inspect_task.py scores logs of the ONERULER task run against a server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ContentReasoning, ContentText, ModelOutput
from inspect_ai.solver import solver
from report_fixtures import make_row, run_cli, write_export

from builders.base.errors import OneRulerError
from builders.report.score.predictions import Prediction, read_predictions

# Sample id → (reasoning, text, stop reason); None: the solver fails on it.
OUTPUTS = {
    "en_s_niah_8k/0": (None, "4817290", "stop"),
    "en_s_niah_8k/1": ("is it 1111111?", "4817290", "stop"),
    "en_s_niah_8k/2": (None, "48", "max_tokens"),
    "en_cwe_easy_8k/0": (None, "alpha beta", "max_tokens"),
    "en_cwe_easy_8k/1": None,
}


@solver
def recorded_output():
    """Sets the output chosen in OUTPUTS (a stand-in for a model: the reader only sees what Inspect logged)."""

    async def solve(state, generate):
        chosen = OUTPUTS[state.sample_id]
        if chosen is None:
            raise RuntimeError("the server went away")
        reasoning, text, stop = chosen
        content = ([ContentReasoning(reasoning=reasoning)] if reasoning else []) + [ContentText(text=text)]
        message = ChatMessageAssistant(content=content, model="test-model")
        state.output = ModelOutput(model="test-model", choices=[ChatCompletionChoice(message=message, stop_reason=stop)])
        state.messages.append(message)
        return state

    return solve


def write_log(tmp_path, ids=tuple(OUTPUTS), **kwargs):
    task = Task(dataset=[Sample(id=i, input="prompt") for i in ids], solver=recorded_output())
    (log,) = inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path / "logs"), display="none",
                          fail_on_error=False, **kwargs)
    (path,) = (tmp_path / "logs").glob(f"*.{kwargs.get('log_format', 'eval')}")
    return path


EXPECTED = {
    "en_s_niah_8k/0": ("4817290", "stop", "ok"),
    "en_s_niah_8k/1": ("4817290", "stop", "ok"),  # the reasoning is not the answer
    "en_s_niah_8k/2": ("48", "length", "ok"),
    "en_cwe_easy_8k/0": ("alpha beta", "length", "ok"),
    "en_cwe_easy_8k/1": (None, None, "failed"),
}


@pytest.mark.parametrize("log_format", ["eval", "json"])
def test_each_sample_is_the_prediction_of_its_row(tmp_path, log_format):
    predictions = read_predictions(write_log(tmp_path, log_format=log_format))
    assert {i: (p.prediction, p.finish_reason, p.status) for i, p in predictions.items()} == EXPECTED
    assert all(isinstance(p, Prediction) for p in predictions.values())


def test_oneruler_score_reads_an_inspect_log(tmp_path):
    niah = [make_row("en_s_niah_8k", i, "s_niah", "en", "en", 8000, ["4817290"], [("key", "4817290", 50, 50.0)])
            for i in range(3)]
    words = ["alpha", "beta"] + [f"w{i}" for i in range(8)]
    cwe = [make_row("en_cwe_easy_8k", i, "cwe_easy", "en", "en", 8000, words) for i in range(3)]
    export = write_export(tmp_path / "export", {"en_s_niah_8k": niah, "en_cwe_easy_8k": cwe})
    result = run_cli(["score", str(write_log(tmp_path)), "--dataset", str(export), "--out", str(tmp_path / "report"),
                      "--allow-partial"])
    assert result.exit_code == 0, result.output
    scores = json.loads((tmp_path / "report" / "scores.json").read_text(encoding="utf-8"))
    by_config = {g["config"]: (g["passed"], g["counted"]) for g in scores["groups"]}
    # NIAH: two right, the cut one dropped; CWE: the cut answer wrong, the failed sample out, row 2 never run
    assert by_config == {"en_s_niah_8k": (2, 2), "en_cwe_easy_8k": (0, 1)}
    assert scores["complete"] is False


def test_a_log_with_several_epochs_is_refused(tmp_path):
    path = write_log(tmp_path, ids=["en_s_niah_8k/0"], epochs=2)
    with pytest.raises(OneRulerError, match="holds 2 epochs of each sample; .* run the task with --epochs 1"):
        read_predictions(path)


def test_samples_that_are_not_rows_are_named(tmp_path):
    OUTPUTS.update({"question-7": (None, "x", "stop"), "q/x": (None, "y", "stop")})
    try:
        path = write_log(tmp_path, ids=["en_s_niah_8k/0", "question-7", "q/x"])
    finally:
        del OUTPUTS["question-7"], OUTPUTS["q/x"]
    with pytest.raises(OneRulerError) as caught:
        read_predictions(path)
    assert "2 problem(s)" in str(caught.value)
    assert "id 'question-7' is not a ONERULER row id ('{config}/{index}'); only logs of the oneruler/oneruler" \
           in str(caught.value) and "'q/x'" in str(caught.value)


def test_files_that_are_not_inspect_logs(tmp_path):
    broken = tmp_path / "run.eval"
    broken.write_bytes(b"not a zip archive")
    with pytest.raises(OneRulerError, match=f"^cannot read Inspect log {broken}: "):
        read_predictions(broken)
    lines = tmp_path / "preds.json"  # JSON lines named .json: a predictions file, not an Inspect log
    lines.write_text(json.dumps({"id": "en_s_niah_8k/0", "prediction": "4817290"}) + "\n", encoding="utf-8")
    assert read_predictions(lines)["en_s_niah_8k/0"].prediction == "4817290"


def test_without_inspect_the_log_names_the_extra(tmp_path, monkeypatch):
    path = write_log(tmp_path, ids=["en_s_niah_8k/0"])
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # as if inspect-ai were not installed
    with pytest.raises(OneRulerError, match=r"is an Inspect log; reading it needs inspect-ai \(pip install "
                                            r"'oneruler\[inspect\]'\)"):
        read_predictions(path)


def test_a_log_of_a_hub_dataset_is_scored_at_the_commit_it_read(tmp_path, source_cache):
    """The task records the Hub commit it read (``eval.metadata["dataset"]``); ``score`` reads the rows there, not at
    main's head: two exports pushed to one repo of the loopback Hub stand-in (tests/hub_server.py), seeds 1 then 2
    (other values), and a log whose answers are the first export's values scores 100 %."""
    import secrets

    import pyarrow.parquet as pq
    from hub_client import client_env, oneruler
    from hub_server import running_hub

    from builders.export.build import build_dataset
    from builders.export.request import BuildRequest
    from builders.report.score.inspect_log import logged_dataset

    token, repo = "hf_" + secrets.token_hex(16), "my-org/pinned"
    exports = [tmp_path / f"seed{seed}" for seed in (1, 2)]
    for seed, export in zip((1, 2), exports):
        build_dataset(BuildRequest(["en_s_niah_8k"], export, samples=2, seed=seed, cache_dir=str(source_cache),
                                   progress=False))
    first = {r["id"]: r["answers"][0] for r in pq.read_table(next(exports[0].glob("data/*/*.parquet"))).to_pylist()}
    with running_hub(token) as (endpoint, state):
        env = client_env(endpoint, tmp_path, token)
        assert oneruler(["push", str(exports[0]), "--repo-id", repo], env, tmp_path).returncode == 0
        commit = state.head("dataset", repo)
        assert oneruler(["push", str(exports[1]), "--repo-id", repo], env, tmp_path).returncode == 0
        assert state.head("dataset", repo) != commit
        saved = dict(OUTPUTS)
        OUTPUTS.update({i: (None, value, "stop") for i, value in first.items()})
        try:
            log = write_log(tmp_path, ids=sorted(first), metadata={"dataset": {"name": repo, "revision": commit}})
        finally:  # the same ids as the module's own outputs: put those back
            OUTPUTS.clear()
            OUTPUTS.update(saved)
        assert logged_dataset(log).revision == commit
        scored = oneruler(["score", str(log), "--dataset", repo, "--out", str(tmp_path / "report")], env, tmp_path)
    assert scored.returncode == 0, scored.stderr[-3000:]
    scores = json.loads((tmp_path / "report" / "scores.json").read_text(encoding="utf-8"))
    assert scores["dataset"]["revision"] == commit and scores["overall"]["accuracy"] == 1.0
    assert logged_dataset(tmp_path / "report" / "scores.json") is None  # not a log: nothing recorded


def edited_json_log(tmp_path, name: str, edit) -> Path:
    """A JSON log Inspect wrote, with ``edit(document)`` applied (what a hand or another tool did to it)."""
    source = write_log(tmp_path / name, log_format="json")
    document = json.loads(source.read_text(encoding="utf-8"))
    edit(document)
    target = tmp_path / f"{name}.json"
    target.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return target


def test_a_one_line_json_log_is_a_log(tmp_path):  # issue 36, case 11
    pretty = write_log(tmp_path, log_format="json")
    one_line = tmp_path / "one-line.json"
    one_line.write_text(json.dumps(json.loads(pretty.read_text(encoding="utf-8"))), encoding="utf-8")
    predictions = read_predictions(one_line)
    assert {i: (p.prediction, p.finish_reason, p.status) for i, p in predictions.items()} == EXPECTED


def test_duplicate_or_edited_sample_ids_are_refused(tmp_path):  # issue 36, cases 11, 12
    def duplicate(document):
        document["samples"][1]["id"] = document["samples"][0]["id"]

    with pytest.raises(OneRulerError, match=r"1 problem\(s\) in .*:\n  sample id '[^']+' is listed by the "
                                            r"log but has no sample of its own \(was the log edited\?\)"):
        read_predictions(edited_json_log(tmp_path, "dup", duplicate))

    def renamed(document):
        for sample in document["samples"]:
            sample["id"] = sample["id"].replace("en_", "xx_")

    with pytest.raises(OneRulerError, match=r"5 problem\(s\) in .*:\n  sample id '[^']+' is listed by the log but "
                                            r"has no sample of its own"):
        read_predictions(edited_json_log(tmp_path, "renamed", renamed))

    def renamed_unfinished(document):
        renamed(document)
        document["status"] = "cancelled"

    with pytest.raises(OneRulerError, match=r"lists 5 sample\(s\) but none can be read: their ids do not match the "
                                            r"log's own summaries \(was the log edited\?\)"):
        read_predictions(edited_json_log(tmp_path, "renamed-cancelled", renamed_unfinished))


def test_the_run_a_log_records_reaches_the_report_and_an_unfinished_log_is_partial(tmp_path):  # issue 36, case 12
    from builders.report.hub_results.eval_results import run_date
    from builders.report.hub_results.notes import generation_note
    from builders.report.score.inspect_log import logged_run

    def with_max_tokens(document):
        document["eval"]["task_args"] = {"max_tokens": 300}

    log = edited_json_log(tmp_path, "limited", with_max_tokens)
    run = logged_run(log)
    assert generation_note(run) == "generation max_tokens=300 (the paper: greedy, at most the row's reserve of new tokens)"
    assert run_date(run) is not None and run.model == "mockllm/model"
    niah = [make_row("en_s_niah_8k", i, "s_niah", "en", "en", 8000, ["4817290"], [("key", "4817290", 50, 50.0)])
            for i in range(3)]
    cwe = [make_row("en_cwe_easy_8k", i, "cwe_easy", "en", "en", 8000, ["alpha"] * 10) for i in range(3)]
    export = write_export(tmp_path / "export", {"en_s_niah_8k": niah, "en_cwe_easy_8k": cwe})
    scored = run_cli(["score", str(log), "--dataset", str(export), "--out", str(tmp_path / "r1"), "--allow-partial"])
    assert scored.exit_code == 0, scored.output
    recorded = json.loads((tmp_path / "r1" / "scores.json").read_text(encoding="utf-8"))["run"]
    assert recorded["sampling"]["max_tokens"] == 300 and recorded["ended_at"] == run.ended_at

    def cancelled(document):
        document["status"] = "cancelled"

    stopped = edited_json_log(tmp_path, "stopped", cancelled)
    refused = run_cli(["score", str(stopped), "--dataset", str(export), "--out", str(tmp_path / "r2")])
    assert refused.exit_code == 1 and "the Inspect log's status is 'cancelled', not 'success': its run did not " \
                                      "finish" in refused.output and "pass --allow-partial" in refused.output
    allowed = run_cli(["score", str(stopped), "--dataset", str(export), "--out", str(tmp_path / "r3"),
                       "--allow-partial"])
    assert allowed.exit_code == 0 and "note: " in allowed.output and "status is 'cancelled'" in allowed.output
