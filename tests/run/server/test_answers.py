"""``server/answers.py``: answers read from their bytes. The end-of-stream rule and the shapes servers send, then a
fuzzer (hypothesis) over answer and model-list shapes, through the real ``openai`` client against the vLLM stand-in
(``openai_server.py``) and through ``oneruler run``: never a traceback, one line per row, one line per failure."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai_server import Fault, ServerState, running_server
from run_fixtures import small_export

from builders.cli import cli
from builders.base.retry import RetryPolicy
from builders.run.request_settings import SamplingSettings
from builders.run.server.answers import (NO_FINISH, NOT_TEXT, BadAnswer, StreamReader, answer_parts, model_list,
                                         parse_json)
from builders.run.server.client import ServerClient

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def sse(*events: str) -> bytes:
    return b"".join(f"data: {e}\n\n".encode() for e in events)


def streamed(data: bytes, api: str = "chat", step: int = 7):
    """The reader fed ``data`` in pieces of ``step`` bytes (lines split across pieces), then closed."""
    reader = StreamReader(api)
    for i in range(0, len(data), step):
        reader.feed(data[i:i + step])
    reader.close()
    return reader


def chunk(content: str | None = None, finish: str | None = None, **delta) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": {**({"content": content} if content is not None else {}),
                                                              **delta}, "finish_reason": finish}]})


def test_a_stream_counts_only_once_it_ended_properly():
    role = chunk(role="assistant", content="")
    whole = streamed(sse(role, chunk("48"), chunk("17", "stop"), json.dumps({"choices": [], "usage": {
        "prompt_tokens": 9, "completion_tokens": 2}}), "[DONE]")).parts()
    assert (whole.content, whole.finish_reason, whole.usage["prompt_tokens"], whole.notes) == ("4817", "stop", 9, ())
    # llama.cpp before 2025: the finish chunk, no [DONE]; a server without finish reasons: [DONE] alone (noted)
    assert streamed(sse(role, chunk("4817", "length"))).parts().finish_reason == "length"
    done_only = streamed(sse(role, chunk("4817"), "[DONE]")).parts()
    assert done_only.finish_reason is None and done_only.notes == (NO_FINISH,)
    for data, said in ((sse(role), "the stream closed after 1 chunk(s), before the answer ended"),
                       (sse(role, chunk("48")), "the stream closed after 2 chunk(s)"),
                       (sse(role) + b'data: {"choices": [{"delta": {"content": "4817"}, "finish_reason": "st',
                        "the stream closed after 1 chunk(s)"),  # the last event cut mid-way is dropped
                       (sse(role, chunk("48"), '{"error": {"message": "engine died", "code": 500}}', "[DONE]"),
                        "the server reported an error in the stream after 2 chunk(s): engine died"),  # vLLM, TGI
                       (sse(role, '{"object": "error", "message": "out of memory"}'), "error in the stream after 1")):
        with pytest.raises(BadAnswer, match=said.replace("(", r"\(").replace(")", r"\)")):
            streamed(data).parts()


def test_stream_details_servers_send():
    # TGI's completions stream: finish_reason "" until the last chunk; keep-alive comments; CRLF lines; [DONE] unterminated
    text = [json.dumps({"choices": [{"text": t, "finish_reason": f}]}) for t, f in (("48", ""), ("17", "stop"))]
    data = (b": keep-alive\r\n\r\n" + sse(*text).replace(b"\n", b"\r\n") + b"data: [DONE]")
    reader = streamed(data, api="completions", step=3)
    assert reader.done and reader.parts().content == "4817" and reader.parts().finish_reason == "stop"
    multi = streamed(b'data: {"choices": [{"delta": {"content":\ndata: "4817"}, "finish_reason": "stop"}]}\n\n')
    assert multi.parts().content == "4817"  # one event's data over two lines
    with pytest.raises(BadAnswer, match=r"chunk 2 of the stream is not UTF-8"):
        streamed(sse(chunk("a")) + b'data: {"choices": [{"delta": {"content": "\xff"}}]}\n\n')


def test_whole_answers_and_their_shapes():
    body = {"choices": [{"message": {"content": [{"type": "text", "text": "48"}, {"type": "image_url", "image_url": {}},
                                                 {"type": "text", "text": "17"}], "reasoning_content": "hm"},
                         "finish_reason": "stop"}], "usage": {"prompt_tokens": "x", "completion_tokens": 2}}
    parts = answer_parts(body, "chat")
    assert (parts.content, parts.reasoning, parts.notes) == ("4817", "hm", (NOT_TEXT,))
    assert parts.usage == {"prompt_tokens": None, "completion_tokens": 2, "reasoning_tokens": None}
    assert answer_parts({"choices": [{"message": {"content": "x"}}]}, "chat").notes == (NO_FINISH,)
    for bad, said in (({"choices": [{"message": {"content": 5}}]}, "has a message content that is a number, not text"),
                      ({"choices": ["x"]}, "has a choice that is a string, not an object"),
                      ([], "is a list, not an object"), ({"choices": [{"text": "x"}]}, "choice without a message")):
        with pytest.raises(BadAnswer, match=said):
            answer_parts(bad, "chat")
    with pytest.raises(BadAnswer, match=r"is not JSON \(Content-Type text/html; it begins '<!DOCTYPE html>"):
        parse_json(b"<!DOCTYPE html><html>", content_type="text/html")
    listed = model_list({"data": [5, {"id": "m"}, None, {"id": 3}]})
    assert [c["id"] for c in listed.cards] == ["m"]
    assert listed.odd == ("entry 1 is a number", "entry 3 is null", "entry 4 has no string 'id'")
    assert model_list({"data": "m"}).problem == "its answer has no 'data' list" and model_list([]).cards is None


# --------------------------------------------------------------------------- the fuzzer

SCALARS = st.none() | st.booleans() | st.integers(-3, 10**12) | st.floats(allow_nan=False) | st.text(max_size=6)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                             max_size=3), max_leaves=6)
TEXTS = st.text(max_size=12) | st.none() | st.lists(
    st.fixed_dictionaries({"type": st.sampled_from(["text", "image_url", "x"])}, optional={"text": VALUES}) | VALUES,
    max_size=3) | VALUES
FINISH = st.sampled_from(["stop", "length", "", None]) | VALUES
USAGE = st.fixed_dictionaries({}, optional={"prompt_tokens": st.integers(-1, 99) | VALUES,
                                            "completion_tokens": st.integers(0, 9) | VALUES,
                                            "completion_tokens_details": VALUES}) | VALUES
MESSAGE = st.fixed_dictionaries({}, optional={"role": VALUES, "content": TEXTS, "reasoning_content": VALUES,
                                              "reasoning": VALUES}) | VALUES
CHOICE = st.fixed_dictionaries({}, optional={"message": MESSAGE, "delta": MESSAGE, "text": TEXTS,
                                             "finish_reason": FINISH}) | VALUES
BODY = st.fixed_dictionaries({}, optional={"choices": st.lists(CHOICE, max_size=2) | VALUES, "usage": USAGE,
                                           "error": VALUES, "object": VALUES}) | VALUES
ANSWER = BODY.map(lambda b: json.dumps(b).encode()) | st.binary(max_size=24) | st.sampled_from(
    [b"<html>", b'{"choices": [', b"\xff\xfe", b""])
EVENTS = st.lists(BODY.map(json.dumps) | st.sampled_from(["[DONE]", "", "{", "null"]), max_size=4)
STREAM = st.builds(lambda events, tail: sse(*events) + tail, EVENTS, st.sampled_from([b"", b"data: [DO", b"\xff\n\n",
                                                                                         b": ping\n\n"]))
MODELS = st.fixed_dictionaries({}, optional={"object": VALUES, "data": st.lists(
    st.fixed_dictionaries({"id": st.sampled_from(["test-model", "other"]) | VALUES},
                          optional={"owned_by": st.sampled_from(["vllm", "llamacpp", "sglang", "system", "library",
                                                                 "test-model"]) | VALUES,
                                    "max_model_len": st.integers(-1, 10**6) | VALUES, "meta": VALUES}) | VALUES,
    max_size=3) | VALUES}) | VALUES


@pytest.fixture(scope="module")
def server():
    with running_server(ServerState(max_model_len=None)) as srv:
        srv.state.ids_by_prompt["x"] = "x"
        yield srv


def answer_of(server, raw: bytes, stream: bool):
    server.state.faults["x"] = [Fault(200, body=raw)]

    async def go():
        client = ServerClient(server.base_url, "test-model", "chat", None, RetryPolicy(attempts=1, timeout_s=10), stream)
        try:
            return await client.complete("x", SamplingSettings().request_kwargs(30, "chat"))
        finally:
            await client.close()

    return asyncio.run(go())


def assert_one_answer(done) -> None:
    """Whatever the server sent: an answer (text, a finish reason or None, usage or None) or an error in one line."""
    if done.error is None:
        assert isinstance(done.prediction, str) and (done.finish_reason is None or isinstance(done.finish_reason, str))
        assert done.usage is None or set(done.usage) == {"prompt_tokens", "completion_tokens", "reasoning_tokens"}
    else:
        assert done.prediction is None and "\n" not in done.error and 0 < len(done.error) <= 500


@FUZZ
@given(raw=ANSWER)
def test_fuzz_whole_answers_never_raise(server, raw):
    assert_one_answer(answer_of(server, raw, stream=False))


@FUZZ
@given(raw=STREAM)
def test_fuzz_streamed_answers_never_raise(server, raw):
    done = answer_of(server, raw, stream=True)
    assert_one_answer(done)
    if done.error is None:  # answered only when the stream ended properly
        assert done.finish_reason is not None or b"data: [DONE]\n" in raw


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    return small_export(tmp_path_factory.mktemp("fuzz") / "export", ["en_s_niah_8k"], 3)


@settings(FUZZ, max_examples=12)
@given(answers=st.lists(ANSWER | STREAM, min_size=3, max_size=3), stream=st.booleans())
def test_fuzz_a_run_writes_one_line_per_row_and_never_a_traceback(server, export, tmp_path_factory, answers, stream):
    folder, rows = export
    out = tmp_path_factory.mktemp("run") / "p.jsonl"
    server.state.faults = {ident: [Fault(200, body=raw)] for ident, raw in zip(sorted(rows), answers)}
    result = CliRunner().invoke(cli, ["run", str(folder), "--base-url", server.base_url, "--model", "test-model",
                                      "--out", str(out), "--quiet", "--max-retries", "0", "--max-failed", "100%",
                                      "--max-model-len", "9000", *(["--stream"] if stream else [])],
                                env={"OPENAI_API_KEY": ""})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception  # no traceback
    assert "Traceback" not in result.stderr and result.exit_code == 0, result.stderr
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(x["id"] for x in lines) == sorted(rows)
    for line in lines:
        assert line["status"] in ("ok", "failed")
        assert (line["error"] is None) == (line["status"] == "ok") and "\n" not in (line["error"] or "")
    failed = sum(x["status"] == "failed" for x in lines)
    assert f"{3 - failed} answered, {failed} failed" in result.output


@settings(FUZZ, max_examples=25)
@given(listing=MODELS.map(lambda b: json.dumps(b).encode()) | st.binary(max_size=16))
def test_fuzz_model_lists_are_read_or_named(server, export, listing):
    folder, _ = export
    server.state.models_body = listing
    try:
        result = CliRunner().invoke(cli, ["run", str(folder), "--base-url", server.base_url, "--model", "test-model",
                                          "--dry-run"], env={"OPENAI_API_KEY": ""})
    finally:
        server.state.models_body = None
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception  # no traceback
    assert "Traceback" not in result.stderr and result.exit_code in (0, 2), result.stderr
    errors = [x for x in result.stderr.splitlines() if x.startswith("error: ")]
    if result.exit_code == 2:
        assert len(errors) == 1 and "model 'test-model' is not served by" in errors[0], result.stderr
    else:
        assert errors == [] and "dry run: nothing sent" in result.output
