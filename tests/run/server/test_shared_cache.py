"""llama.cpp's slots over one shared (unified) KV cache: the concurrency chosen so that requests fit it together,
its overflow (HTTP 500 "Context size has been exceeded") taken as a capacity signal and resent with fewer in
flight, never an endless loop. Against the llama.cpp stand-in answering ``/props`` and ``/slots`` as the real
``llama-server`` does when started without ``--parallel`` (4 slots, each reporting the whole ``n_ctx``)."""

from __future__ import annotations

import asyncio
import json

import pytest
from dialect_servers import GEMMA_TEMPLATE, DialectHandler, DialectState
from openai_server import running_server
from run_fixtures import CL100K, small_export

from builders.cli import cli
from builders.run.server.capacity import CapacityGate

COMPLETIONS = "/v1/chat/completions"
CONFIG = "en_s_niah_8k"


def invoke(args: list[str]):
    from click.testing import CliRunner

    return CliRunner().invoke(cli, args, catch_exceptions=False, env={"OPENAI_API_KEY": ""})


def run_args(server, folder, out, *extra) -> list[str]:
    return ["run", str(folder), "--base-url", server.base_url, "--model", server.state.model, "--out", str(out),
            "--retry-wait", "0.01", "--quiet", *extra]


def requests_tokens(rows: dict) -> list[int]:
    """What each row holds in the server's cache: its prompt as llama.cpp counts it (Gemma's template, BOS) + 30."""
    return sorted(len(CL100K.encode(GEMMA_TEMPLATE.format(content=r["input"]), disallowed_special=())) + 1 + 30
                  for r in rows.values())


@pytest.fixture()
def export(tmp_path):
    return small_export(tmp_path / "export", [CONFIG], 4, words=300)


def meta_of(out) -> dict:
    return json.loads(out.with_name(out.stem + ".meta.json").read_text())


def test_slots_that_each_report_the_whole_context_share_it_and_the_concurrency_fits_them(export, tmp_path):
    folder, rows = export
    sizes = requests_tokens(rows)
    window = sizes[-1] + sizes[-2] + 10  # two of the longest fit together, three do not
    assert sum(sizes[-3:]) > window
    state = DialectState("llama.cpp", window=window, slots=4, unified=True)
    state.hold_first = 2  # the first two meet in the cache, whatever the machine's load: they fit it together
    out = tmp_path / "p.jsonl"
    with running_server(state, DialectHandler) as server:
        result = invoke(run_args(server, folder, out))
    assert result.exit_code == 0, result.stderr
    assert (f"4 parallel slot(s) sharing one {window:,}-token KV cache (GET /slots: 4 slots, each reporting the whole "
            f"n_ctx {window})") in result.stderr
    line = next(x for x in result.stderr.splitlines() if x.startswith("concurrency "))
    assert line.startswith(f"concurrency 2 (chosen): the server's 4 slots share one {window:,}-token KV cache, which "
                           f"holds 2 of the longest requests ({sizes[-1]:,} tokens with the answer) at once")
    assert f"--ctx-size {sum(sizes):,}".replace(",", "") in line and "--parallel 4 --no-kv-unified" in line
    assert f"--ctx-size {4 * window}" in line and "--concurrency 4" in line
    assert state.overflows == 0 and state.most_in_flight == 2
    run = meta_of(out)["runs"][0]
    assert (run["slots"], run["shared_cache"], run["concurrency"]) == (4, window, 2)
    assert "resent" not in run
    assert all(json.loads(x)["status"] == "ok" for x in out.read_text().splitlines())


