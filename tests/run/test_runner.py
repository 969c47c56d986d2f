"""``oneruler run`` end to end: real exports, the real ``openai`` client, the vLLM stand-in on 127.0.0.1."""

from __future__ import annotations

import csv
import json
import math

import datasets
import pytest
from click.testing import CliRunner
from openai_server import Fault, Reply, ServerState, running_server
from run_fixtures import CL100K, small_export

from builders.cli import cli

SECRET = "sk-test-9f8e7d6c5b4a-never-print-me"
COMPLETIONS = "/v1/chat/completions"


def invoke(args: list[str], key: str | None = None):
    env = {"OPENAI_API_KEY": key} if key else {"OPENAI_API_KEY": ""}
    return CliRunner().invoke(cli, args, catch_exceptions=False, env=env)


def run_args(server, export, out, *extra) -> list[str]:
    return ["run", str(export), "--base-url", server.base_url, "--model", server.state.model, "--out", str(out),
            "--retry-wait", "0.01", "--quiet", *extra]


# --------------------------------------------------------------------------- a run whose answers we control


@pytest.fixture(scope="module")
def real_export(tmp_path_factory, mirror):
    """Four real 8k configs built by the exporter (4 rows each)."""
    from builders.export.build import build_dataset
    from builders.export.request import BuildRequest

    out = tmp_path_factory.mktemp("real") / "oneruler"
    build_dataset(BuildRequest(["en_s_niah_8k", "en_mv_niah_8k", "ko_none_niah_8k", "pl_cwe_easy_8k"], out, samples=4,
                               cache_dir=str(tmp_path_factory.mktemp("src")), mirror=str(mirror), progress=False))
    cache = str(tmp_path_factory.mktemp("hf"))
    # one config at a time: each has its family's columns (a CWE config more than a NIAH one)
    rows = [r for config in ("en_s_niah_8k", "en_mv_niah_8k", "ko_none_niah_8k", "pl_cwe_easy_8k")
            for r in datasets.load_dataset(str(out), config, split="test", cache_dir=cache).to_list()]
    return out, {r["id"]: r for r in rows}


def script_answers(state: ServerState, rows: dict[str, dict]) -> dict[str, tuple[int, int]]:
    """Scripted replies for the 16 rows, and the (passed, counted) per config they must score (paper mode)."""
    gold = {i: r["answers"] for i, r in rows.items()}
    values = {i: [n["value"] for n in r["needles"]] for i, r in rows.items()}
    state.ids_by_prompt = {r["input"]: i for i, r in rows.items()}
    en, mv, ko, pl = "en_s_niah_8k/", "en_mv_niah_8k/", "ko_none_niah_8k/", "pl_cwe_easy_8k/"
    state.replies.update({
        en + "0": Reply(f"<answer>{gold[en + '0'][0]}</answer>"),                               # pass
        en + "1": Reply(gold[en + "1"][0], reasoning_content="Perhaps 1234567, or none."),      # pass: reasoning not scored
        en + "2": Reply(f"<think>It may be 7654321 or none</think>The number is {gold[en + '2'][0]}."),  # pass
        en + "3": Reply("none"),                                                                 # fail: none when present
        mv + "0": Reply(" ".join(reversed(gold[mv + "0"]))),                                     # pass, any order
        mv + "1": Reply(" ".join(gold[mv + "1"][:3])),                                           # fail: partial
        mv + "2": Reply(", ".join(gold[mv + "2"])),                                              # pass after 500 + 429
        mv + "3": Reply("Let me list every number I saw: " + " ".join(gold[mv + "3"]) * 5),     # length: dropped
        ko + "0": Reply(gold[ko + "0"][0]),                                                      # pass
        ko + "1": Reply(values[ko + "1"][0]),                                                    # fail: distractor
        ko + "2": Reply(f"<think>{values[ko + '2'][1]}?</think>{gold[ko + '2'][0]}"),           # pass
        pl + "0": Reply(" ".join(gold[pl + "0"])),                                               # pass
        pl + "1": Reply(" ".join(gold[pl + "1"][:9])),                                           # fail: 9 of 10
        pl + "2": Reply("Let me count the words carefully. " * 10 + " ".join(gold[pl + "2"])),   # length: CWE wrong
        pl + "3": Reply(" ".join(gold[pl + "3"]), reasoning_content="nie wiem"),                # pass
    })
    state.faults[mv + "2"] = [Fault(500), Fault(429, {"Retry-After": "0"})]
    state.faults[ko + "3"] = [Fault(500, message=f"token {SECRET} rejected")] * 20              # fails: not scored
    for ident in (en + "0", mv + "0", ko + "2", pl + "0", pl + "3"):
        assert len(CL100K.encode(state.replies[ident].content)) <= rows[ident]["reserve"], ident  # fits its reserve
    return {"en_s_niah_8k": (3, 4), "en_mv_niah_8k": (2, 3), "ko_none_niah_8k": (2, 3), "pl_cwe_easy_8k": (2, 4)}


