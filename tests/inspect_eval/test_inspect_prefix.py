"""The Inspect task sends a row's answer prefix as a final assistant message where the provider continues one.

The rows are a toy family's (tests/prefix_family.py) in a small export; the server is the vLLM
stand-in (tests/openai_server.py), which records every request body. Inspect's ``vllm/`` provider
(connected to the stand-in by its base URL, as to an existing ``vllm serve``) sends a final
assistant message with ``continue_final_message: true`` and ``add_generation_prompt: false``, so
the task appends the prefix as that message; the ``openai-api/`` provider sends messages as they
are to a server whose software it cannot tell, so the task appends the prefix to the user message
(RULER's base template). The sample's metadata says which; the continuation is scored.
"""

from __future__ import annotations

import pytest
from openai_server import Reply, ServerState, running_server
from prefix_family import TASK, gold, prefix_rows, registered
from run_fixtures import write_export

CONFIG = f"en_{TASK}_8k"


@pytest.fixture
def export(tmp_path):
    with registered():
        rows = prefix_rows(CONFIG, 2)
        yield write_export(tmp_path / "export", {CONFIG: rows}), {r["id"]: r for r in rows}


@pytest.fixture
def server(export, monkeypatch):
    monkeypatch.setenv("STANDIN_API_KEY", "none")
    monkeypatch.setenv("VLLM_API_KEY", "none")
    _, rows = export
    state = ServerState(max_model_len=8_100)
    state.replies = {i: Reply(f" {gold(CONFIG, r['index'])}." if r["index"] == 0 else " 1000003.") for i, r in rows.items()}
    with running_server(state) as running:
        yield running


@pytest.mark.parametrize("provider, sent_as", [("vllm", "assistant prefill"), ("openai-api/standin",
                                                                                "appended to the prompt")])
def test_the_prefix_is_continued_where_the_provider_can(export, server, tmp_path, provider, sent_as):
    from inspect_ai import eval as inspect_eval

    from builders.inspect_eval._registry import oneruler

    folder, rows = export
    (log,) = inspect_eval(oneruler(configs=CONFIG, dataset=str(folder)), model=f"{provider}/test-model",
                          model_base_url=server.base_url, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    requests = server.state.requests("/v1/chat/completions")
    assert sorted(r.row for r in requests) == sorted(rows)
    for request in requests:
        row, body = rows[request.row], request.body
        if sent_as == "assistant prefill":
            assert body["messages"] == [{"role": "user", "content": row["input"]},
                                        {"role": "assistant", "content": row["answer_prefix"]}]
            assert (body["continue_final_message"], body["add_generation_prompt"]) == (True, False)
        else:
            assert body["messages"] == [{"role": "user", "content": row["input"] + row["answer_prefix"]}]
            assert "continue_final_message" not in body
    for sample in log.samples:
        assert sample.metadata["answer_prefix"] == rows[sample.id]["answer_prefix"]
        assert sample.metadata["answer_prefix_sent_as"] == sent_as
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(1 / 2)  # row 0 right, row 1 wrong
