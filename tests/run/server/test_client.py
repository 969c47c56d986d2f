"""``builders.run.server.client`` with the real ``openai`` client against the vLLM stand-in on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest
from openai_server import Fault, Reply, ServerState

from builders.base.retry import RetryPolicy
from builders.run.request_settings import SamplingSettings
from builders.run.server.client import ServerClient, retry_after_seconds, split_answer
from builders.run.server.dialects.vllm import Vllm
from builders.run.server.probe import ServerProbe

FAST = RetryPolicy(attempts=4, base_s=0.05, timeout_s=20)


def complete(server, prompt: str, *, api="chat", stream=False, retry=FAST, max_tokens=30, key=None):
    async def go():
        client = ServerClient(server.base_url, server.state.model, api, key, retry, stream)
        try:
            kwargs = SamplingSettings(max_tokens=max_tokens).request_kwargs(30, api)
            return await client.complete(prompt, kwargs)
        finally:
            await client.close()

    return asyncio.run(go())


@pytest.fixture
def server(stand_in):
    """The stand-in every test here talks to (tests/run/conftest.py)."""
    return stand_in


@pytest.mark.parametrize("api", ["chat", "completions"])
@pytest.mark.parametrize("stream", [False, True])
def test_answer_and_usage(server, api, stream):
    server.state.replies["a_s_niah_8k/0"] = Reply("<answer>4817290</answer>")
    done = complete(server, "row a_s_niah_8k/0 where is it?", api=api, stream=stream)
    assert done.error is None and done.attempts == 1
    assert done.prediction == "<answer>4817290</answer>" and done.finish_reason == "stop"
    expected_prompt = server.state.count("row a_s_niah_8k/0 where is it?") + (7 if api == "chat" else 1)
    assert done.usage == {"prompt_tokens": expected_prompt, "completion_tokens": server.state.count("<answer>4817290</answer>"),
                          "reasoning_tokens": None}
    body = server.state.requests(f"/v1/{'chat/completions' if api == 'chat' else 'completions'}")[0].body
    assert body["temperature"] == 0.0 and body["max_tokens"] == 30 and body.get("stream", False) is stream
    if api == "chat":
        assert body["messages"] == [{"role": "user", "content": "row a_s_niah_8k/0 where is it?"}]
    else:
        assert body["prompt"] == "row a_s_niah_8k/0 where is it?"


@pytest.mark.parametrize("stream", [False, True])
def test_reasoning_from_the_server_field_is_kept_apart(server, stream):
    server.state.replies["r/1"] = Reply("4817290", reasoning_content="Maybe 1234567? No, the needle says 4817290.")
    done = complete(server, "row r/1", stream=stream, max_tokens=200)
    assert done.prediction == "4817290"
    assert done.reasoning == "Maybe 1234567? No, the needle says 4817290."


@pytest.mark.parametrize("stream", [False, True])
def test_inline_think_block_is_split_off(server, stream):
    server.state.replies["r/2"] = Reply("<think>It could be 1234567.</think>\nThe number is 4817290.")
    done = complete(server, "row r/2", stream=stream, max_tokens=200)
    assert done.prediction == "\nThe number is 4817290."
    assert done.reasoning == "It could be 1234567."


def test_split_answer_rules():
    assert split_answer("<think>a</think>b", "server") == ("b", "server\na")
    assert split_answer("<think>never closed", None) == ("", "never closed")  # no answer at all
    assert split_answer("text <think>late</think>", None) == ("text <think>late</think>", None)
    assert split_answer(None, None) == ("", None)


@pytest.mark.parametrize("stream", [False, True])
def test_finish_reason_length_when_max_tokens_cuts(server, stream):
    server.state.replies["l/0"] = Reply("one two three four five six seven eight nine ten")
    done = complete(server, "row l/0", stream=stream, max_tokens=4)
    assert done.finish_reason == "length"
    assert done.prediction == "one two three four"
    assert done.usage["completion_tokens"] == 4


def test_429_with_retry_after_is_honoured(server):
    server.state.replies["x/0"] = Reply("4817290")
    server.state.faults["x/0"] = [Fault(429, {"Retry-After": "1"}, "slow down")]
    done = complete(server, "row x/0")
    assert done.error is None and done.prediction == "4817290" and done.attempts == 2
    first, second = server.state.requests("/v1/chat/completions")
    assert second.time - first.time >= 1.0  # waited as told, not the 0.05 s backoff


def test_5xx_and_dropped_connections_are_retried_with_backoff(server):
    server.state.replies["x/1"] = Reply("4817290")
    server.state.faults["x/1"] = [Fault(500), Fault(0), Fault(503)]
    done = complete(server, "row x/1")
    assert done.error is None and done.attempts == 4
    times = [r.time for r in server.state.requests("/v1/chat/completions")]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(times) == 4 and gaps[1] >= 0.1 and gaps[2] >= 0.2  # 0.05, 0.1, 0.2: doubling waits


def test_retries_are_bounded_then_the_row_fails(server):
    server.state.faults["x/2"] = [Fault(500, message="engine dead")] * 10
    done = complete(server, "row x/2", retry=RetryPolicy(attempts=3, base_s=0.01, timeout_s=20))
    assert done.prediction is None and done.attempts == 3
    assert done.error == "HTTP 500: engine dead (gave up after 3 tries)"
    assert len(server.state.requests("/v1/chat/completions")) == 3


def test_client_errors_are_not_retried(server):
    done = complete(server, "row x/3", max_tokens=9000)  # prompt + 9000 > the 7990-token window
    assert done.attempts == 1 and done.prediction is None
    assert done.error.startswith("HTTP 400: This model's maximum context length is 7990 tokens")
    assert len(server.state.requests("/v1/chat/completions")) == 1


def test_unreachable_server_fails_after_bounded_tries():
    done = complete(type("S", (), {"base_url": "http://127.0.0.1:9/v1", "state": ServerState()})(), "row x/4",
                    retry=RetryPolicy(attempts=2, base_s=0.01, timeout_s=5))
    assert done.prediction is None and done.attempts == 2 and "APIConnectionError" in done.error


def test_retry_after_forms():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert 0 <= retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) <= 0.0
    assert retry_after_seconds({}) is None
    assert retry_after_seconds({"retry-after": "soon, please"}) is None  # garbage: our own backoff, not a crash
    assert RetryPolicy(base_s=1, max_wait_s=5).wait(10, None) == 5 and RetryPolicy().wait(0, 500) == 120


def test_tokenize_and_models(server):
    async def go():
        client = ServerClient(server.base_url, "test-model", "chat", None, FAST)
        try:
            return await client.served_models(), await Vllm().count(ServerProbe(client), "hello world")
        finally:
            await client.close()

    models, count = asyncio.run(go())
    assert models.cards[0]["id"] == "test-model" and models.cards[0]["max_model_len"] == 7990
    assert count == server.state.count("hello world") + 7
    body = server.state.requests("/tokenize")[0].body
    assert body == {"model": "test-model", "messages": [{"role": "user", "content": "hello world"}],
                    "add_generation_prompt": True}


MALFORMED = {
    "no-choices": (b'{"id": "x", "object": "chat.completion", "choices": [], "usage": null}',
                   "the server's answer has no choices"),
    "null-choices": (b'{"id": "x", "choices": null}', "the server's answer has no choices"),
    "not-json": (b'{"id": nope', "the server's answer is not valid JSON (Expecting value at character 7)"),
    "not-utf8": (b'{"x": "\xff\xfe"}', "the server's answer is not UTF-8 (byte 7 is b'\\xff')"),
}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_a_malformed_answer_is_said_about_the_server(server, kind):
    body, said = MALFORMED[kind]
    server.state.faults["x"] = [Fault(200, body=body)] * 2
    server.state.ids_by_prompt["x"] = "x"
    done = complete(server, "x", retry=RetryPolicy(attempts=2, base_s=0.01, timeout_s=10))
    assert done.error == f"{said} (gave up after 2 tries)" and done.attempts == 2


def test_a_body_cut_short_and_a_slow_server_are_said_in_words(server):
    body = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}'
    server.state.faults["x"] = [Fault(200, body=body, cut=True)]
    server.state.ids_by_prompt["x"] = "x"
    done = complete(server, "x", retry=RetryPolicy(attempts=1, timeout_s=10))
    assert done.error == f"the connection closed after {len(body)} of {2 * len(body)} bytes of the server's answer " \
                         f"(gave up after 1 tries)"
    server.state.delay_s = 1.0
    done = complete(server, "y", retry=RetryPolicy(attempts=1, timeout_s=0.3))
    assert done.error.startswith("the server sent no complete answer within --timeout 0.3 s (raise --timeout")


def test_streamed_latency_starts_when_the_server_starts_answering(server):
    """A request that waits (the stand-in sleeps before its headers, as llama.cpp does while its slot is busy)."""
    server.state.delay_s = 0.6
    done = complete(server, "hello", stream=True)
    assert done.error is None and done.wait_s >= 0.6 and done.latency_s < 0.6
    plain = complete(server, "hello")
    assert plain.wait_s is None and plain.latency_s >= 0.6