def test_a_controlled_run_scores_exactly_as_computed(real_export, tmp_path):
    export, rows = real_export
    state = ServerState(max_model_len=8192, api_key=SECRET)
    expected = script_answers(state, rows)
    out, report = tmp_path / "preds.jsonl", tmp_path / "report"
    with running_server(state) as server:
        result = invoke(run_args(server, export, out, "--concurrency", "3", "--max-failed", "1", "--max-retries", "3",
                                 "--report", str(report), "--seed", "11"), key=SECRET)
    assert result.exit_code == 0, result.output + result.stderr
    assert "15 answered, 1 failed" in result.output

    data = json.loads((report / "scores.json").read_text(encoding="utf-8"))
    assert {g["config"]: (g["passed"], g["counted"]) for g in data["groups"]} == expected
    assert (data["overall"]["passed"], data["overall"]["counted"]) == (9, 14)
    assert data["unscored_lines"] == {"failed": ["ko_none_niah_8k/3"], "skipped": []}
    assert data["run"]["model"] == "test-model" and data["run"]["sampling"]["seed"] == 11
    assert data["run"]["dataset"]["manifest_sha256"] and data["run"]["runs"][0]["prompt_count"] == \
        "the server's /tokenize (vLLM: the chat template applied)"
    with (report / "scores.csv").open(encoding="utf-8") as handle:
        table = {r["config"]: r["accuracy"] for r in csv.DictReader(handle)}
    assert {c: float(a) for c, a in table.items()} == pytest.approx({c: p / n for c, (p, n) in expected.items()})

    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [x["id"] for x in lines] == sorted(rows, key=lambda i: (i.rpartition("/")[0], int(i.rpartition("/")[2])))
    by_id = {x["id"]: x for x in lines}
    assert by_id["en_s_niah_8k/1"]["reasoning"] == "Perhaps 1234567, or none."
    assert by_id["en_s_niah_8k/2"]["reasoning"] == "It may be 7654321 or none"
    assert by_id["en_s_niah_8k/2"]["prediction"] == f"The number is {rows['en_s_niah_8k/2']['answers'][0]}."
    assert by_id["en_mv_niah_8k/3"]["finish_reason"] == "length" and by_id["pl_cwe_easy_8k/2"]["finish_reason"] == "length"
    assert by_id["ko_none_niah_8k/3"]["status"] == "failed" and "***" in by_id["ko_none_niah_8k/3"]["error"]
    assert set(by_id["en_s_niah_8k/0"]) == {"id", "prediction", "finish_reason", "reasoning", "usage", "latency_s",
                                            "error", "status"}
    # every request carried the key and the paper's settings; the retried row was sent three times
    sent = state.requests(COMPLETIONS)
    assert all(r.headers.get("authorization") == f"Bearer {SECRET}" for r in sent)
    assert {(r.body["temperature"], r.body["max_tokens"], r.body["seed"]) for r in sent if r.row.startswith("pl")} == {(0.0, 50, 11)}
    assert sum(r.row == "en_mv_niah_8k/2" for r in sent) == 3
    # the key is nowhere: not in the output, the predictions, the meta, the report
    assert SECRET not in result.output + result.stderr
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_a_limit_per_task_kind_goes_with_its_rows_and_into_the_meta(real_export, tmp_path):  # issue 36
    export, rows = real_export
    state = ServerState(max_model_len=8192)
    state.ids_by_prompt = {r["input"]: i for i, r in rows.items()}
    state.replies.update({i: Reply(", ".join(r["answers"])) for i, r in rows.items()})
    out = tmp_path / "preds.jsonl"
    with running_server(state) as server:
        result = invoke(run_args(server, export, out, "--max-tokens", "cwe=200", "--report", str(tmp_path / "report")))
    assert result.exit_code == 0, result.output + result.stderr
    sent = {(r.row.split("/")[0], r.body["max_tokens"]) for r in state.requests(COMPLETIONS)}
    assert sent == {("en_s_niah_8k", 30), ("en_mv_niah_8k", rows["en_mv_niah_8k/0"]["reserve"]), ("ko_none_niah_8k", 30),
                    ("pl_cwe_easy_8k", 200)}
    meta = json.loads(out.with_suffix(".meta.json").read_text(encoding="utf-8"))
    assert meta["sampling"]["max_tokens_by_task"] == {"cwe": 200} and meta["sampling"]["max_tokens"] is None
    scores = json.loads((tmp_path / "report" / "scores.json").read_text(encoding="utf-8"))
    assert scores["answer_room"]["limits"]["pl_cwe_easy_8k"] == [200, 200]
    assert scores["answer_room"]["limits"]["en_s_niah_8k"] == [30, 30]