def test_an_overflow_is_resent_with_fewer_in_flight_not_failed(export, tmp_path):
    """--concurrency 4 on a cache that holds one request: the server refuses every request in flight together."""
    folder, rows = export
    sizes = requests_tokens(rows)
    window = sizes[-1] + 10  # one request at a time
    state = DialectState("llama.cpp", window=window, slots=4, unified=True)
    state.hold_first = 2  # the first two meet in the cache: an overflow, whatever the machine's load
    out = tmp_path / "p.jsonl"
    with running_server(state, DialectHandler) as server:
        result = invoke(run_args(server, folder, out, "--concurrency", "4", "--max-failed", "0"))
        sent = len(state.requests(COMPLETIONS))
    assert result.exit_code == 0, result.stderr
    assert "more in flight may overflow it (Context size has been exceeded): those requests are resent" in result.stderr
    assert state.overflows >= 1 and "its shared KV cache overflowed with up to 4 request(s) in flight" in result.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["status"] for x in lines] == ["ok"] * 4
    run = meta_of(out)["runs"][0]
    assert run["resent"] >= 2 and sent == 4 + run["resent"]  # every refused request sent once more, no other
    assert 1 <= run["concurrency_end"] < 4
    assert f"{run['resent']} request(s) resent after the server's shared KV cache overflowed" in result.output


def test_a_request_the_cache_cannot_hold_alone_fails_once_not_six_times(export, tmp_path):
    """A window given too large (--max-model-len) lets a request through that the cache cannot hold even alone."""
    folder, rows = export
    sizes = requests_tokens(rows)
    state = DialectState("llama.cpp", window=sizes[0] - 1, slots=4, unified=True)
    out = tmp_path / "p.jsonl"
    with running_server(state, DialectHandler) as server:
        result = invoke(run_args(server, folder, out, "--max-model-len", "100000", "--concurrency", "1",
                                 "--max-failed", "10"))
        sent = len(state.requests(COMPLETIONS))
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["status"] for x in lines] == ["failed"] * 4 and sent == 4
    assert all(x["error"] == "HTTP 500: Context size has been exceeded.: the server's shared KV cache cannot hold "
                            "this request even alone" for x in lines)


def test_without_the_slots_endpoint_the_cache_is_taken_as_shared_and_said_so(export, tmp_path):
    folder, rows = export
    state = DialectState("llama.cpp", window=32_000, slots=4, unified=True, slots_endpoint=False)
    with running_server(state, DialectHandler) as server:
        result = invoke(run_args(server, folder, tmp_path / "p.jsonl", "--dry-run"))
    assert result.exit_code == 0, result.stderr
    assert ("sharing one 32,000-token KV cache (GET /slots gave no slots (HTTP 501: This server does not support "
            "slots endpoint. Start it with `--slots`): assumed shared)") in result.output
    assert "concurrency 4 (chosen)" in result.output  # four of these rows fit 32,000 tokens together


def test_one_slot_shares_nothing(export, tmp_path):
    folder, _ = export
    with running_server(DialectState("llama.cpp", window=32_000, slots=1), DialectHandler) as server:
        result = invoke(run_args(server, folder, tmp_path / "p.jsonl", "--dry-run"))
        asked = {r.path for r in server.state.log}
    assert "1 parallel slot(s); prompts counted" in result.output and "/slots" not in asked
    assert "concurrency" not in result.output


def test_the_gate_lowers_once_per_round_and_refuses_a_lone_overflow():
    async def scenario() -> list:
        gate = CapacityGate(3)
        seen = []
        async with gate.admitted() as first, gate.admitted() as second:
            assert (first, second, gate.in_flight) == (0, 0, 2)
            seen += [gate.overflowed(first), gate.overflowed(second)]  # one overflow of round 0: lowered once
        seen.append((gate.limit, gate.round, list(gate.lowered)))
        async with gate.admitted() as third:
            seen.append(gate.overflowed(third))  # round 1's own overflow: lowered to 1
        async with gate.admitted() as alone:
            seen.append(gate.overflowed(alone))  # sent alone at a limit of one: not resent
        return seen

    assert asyncio.run(scenario()) == [True, True, (2, 1, [(3, 2)]), True, False]


def test_the_gate_holds_new_requests_until_fewer_than_its_limit_are_in_flight():
    async def scenario() -> list[int]:
        gate, most, now = CapacityGate(2), [], [0]

        async def one() -> None:
            async with gate.admitted():
                now[0] += 1
                most.append(now[0])
                await asyncio.sleep(0)
                now[0] -= 1

        await asyncio.gather(*(one() for _ in range(6)))
        return most

    assert max(asyncio.run(scenario())) == 2
