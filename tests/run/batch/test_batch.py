"""Batch request files and ``oneruler ingest``: the requests ``run`` would send, answered in the batch output
format (batch_api.run_batch stands in for ``vllm run-batch``; the Batch API endpoints of the loopback server
for OpenAI's), ingested into predictions that score exactly like ``run`` against the same answers."""

from __future__ import annotations

import json

from batch_api import run_batch
from click.testing import CliRunner
from openai_server import Reply, ServerState, running_server
from run_fixtures import make_row, small_export, write_export

from builders.cli import cli

CONFIGS = ["en_s_niah_8k", "pl_cwe_easy_8k", "ko_mv_niah_8k"]
KEY = "sk-batch-test-never-print"


def invoke(args: list[str], key: str = ""):
    return CliRunner().invoke(cli, args, catch_exceptions=False, env={"OPENAI_API_KEY": key})


def scripted(rows: dict) -> ServerState:
    state = ServerState(max_model_len=16_000)
    state.default_reply = lambda row: Reply(" ".join(rows[row]["answers"]) if int(row.rsplit("/", 1)[1]) % 3
                                            else f"<think>hmm</think>{rows[row]['answers'][0]}")
    return state


def scores(preds, export, out) -> dict:
    result = invoke(["score", str(preds), "--dataset", str(export), "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    return {k: data[k] for k in ("overall", "groups", "errors")}


def test_requests_hold_exactly_what_run_sends_and_ingest_scores_like_run(tmp_path):
    export, rows = small_export(tmp_path / "export", CONFIGS, 5)
    requests = tmp_path / "requests.jsonl"
    with running_server(scripted(rows)) as server:
        live = invoke(["run", str(export), "--base-url", server.base_url, "--model", "test-model", "--out",
                       str(tmp_path / "live.jsonl"), "--quiet", "--preset", "deepseek-r1", "--extra-body", '{"top_k": 1}'])
        assert live.exit_code == 0, live.stderr
        sent = {r.row: r.body for r in server.state.requests("/v1/chat/completions")}
        made = invoke(["run", str(export), "--model", "test-model", "--batch-requests", str(requests),
                       "--preset", "deepseek-r1", "--extra-body", '{"top_k": 1}', "--batch-max-requests", "6", "--quiet"])
        assert made.exit_code == 0, made.stderr
        parts = sorted(tmp_path.glob("requests-*.jsonl"))
        assert [p.name for p in parts] == ["requests-001.jsonl", "requests-002.jsonl", "requests-003.jsonl"]
        lines = [json.loads(x) for p in parts for x in p.read_text().splitlines()]
        assert [len(p.read_text().splitlines()) for p in parts] == [6, 6, 3]
        assert {x["custom_id"] for x in lines} == set(rows)
        assert all(x["method"] == "POST" and x["url"] == "/v1/chat/completions" for x in lines)
        assert {x["custom_id"]: x["body"] for x in lines} == sent  # byte for byte the bodies run sent
        results = tmp_path / "results.jsonl"
        results.write_text("".join(run_batch(server.state, p.read_text()) for p in parts))
    ingested = invoke(["ingest", str(results), "--requests", str(requests), "--out", str(tmp_path / "batch.jsonl")])
    assert ingested.exit_code == 0, ingested.stderr
    live_lines = [json.loads(x) for x in (tmp_path / "live.jsonl").read_text().splitlines()]
    batch_lines = [json.loads(x) for x in (tmp_path / "batch.jsonl").read_text().splitlines()]
    assert [{**x, "latency_s": None} for x in live_lines] == batch_lines  # same fields, same values
    assert batch_lines[0]["reasoning"] == "hmm" and set(batch_lines[0]) == set(live_lines[0])
    assert scores(tmp_path / "batch.jsonl", export, tmp_path / "r-batch") == scores(tmp_path / "live.jsonl", export,
                                                                                   tmp_path / "r-live")
    meta = json.loads((tmp_path / "batch.meta.json").read_text())
    assert meta["model"] == "test-model" and meta["sampling"]["temperature"] == 0.6 and meta["dataset"]["manifest_sha256"]


def test_failed_duplicate_unknown_and_missing_results(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 4)
    requests = tmp_path / "req.jsonl"
    assert invoke(["run", str(export), "--model", "m", "--batch-requests", str(requests), "--quiet"]).exit_code == 0
    state = scripted(rows)
    state.model = "m"
    good = [json.loads(x) for x in run_batch(state, requests.read_text()).splitlines()]
    failed = {"id": "b1", "custom_id": "en_s_niah_8k/1", "response": {"status_code": 400, "request_id": "r", "body": None},
              "error": {"error": {"message": "context too long", "code": "context_length_exceeded"}}}
    first = tmp_path / "first.jsonl"
    first.write_text("".join(json.dumps(x) + "\n" for x in [good[0], failed]))
    out = tmp_path / "p.jsonl"
    partial = invoke(["ingest", str(first), "--requests", str(requests), "--out", str(out)])
    assert partial.exit_code == 1 and "2 row(s) of the selection have no line" in partial.stderr
    line = {json.loads(x)["id"]: json.loads(x) for x in out.read_text().splitlines()}["en_s_niah_8k/1"]
    assert line["status"] == "failed" and line["error"] == ("batch request failed: HTTP 400: context_length_exceeded: "
                                                           "context too long")
    second = tmp_path / "second.jsonl"
    good[3]["response"]["body"]["choices"][0]["finish_reason"] = None  # an answer without a finish reason: said
    second.write_text("".join(json.dumps(x) + "\n" for x in good[1:]))
    whole = invoke(["ingest", str(first), str(second), "--requests", str(requests), "--out", str(out)])
    assert whole.exit_code == 0 and "1 row(s) failed in one output and were answered in another" in whole.stderr
    assert "warning: 1 answer(s) answered without a finish_reason: recorded with finish_reason null" in whole.stderr
    assert all(json.loads(x)["status"] == "ok" for x in out.read_text().splitlines())
    twice = invoke(["ingest", str(second), str(second), "--requests", str(requests), "--out", str(out)])
    assert twice.exit_code == 2 and "is answered twice" in twice.stderr
    stranger = tmp_path / "stranger.jsonl"
    stranger.write_text(json.dumps(dict(good[0], custom_id="en_s_niah_8k/99")) + "\n")
    unknown = invoke(["ingest", str(stranger), "--requests", str(requests), "--out", str(out)])
    assert unknown.exit_code == 2 and "'en_s_niah_8k/99' is not a row the requests were made for" in unknown.stderr
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text('{"id": "x"}\n')
    bad = invoke(["ingest", str(garbage), "--requests", str(requests), "--out", str(out)])
    assert bad.exit_code == 2 and "line 1 is not a batch output line" in bad.stderr


def test_overlong_rows_are_skipped_in_the_files_and_the_predictions(tmp_path):
    configs = {"en_s_niah_8k": [make_row("en_s_niah_8k", i) for i in range(2)],
               "fr_s_niah_8k": [make_row("fr_s_niah_8k", i, words=730) for i in range(2)]}
    export = write_export(tmp_path / "export", configs)
    requests = tmp_path / "req.jsonl"
    refused = invoke(["run", str(export), "--model", "m", "--batch-requests", str(requests), "--max-model-len", "7990",
                      "--tokenizer", "cl100k_base"])
    assert refused.exit_code == 2 and "2 of 4 selected row(s) do not fit" in refused.stderr and not requests.exists()
    made = invoke(["run", str(export), "--model", "m", "--batch-requests", str(requests), "--max-model-len", "7990",
                   "--tokenizer", "cl100k_base", "--skip-overlong"])
    assert made.exit_code == 0 and "2 row(s) skipped" in made.output
    assert {json.loads(x)["custom_id"] for x in requests.read_text().splitlines()} == {"en_s_niah_8k/0", "en_s_niah_8k/1"}
    state = ServerState(model="m", max_model_len=None)
    results = tmp_path / "results.jsonl"
    results.write_text(run_batch(state, requests.read_text()))
    assert invoke(["ingest", str(results), "--requests", str(requests), "--out", str(tmp_path / "p.jsonl")]).exit_code == 0
    lines = {json.loads(x)["id"]: json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()}
    assert [lines[f"fr_s_niah_8k/{i}"]["status"] for i in (0, 1)] == ["skipped", "skipped"]


def test_submit_and_fetch_through_the_batch_api(tmp_path):
    """Through a gateway that needs its query on every request (the Batch API's endpoints too), at a base URL that
    carries a password: neither the key, the password nor the query token is shown or written."""
    export, rows = small_export(tmp_path / "export", CONFIGS, 3)
    requests = tmp_path / "req.jsonl"
    state = scripted(rows)
    state.query = {"api-version": "2024-06-01", "token": "qt-batch-never-print"}
    with running_server(state) as server:
        gateway = server.base_url.replace("http://", "http://u:pw-batch-never-print@") + \
            "?api-version=2024-06-01&token=qt-batch-never-print"
        made = invoke(["run", str(export), "--model", "test-model", "--batch-requests", str(requests), "--submit",
                       "--base-url", gateway, "--batch-max-requests", "5", "--quiet"], key=KEY)
        assert made.exit_code == 0, made.stderr
        meta = json.loads((tmp_path / "req.meta.json").read_text())
        assert meta["batch"]["batches"] == ["batch-1", "batch-2"] and len(state.files) == 2
        fetched = invoke(["ingest", "--requests", str(requests), "--out", str(tmp_path / "p.jsonl"),
                          "--base-url", gateway, "--wait", "30", "--poll", "0.05"], key=KEY)
        assert fetched.exit_code == 0, fetched.stderr
        live = invoke(["run", str(export), "--base-url", gateway, "--model", "test-model", "--out",
                       str(tmp_path / "live.jsonl"), "--quiet"])
        assert live.exit_code == 0
        assert {r.path for r in state.log} >= {"/v1/files", "/v1/batches", "/v1/models", "/tokenize"}
        assert {r.query for r in state.log} == {"api-version=2024-06-01&token=qt-batch-never-print"}
    assert sorted(p.name for p in tmp_path.glob("batch-*-output.jsonl")) == ["batch-1-output.jsonl", "batch-2-output.jsonl"]
    assert scores(tmp_path / "p.jsonl", export, tmp_path / "r1") == scores(tmp_path / "live.jsonl", export, tmp_path / "r2")
    said = made.output + made.stderr + fetched.output + fetched.stderr + live.output + live.stderr
    for secret in (KEY, "pw-batch-never-print", "qt-batch-never-print"):
        assert secret not in said and all(secret not in p.read_text(errors="replace") for p in tmp_path.rglob("*")
                                          if p.is_file())
    no_key = invoke(["ingest", "--requests", str(requests), "--out", str(tmp_path / "q.jsonl")])
    assert no_key.exit_code == 2 and "a Batch API needs a key: set OPENAI_API_KEY" in no_key.stderr