# --------------------------------------------------------------------------- preflight, dry run


@pytest.fixture
def mixed_export(tmp_path):
    """Two small configs and one whose prompts are ~8,050 tokens (over a 7,990-token window)."""
    from run_fixtures import make_row, write_export

    configs = {"en_s_niah_8k": [make_row("en_s_niah_8k", i) for i in range(3)],
               "de_cwe_easy_8k": [make_row("de_cwe_easy_8k", i) for i in range(2)],
               "fr_s_niah_8k": [make_row("fr_s_niah_8k", i, words=730) for i in range(2)]}
    return write_export(tmp_path / "export", configs), {r["id"]: r for rs in configs.values() for r in rs}


def server_count(row: dict) -> int:
    return len(CL100K.encode(row["input"])) + 7  # the stand-in's chat template overhead


def test_preflight_refuses_overlong_prompts_and_sends_nothing(mixed_export, tmp_path):
    export, rows = mixed_export
    out = tmp_path / "preds.jsonl"
    with running_server(ServerState(max_model_len=7990)) as server:
        worst = max((i for i in rows if i.startswith("fr")), key=lambda i: server_count(rows[i]))
        assert server_count(rows[worst]) + 30 > 7990  # the fixture is what it claims
        result = invoke(run_args(server, export, out))
        assert result.exit_code == 2
        assert result.stderr.count("error:") == 1
        assert "2 of 7 selected row(s) do not fit" in result.stderr
        assert "exceeds the server's 7990-token window" in result.stderr
        assert f"worst {worst}: {server_count(rows[worst])} prompt + 30 new" in result.stderr
        assert server.state.requests(COMPLETIONS) == [] and len(server.state.requests("/tokenize")) == 7
        assert not out.exists() and not (tmp_path / "preds.meta.json").exists()

        result = invoke(run_args(server, export, out, "--skip-overlong"))
        assert result.exit_code == 0, result.stderr
        assert {r.row for r in server.state.requests(COMPLETIONS)} == {i for i in rows if not i.startswith("fr")}
    lines = {json.loads(x)["id"]: json.loads(x) for x in out.read_text().splitlines()}
    assert len(lines) == 7 and {i for i, x in lines.items() if x["status"] == "skipped"} == {"fr_s_niah_8k/0", "fr_s_niah_8k/1"}
    assert lines[worst]["error"].startswith(f"skipped: prompt of {server_count(rows[worst])} tokens + 30 new tokens")
    scored = invoke(["score", str(out), "--dataset", str(export), "--out", str(tmp_path / "r")])
    assert scored.exit_code == 1  # the skipped rows leave their config partial
    assert "not scored: 0 row(s) the run recorded as failed, 2 skipped" in scored.output
    assert "fr_s_niah_8k 0/2" in scored.stderr


