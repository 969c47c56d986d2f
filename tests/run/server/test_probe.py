"""``server/probe.py``: what a dialect may ask of a server, with the real ``openai`` client against the vLLM
stand-in on 127.0.0.1 (``openai_server.py``)."""

from __future__ import annotations

import asyncio

import pytest
from openai_server import ServerState, running_server

from builders.base.errors import OneRulerError
from builders.cli.handler import flag_of
from builders.base.retry import RetryPolicy
from builders.run.server.client import ServerClient
from builders.run.server.probe import ServerProbe


def probing(server, key: str | None, work):
    async def go():
        client = ServerClient(server.base_url, server.state.model, "completions", key, RetryPolicy(timeout_s=10))
        try:
            return await work(ServerProbe(client))
        finally:
            await client.close()

    return asyncio.run(go())


def test_json_calls_under_the_root_and_what_failed_is_noted():
    async def work(probe: ServerProbe):
        counted = await probe.post_json("/tokenize", {"model": probe.model, "prompt": "hello world"})
        missing = await probe.get_json("/props")
        probe.note("/props", "not llama.cpp")  # the first word on an endpoint stays
        probe.note("tiktoken", "unknown model")
        probe.note("tiktoken", "still unknown", replace=True)
        return counted, missing, dict(probe.problems), probe.api, probe.root_url

    with running_server(ServerState()) as server:
        counted, missing, problems, api, root = probing(server, None, work)
        assert server.state.requests("/tokenize")[0].body == {"model": "test-model", "prompt": "hello world"}
    assert counted["count"] == server.state.count("hello world") + 1 and missing is None
    assert problems == {"/props": "HTTP 404: no route /props", "tiktoken": "still unknown"}
    assert api == "completions" and root == server.base_url[: -len("/v1")]


def test_a_refused_key_is_an_error_and_an_absent_server_raises():
    import openai

    with running_server(ServerState(api_key="sk-right")) as server:
        with pytest.raises(OneRulerError, match="the server refused the API key \\(HTTP 401\\)"):
            probing(server, "sk-wrong", lambda probe: probe.get_json("/props"))
    gone = type("S", (), {"base_url": "http://127.0.0.1:9/v1", "state": ServerState()})()
    with pytest.raises(openai.APIConnectionError):
        probing(gone, None, lambda probe: probe.get_json("/props"))


def test_a_request_that_hangs_is_an_error_saying_what_hung_for_how_long_and_what_to_try():
    from builders.run.server.client import ServerHung

    state = ServerState()
    state.hang = {"/props", "/tokenize"}

    def run(timeout_s: float, work):
        async def go():
            client = ServerClient(server.base_url, "test-model", "chat", None, RetryPolicy(timeout_s=timeout_s))
            try:
                return await work(ServerProbe(client))
            finally:
                await client.close()

        return asyncio.run(go())

    with running_server(state) as server:
        with pytest.raises(ServerHung) as hung:  # a POST: --timeout bounds it
            run(0.4, lambda probe: probe.post_json("/tokenize", {"prompt": "x"}))
        said = (f"{server.base_url}: POST /tokenize did not answer within 0.4 s (--timeout); the server took the "
                f"connection but sent nothing back. If it is still loading the model, wait until it answers and rerun; "
                f"otherwise raise --timeout or restart the server")
        assert hung.value.worded(flag_of) == said  # the command line's words
        assert str(hung.value) == said.replace("--timeout", "timeout_s")  # below it, the setting's name
        with pytest.raises(ServerHung, match=r"GET /props did not answer within 0.3 s; .* otherwise restart the server$"):
            run(10, lambda probe: probe.get_json("/props", timeout=0.3))  # the probe's own deadline: no option to name
