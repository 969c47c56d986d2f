"""Each server kind recognised from what it answers, its window and counts learnt its own way: the real
``openai`` client and ``oneruler run`` against loopback stand-ins of llama.cpp, Ollama, TGI, SGLang,
vLLM and the hosted API (``dialect_servers.py``)."""

from __future__ import annotations

import json
import math

import pytest
import tiktoken
from dialect_servers import GEMMA_TEMPLATE, DialectHandler, DialectState
from openai_server import ServerState, running_server
from run_fixtures import CL100K, small_export

from builders.cli import cli

COMPLETIONS = "/v1/chat/completions"
CONFIGS = ["en_s_niah_8k", "de_cwe_easy_8k"]


def invoke(args: list[str]):
    from click.testing import CliRunner

    return CliRunner().invoke(cli, args, catch_exceptions=False, env={"OPENAI_API_KEY": ""})


def args(server, export, out, *extra) -> list[str]:
    return ["run", str(export), "--base-url", server.base_url, "--model", server.state.model, "--out", str(out),
            "--retry-wait", "0.01", "--quiet", *extra]


@pytest.fixture()
def export(tmp_path):
    return small_export(tmp_path / "export", CONFIGS, 2)


def total_line(output: str) -> list[str]:
    return next(x for x in output.splitlines() if x.startswith("all")).split()


def cl(text: str) -> int:
    return len(CL100K.encode(text, disallowed_special=()))


O200K = tiktoken.get_encoding("o200k_base")
EXPECTED = {  # kind → (server line, how the server counts one prompt)
    "llama.cpp": ("server: llama.cpp; window 7,990 (n_ctx of one slot from GET /props; the model was trained for 32768); "
                  "1 parallel slot(s); prompts counted with llama.cpp's /apply-template + /tokenize",
                  lambda text: cl(GEMMA_TEMPLATE.format(content=text)) + 1),
    "tgi": ("server: TGI; window 7,990, prompts at most 7,989 (max_total_tokens from GET /info); prompts counted with "
            "TGI's /chat_tokenize", lambda text: cl(text) + 7),
    "sglang": ("server: SGLang; window 7,990 (max_model_len from GET /v1/models); prompts counted with SGLang's "
               "/v1/tokenize + 64 tokens", lambda text: cl(text) + 1 + 64),
    "openai": ("server: OpenAI API; window unknown (not reported by the API); prompts counted with tiktoken o200k_base",
               lambda text: len(O200K.encode(text)) + 7),
}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_server_counts_in_its_own_way(kind, export, tmp_path):
    folder, rows = export
    state = DialectState(kind, model="gpt-4o" if kind == "openai" else "test-model")
    with running_server(state, DialectHandler) as server:
        result = invoke(args(server, folder, tmp_path / "p.jsonl", "--dry-run"))
        assert result.exit_code == 0, result.stderr
        assert state.requests(COMPLETIONS) == [] and state.requests("/tokenize" if kind != "llama.cpp" else "/x") == []
    line, count = EXPECTED[kind]
    assert line in result.output
    expected = sum(count(r["input"]) for r in rows.values())
    assert total_line(result.output)[2] == f"{expected:,}"
    assert ("does not report its window" in result.stderr) == (kind == "openai")


def test_vllm_is_told_from_its_card(export, tmp_path, stand_in):
    folder, rows = export
    server = stand_in
    result = invoke(args(server, folder, tmp_path / "p.jsonl", "--dry-run"))
    assert "server: vLLM; window 7,990 (max_model_len from GET /v1/models)" in result.output
    assert total_line(result.output)[2] == f"{sum(cl(r['input']) + 7 for r in rows.values()):,}"


def test_ollama_window_is_the_num_ctx_it_loads_with_and_rows_over_it_are_refused_with_the_fix(export, tmp_path):
    folder, rows = export
    state = DialectState("ollama", window=300)
    with running_server(state, DialectHandler) as server:
        result = invoke(args(server, folder, tmp_path / "p.jsonl", "--dry-run"))
        assert [r.body for r in state.requests("/api/generate")] == [{"model": "test-model"}]  # loaded to learn num_ctx
    assert result.exit_code == 2
    assert ("server: Ollama; window 300 (num_ctx the model is loaded with (GET /api/ps); the model itself supports "
            "131072); prompts counted with the dataset's num_tokens") in result.output
    assert "Ollama has no endpoint that counts prompt tokens" in result.stderr
    need = max(math.ceil(r["num_tokens"] * (1.45 if "cwe" in i else 1.05)) + 64 + r["reserve"] for i, r in rows.items())
    assert f"restart Ollama with OLLAMA_CONTEXT_LENGTH={need}" in result.stderr and "PARAMETER num_ctx" in result.stderr


def test_ollama_num_ctx_from_the_modelfile(export, tmp_path):
    folder, _ = export
    state = DialectState("ollama", window=32_000, num_ctx_in_modelfile=True)
    with running_server(state, DialectHandler) as server:
        result = invoke(args(server, folder, tmp_path / "p.jsonl", "--dry-run"))
        assert state.requests("/api/generate") == []
    assert result.exit_code == 0, result.stderr
    assert "window 32,000 (num_ctx from the model's Modelfile (POST /api/show)" in result.output