def test_dry_run_sends_nothing_and_prices_the_run(mixed_export, tmp_path):
    export, rows = mixed_export
    out = tmp_path / "preds.jsonl"
    with running_server(ServerState(max_model_len=32_000)) as server:
        result = invoke(run_args(server, export, out, "--dry-run", "--price-in", "2.5", "--price-out", "10", "en_*", "de_*"))
        assert result.exit_code == 0, result.stderr
        assert server.state.requests(COMPLETIONS) == []
    assert not out.exists() and not (tmp_path / "preds.meta.json").exists()
    table = {line.split()[0]: line.split()[1:] for line in result.output.splitlines()[3:]}
    prompt = {c: sum(server_count(r) for i, r in rows.items() if i.startswith(c)) for c in ("en_", "de_")}
    assert table["en_s_niah_8k"][:4] == ["3", f"{prompt['en_']:,}", "90", "0"]
    assert table["de_cwe_easy_8k"][:4] == ["2", f"{prompt['de_']:,}", "100", "0"]
    total_prompt = prompt["en_"] + prompt["de_"]
    assert table["all"] == ["5", f"{total_prompt:,}", "190", "0", f"{(total_prompt * 2.5 + 190 * 10) / 1e6:,.2f}"]
    assert "server: vLLM; window 32,000 (max_model_len from GET /v1/models)" in result.output


def test_a_quoted_home_path_reads_the_same_rows(mixed_export, tmp_path, monkeypatch):
    """'~/export' (quoted, so the shell left it alone) is the folder in $HOME, read like its full path."""
    export, _ = mixed_export
    monkeypatch.setenv("HOME", str(export.parent))
    outputs = []
    with running_server(ServerState(max_model_len=32_000)) as server:
        for name, out in ((str(export), "full.jsonl"), (f"~/{export.name}", "home.jsonl")):
            result = invoke(run_args(server, name, tmp_path / out, "--dry-run", "en_*"))
            assert result.exit_code == 0, result.stderr
            outputs.append(result.output)
    assert outputs[0] == outputs[1] and "en_s_niah_8k" in outputs[0]


def test_without_tokenize_the_estimate_has_a_stated_margin(mixed_export, tmp_path):
    export, rows = mixed_export
    state = ServerState(max_model_len=None)
    state.tokenize_enabled = False
    with running_server(state) as server:
        result = invoke(run_args(server, export, tmp_path / "p.jsonl", "--dry-run", "en_*"))
    assert result.exit_code == 0, result.stderr
    assert "does not report its window" in result.stderr and "pass --max-model-len" in result.stderr
    assert "vLLM gave no count (HTTP 404: no route /tokenize)" in result.stderr
    assert ("prompt sizes are estimated from the dataset's num_tokens (cl100k_base) + a margin per task (niah 5%) + "
            "64 tokens") in result.stderr
    expected = sum(math.ceil(r["num_tokens"] * 1.05) + 64 for i, r in rows.items() if i.startswith("en_"))
    assert f" {expected:,} " in next(x for x in result.output.splitlines() if x.startswith("all"))


