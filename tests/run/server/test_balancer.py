"""Several servers of one model: rows spread over them, a server that dies mid-run is taken out and its rows
finish on the others, every id exactly once. Three instances of the loopback vLLM stand-in (openai_server.py)
on three ports, driven by the real ``openai`` client through the CLI."""

from __future__ import annotations

import contextlib
import json
import threading

from click.testing import CliRunner
from openai_server import Reply, ServerState, running_server
from run_fixtures import small_export

from builders.cli import cli

COMPLETIONS = "/v1/chat/completions"


def invoke(args: list[str]):
    return CliRunner().invoke(cli, args, catch_exceptions=False, env={"OPENAI_API_KEY": ""})


def answering(rows: dict, delay: float = 0.0, window: int | None = 7990) -> ServerState:
    state = ServerState(max_model_len=window)
    state.default_reply = lambda row: Reply(rows[row]["answers"][0])
    state.delay_s = delay
    return state


def urls(servers) -> list[str]:
    return [a for s in servers for a in ("--base-url", s.base_url)]


def test_rows_spread_over_servers_and_a_dead_one_is_taken_out(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k", "pl_s_niah_8k", "ko_s_niah_8k"], 12)
    out = tmp_path / "preds.jsonl"
    states = [answering(rows, delay=0.05) for _ in range(3)]
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(running_server(s)) for s in states]

        def kill_second() -> None:  # once the second server has answered a few rows, it dies
            while len(states[1].requests(COMPLETIONS)) < 3:
                threading.Event().wait(0.01)
            states[1].down = True

        killer = threading.Thread(target=kill_second, daemon=True)
        killer.start()
        result = invoke(["run", str(export), *urls(servers), "--model", "test-model", "--out", str(out),
                         "--concurrency", "6", "--retry-wait", "0.01", "--max-failed", "0"])
        killer.join(timeout=30)
    assert result.exit_code == 0, result.stderr
    assert f"warning: {servers[1].base_url} taken out of rotation (unreachable" in result.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(x["id"] for x in lines) == sorted(rows) and all(x["status"] == "ok" for x in lines)
    assert [x["prediction"] for x in lines] == [rows[x["id"]]["answers"][0] for x in lines]
    answered = [len({r.row for r in s.requests(COMPLETIONS)}) for s in states]
    assert all(n >= 3 for n in answered), answered  # every server took a share
    meta = json.loads((tmp_path / "preds.meta.json").read_text())
    recorded = {s["base_url"]: s for s in meta["runs"][-1]["servers"]}
    assert [recorded[s.base_url]["taken_out"] is not None for s in servers] == [False, True, False]
    assert sum(s["answered"] for s in recorded.values()) == len(rows)
    assert meta["base_urls"] == [s.base_url for s in servers]
    assert "servers: " in result.output and "taken out: unreachable" in result.output


def test_the_run_fails_only_when_no_server_is_left(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 10)
    out = tmp_path / "preds.jsonl"
    states = [answering(rows, delay=0.05) for _ in range(2)]
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(running_server(s)) for s in states]

        def kill_both() -> None:
            while sum(len(s.requests(COMPLETIONS)) for s in states) < 4:
                threading.Event().wait(0.01)
            for s in states:
                s.down = True

        threading.Thread(target=kill_both, daemon=True).start()
        result = invoke(["run", str(export), *urls(servers), "--model", "test-model", "--out", str(out),
                         "--concurrency", "2", "--retry-wait", "0.01", "--max-retries", "1", "--quiet"])
    assert result.exit_code == 1  # rows were sent (2 means nothing was)
    error = [x for x in result.stderr.splitlines() if x.startswith("error: ")]
    assert len(error) == 1 and "no server left in rotation" in error[0] and "rerun the same command to resume" in error[0]
    kept = [json.loads(x)["id"] for x in out.read_text().splitlines()]
    assert len(kept) == len(set(kept)) and 2 <= len(kept) < len(rows)  # finished rows kept, each once
    assert f"keeps the {len(kept)} row(s) that finished" in error[0]


def test_servers_with_different_windows_are_refused(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 2)
    with running_server(answering(rows, window=7990)) as a, running_server(answering(rows, window=4096)) as b:
        result = invoke(["run", str(export), *urls([a, b]), "--model", "test-model", "--out", str(tmp_path / "p.jsonl")])
        assert a.state.requests(COMPLETIONS) == [] and b.state.requests(COMPLETIONS) == []
    assert result.exit_code == 2 and "the servers report different windows" in result.stderr
    assert f"{a.base_url}: 7990" in result.stderr and f"{b.base_url}: 4096" in result.stderr


def test_a_server_down_from_the_start_is_left_out_with_a_warning(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 4)
    listing = tmp_path / "servers.txt"
    with running_server(answering(rows)) as good:
        listing.write_text(f"# replicas\n{good.base_url}\nhttp://127.0.0.1:9/v1  # not started\n")
        result = invoke(["run", str(export), "--base-urls", str(listing), "--model", "test-model",
                         "--out", str(tmp_path / "p.jsonl"), "--quiet"])
        assert len(good.state.requests(COMPLETIONS)) == 4
    assert result.exit_code == 0, result.stderr
    assert "warning: http://127.0.0.1:9/v1 taken out of rotation (unreachable at the start)" in result.stderr