def test_ollama_silent_truncation_is_caught_and_the_run_stopped_with_the_fix(tmp_path):
    """A wrong --max-model-len lets long rows through; Ollama cuts them, the guard sees it and stops the run."""
    folder, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 6)
    state = DialectState("ollama", window=300)
    out = tmp_path / "p.jsonl"
    with running_server(state, DialectHandler) as server:
        result = invoke(args(server, folder, out, "--max-model-len", "20000", "--concurrency", "1", "--max-failed", "5"))
        sent = len(state.requests(COMPLETIONS))
    assert result.exit_code == 1  # rows were sent (2 means nothing was)
    assert "--max-model-len 20000 is larger than what Ollama uses (300" in result.stderr
    assert result.stderr.count("truncated by the server: the server read 300 prompt tokens") >= 3
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("error: 3 row(s) came back with fewer prompt tokens than were sent: Ollama at")
    assert "cut them to its 300-token window (num_ctx the model is loaded with" in error
    assert "OLLAMA_CONTEXT_LENGTH=" in error and "--retry-failed" in error
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert sent == 3 and [x["status"] for x in lines] == ["failed"] * 3
    assert all(x["error"].startswith("truncated by the server") for x in lines)


def test_llama_cpp_concurrency_defaults_to_its_slots(tmp_path):
    folder, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 3)
    for slots, extra, concurrency in ((2, [], 2), (1, ["--concurrency", "4"], 4)):
        out = tmp_path / f"p{slots}.jsonl"
        with running_server(DialectState("llama.cpp", slots=slots), DialectHandler) as server:
            result = invoke(args(server, folder, out, *extra))
        assert result.exit_code == 0, result.stderr
        meta = json.loads(out.with_name(out.stem + ".meta.json").read_text())
        run = meta["runs"][0]
        assert (run["server_kind"], run["slots"], run["concurrency"]) == ("llama.cpp", slots, concurrency)
        queued = "--concurrency 4 is more than the 1 parallel slot(s)" in result.stderr
        assert queued == (slots == 1)


def test_tgi_prompt_cap_refuses_rows_that_fit_the_total(export, tmp_path):
    folder, rows = export
    longest = max(cl(r["input"]) + 7 for r in rows.values())
    with running_server(DialectState("tgi", window=32_000, max_input_tokens=longest - 1), DialectHandler) as server:
        result = invoke(args(server, folder, tmp_path / "p.jsonl", "--dry-run"))
    assert result.exit_code == 2
    assert f"window (prompts at most {longest - 1})" in result.stderr
    assert "restart TGI with larger --max-total-tokens and --max-input-tokens" in result.stderr


def test_warnings_and_the_server_line_come_before_the_first_completion_request(tmp_path):
    """Printed (and timed) before anything is sent, so a run killed mid-way has shown them."""
    import time

    from builders.run.runner import run
    from builders.run.settings import RowChoice, RunSettings, ServerSettings

    folder, _ = small_export(tmp_path / "export", ["en_s_niah_8k"], 2)
    state = ServerState(max_model_len=None)
    state.tokenize_enabled = False
    said: list[tuple[float, str]] = []
    with running_server(state) as server:
        settings = RunSettings(RowChoice(str(folder)), ServerSettings((server.base_url,), state.model),
                               tmp_path / "p.jsonl", progress=False)
        run(settings, None, lambda message: said.append((time.monotonic(), message)))
        first = min(r.time for r in state.requests(COMPLETIONS))
    before = [m for t, m in said if t < first]
    assert before[0].startswith("server: vLLM; window unknown")
    assert any("does not report its window" in m for m in before)
    assert any("prompt sizes are estimated" in m for m in before)
    meta = json.loads((tmp_path / "p.meta.json").read_text())
    assert meta["runs"][0]["warnings"] == [m[len("warning: "):] for m in before if m.startswith("warning: ")]


def test_a_template_that_drops_the_prompt_is_warned_about(export, tmp_path):
    """llama.cpp with Jinja on takes `--chat-template gemma` for the template's text: every prompt is 'gemma'."""
    folder, _ = export
    state = DialectState("llama.cpp")
    state.templated = lambda content: "gemma"
    with running_server(state, DialectHandler) as server:
        result = invoke(args(server, folder, tmp_path / "p.jsonl", "--dry-run"))
    assert result.exit_code == 0, result.stderr
    assert "llama.cpp counts 4 of 4 prompts at under 10% of their num_tokens" in result.stderr
    assert "--no-jinja" in result.stderr


def test_a_server_that_reports_no_usage_is_named_once(tmp_path):
    from openai_server import Fault

    folder, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 2)
    state = ServerState()
    body = b'{"id": "c", "object": "chat.completion", "created": 0, "model": "test-model", "choices": [{"index": 0, ' \
           b'"message": {"role": "assistant", "content": "42"}, "finish_reason": "stop"}]}'
    state.faults = {i: [Fault(200, body=body)] for i in rows}
    with running_server(state) as server:
        result = invoke(args(server, folder, tmp_path / "p.jsonl"))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("answers without usage (prompt_tokens): a prompt it cuts cannot be detected") == 1


@pytest.mark.parametrize("kind", ["llama.cpp", "tgi", "sglang", "ollama"])
def test_every_probe_carries_the_gateways_query(kind, export, tmp_path):
    """A base URL with a query (``?api-version=``): every request keeps it, each dialect's own endpoints included."""
    folder, _ = export
    state = DialectState(kind, window=32_000)
    state.query = {"api-version": "7"}
    with running_server(state, DialectHandler) as server:
        result = invoke(["run", str(folder), "--base-url", server.base_url + "?api-version=7", "--model",
                         "test-model", "--dry-run"])
        assert result.exit_code == 0, result.stderr
        paths = {r.path for r in state.log}
    assert {r.query for r in state.log} == {"api-version=7"}
    own = {"llama.cpp": "/apply-template", "tgi": "/chat_tokenize", "sglang": "/v1/tokenize", "ollama": "/api/generate"}[kind]
    assert own in paths and f"server: {EXPECTED_KIND[kind]}" in result.output


EXPECTED_KIND = {"llama.cpp": "llama.cpp", "tgi": "TGI", "sglang": "SGLang", "ollama": "Ollama"}