def test_local_tokenizer_counts_when_the_server_cannot(mixed_export, tmp_path, hf_tokenizers):
    from tokenizers import Tokenizer

    qwen_dir = hf_tokenizers / "qwen"
    export, rows = mixed_export
    state = ServerState(max_model_len=7990)
    state.tokenize_enabled = False
    qwen = Tokenizer.from_file(str(qwen_dir / "tokenizer.json"))
    with running_server(state) as server:
        result = invoke(run_args(server, export, tmp_path / "p.jsonl", "--dry-run", "--tokenizer",
                                 str(qwen_dir), "de_*"))
    assert result.exit_code == 0, result.stderr
    expected = sum(len(qwen.encode(r["input"]).ids) + 64 for i, r in rows.items() if i.startswith("de_"))
    assert f" {expected:,} " in next(x for x in result.output.splitlines() if x.startswith("all"))
    assert "prompts counted with tokenizer" in result.output


# --------------------------------------------------------------------------- resuming, failures, bad input


def test_rerun_skips_finished_rows_and_retry_failed_resends_only_failures(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k", "pl_s_niah_8k"], 3)
    out = tmp_path / "preds.jsonl"
    state = ServerState()
    state.default_reply = lambda row: Reply(rows[row]["answers"][0])
    state.faults["pl_s_niah_8k/1"] = [Fault(503)] * 3
    with running_server(state) as server:
        first = invoke(run_args(server, export, out, "--max-retries", "2", "--max-failed", "1"))
        assert first.exit_code == 0 and "5 answered, 1 failed" in first.output
        assert len(state.requests(COMPLETIONS)) == 5 + 3
        again = invoke(run_args(server, export, out, "--max-retries", "2", "--max-failed", "1"))
        assert again.exit_code == 0 and "0 row(s) sent" in again.output and "6 already done" in again.output
        assert len(state.requests(COMPLETIONS)) == 8  # nothing resent
        retried = invoke(run_args(server, export, out, "--max-retries", "2", "--max-failed", "1", "--retry-failed"))
        assert retried.exit_code == 0 and "1 row(s) sent: 1 answered" in retried.output
        assert [r.row for r in state.requests(COMPLETIONS)[8:]] == ["pl_s_niah_8k/1"]
        other = invoke(run_args(server, export, out, "--temperature", "0.6"))
        assert other.exit_code == 2 and 'this run has {"temperature": 0.6' in other.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == sorted(rows) and all(x["status"] == "ok" for x in lines)
    meta = json.loads((tmp_path / "preds.meta.json").read_text())
    assert [r["sent"] for r in meta["runs"]] == [6, 0, 1] and meta["lines"] == {"ok": 6, "failed": 0, "skipped": 0}


def test_too_many_failures_stop_the_run(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 8)
    out = tmp_path / "preds.jsonl"
    state = ServerState()
    for ident in rows:
        state.faults[ident] = [Fault(500, message="GPU fell off the bus")] * 5
    with running_server(state) as server:
        result = invoke(run_args(server, export, out, "--concurrency", "1", "--max-retries", "1", "--max-failed", "2"))
    assert result.exit_code == 1
    assert "3 row(s) failed, more than --max-failed 2 allows (2); the run stopped" in result.stderr
    assert "HTTP 500: GPU fell off the bus (gave up after 2 tries)" in result.stderr
    assert len(out.read_text().splitlines()) == 3 and len(state.requests(COMPLETIONS)) == 6


@pytest.mark.parametrize("api", ["chat", "completions"])
def test_streaming_runs_and_the_completions_api(tmp_path, api):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 2)
    state = ServerState()
    state.default_reply = lambda row: Reply(f"<think>scan</think>{rows[row]['answers'][0]}", "streamed thoughts")
    out = tmp_path / "p.jsonl"
    with running_server(state) as server:
        result = invoke(run_args(server, export, out, "--stream", "--api", api))
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["prediction"] for x in lines] == [rows[x["id"]]["answers"][0] for x in lines]
    # /v1/completions has no reasoning field: only the inline block is reasoning there
    assert {x["reasoning"] for x in lines} == ({"streamed thoughts\nscan"} if api == "chat" else {"scan"})
    assert all(r.body["stream"] and r.body["stream_options"] == {"include_usage": True} for r in state.log if r.body and "model" in r.body and r.path.startswith("/v1/"))
    assert all(x["usage"]["completion_tokens"] > 0 for x in lines)


def test_bad_input_is_one_error_line(tmp_path, stand_in):
    export, _ = small_export(tmp_path / "export", ["en_s_niah_8k"], 1)
    server = stand_in
    cases = [
        (run_args(server, export, tmp_path / "a.jsonl")[:4] + ["--model", "llama", "--out", str(tmp_path / "a.jsonl")],
         "model 'llama' is not served by"),
        (run_args(server, export, tmp_path / "a.jsonl", "xx_*"), "config pattern 'xx_*' matches no config"),
        (run_args(server, export, tmp_path / "a.jsonl", "--extra-body", "[1]"), "--extra-body must be a JSON object"),
        (run_args(server, tmp_path / "nope", tmp_path / "a.jsonl"), "dataset folder not found"),
        (run_args(server, export, tmp_path / "a.jsonl", "--max-failed", "lots"), "--max-failed 'lots'"),
    ]
    for args, needle in cases:
        result = invoke(args)
        assert result.exit_code == 2 and result.stderr.startswith("error: ") and needle in result.stderr, result.stderr
    result = invoke(["run", str(export), "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--out",
                     str(tmp_path / "a.jsonl"), "--quiet"])
    assert result.exit_code == 2 and "cannot reach http://127.0.0.1:9/v1" in result.stderr
    assert not (tmp_path / "a.jsonl").exists()
    foreign = tmp_path / "theirs.txt"  # lines but no meta: the message names the meta file run would have written
    foreign.write_text('{"id": "en_s_niah_8k/0", "prediction": "x"}\n')
    with running_server(ServerState()) as server:
        result = invoke(run_args(server, export, foreign))
    assert result.exit_code == 2 and "holds lines but no theirs.txt.meta.json" in result.stderr, result.stderr


def test_progress_lines_off_a_terminal_and_a_finished_file_needs_no_server(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 3)
    out = tmp_path / "p.jsonl"
    state = ServerState()
    state.default_reply = lambda row: Reply(rows[row]["answers"][0])
    with running_server(state) as server:
        args = [a for a in run_args(server, export, out) if a != "--quiet"]
        result = invoke(args)
    assert result.exit_code == 0, result.stderr
    assert "\r" not in result.stderr
    progress = [x for x in result.stderr.splitlines() if x.startswith("rows [")]
    assert progress[-1].startswith("rows [3/3] 100.0% | ") and " rows/s | in " in progress[-1]
    assert "tok/s, out" in progress[-1] and "| failed 0 |" in progress[-1] and "| ETA 0:00" in progress[-1]
    # the server is gone; a rerun has nothing to send and does not need it
    again = invoke(args)
    assert again.exit_code == 0 and "0 row(s) sent" in again.output and "3 already done" in again.output


def test_score_never_reads_the_reasoning_field(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 2)
    out = tmp_path / "p.jsonl"
    state = ServerState()
    # reasoning full of "none" and wrong numbers: scored, both rows would fail
    state.default_reply = lambda row: Reply(rows[row]["answers"][0], reasoning_content="none? 1234567? none")
    with running_server(state) as server:
        assert invoke(run_args(server, export, out)).exit_code == 0
    for extra in ([], ["--keep-think"]):
        result = invoke(["score", str(out), "--dataset", str(export), "--out", str(tmp_path / "r"), *extra])
        assert result.exit_code == 0 and "overall accuracy: 100.0% (2/2)" in result.output, result.output
