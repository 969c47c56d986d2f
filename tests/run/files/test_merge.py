"""``--shard I/N`` runs and ``oneruler merge``: three shares cover the selection exactly once and merge into a
file that scores exactly like a run done in one process; mixed settings and conflicting ids are refused.
The loopback vLLM stand-in (openai_server.py) answers through the real ``openai`` client."""

from __future__ import annotations

import json

from click.testing import CliRunner
from openai_server import Reply, ServerState, running_server
from run_fixtures import small_export

from builders.cli import cli

CONFIGS = ["en_s_niah_8k", "pl_cwe_easy_8k", "ko_mv_niah_8k"]


def invoke(args: list[str]):
    return CliRunner().invoke(cli, args, catch_exceptions=False, env={"OPENAI_API_KEY": ""})


def answers(rows: dict) -> ServerState:
    """Right for even indices, wrong for odd ones: a score that is not all or nothing."""
    state = ServerState(max_model_len=7990)
    state.default_reply = lambda row: Reply(" ".join(rows[row]["answers"]) if int(row.rsplit("/", 1)[1]) % 2 == 0
                                            else "I do not know")
    return state


def run(server, export, out, *extra):
    return invoke(["run", str(export), "--base-url", server.base_url, "--model", "test-model", "--out", str(out),
                   "--quiet", *extra])


def score(preds, export, out) -> dict:
    result = invoke(["score", str(preds), "--dataset", str(export), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads((out / "scores.json").read_text(encoding="utf-8"))


def test_three_shards_cover_the_selection_once_and_merge_scores_like_one_process(tmp_path):
    export, rows = small_export(tmp_path / "export", CONFIGS, 7)
    with running_server(answers(rows)) as server:
        assert run(server, export, tmp_path / "whole.jsonl").exit_code == 0
        for i in range(3):
            assert run(server, export, tmp_path / f"s{i}.jsonl", "--shard", f"{i}/3").exit_code == 0
        again = run(server, export, tmp_path / "s1.jsonl", "--shard", "1/3")  # a resumed shard sends nothing new
        assert again.exit_code == 0 and "0 row(s) sent" in again.output
        other = run(server, export, tmp_path / "s1.jsonl", "--shard", "2/3")
        assert other.exit_code == 2 and "holds shard 1/3, this run asks for 2/3" in other.stderr
    shares = [[json.loads(x)["id"] for x in (tmp_path / f"s{i}.jsonl").read_text().splitlines()] for i in range(3)]
    assert sorted(sum(shares, [])) == sorted(rows) and all(shares)
    merged = invoke(["merge", *(str(tmp_path / f"s{i}.jsonl") for i in range(3)), "--out", str(tmp_path / "merged.jsonl")])
    assert merged.exit_code == 0, merged.stderr
    def lines(name):  # everything but the time each request took
        return [{k: v for k, v in json.loads(x).items() if k != "latency_s"} for x in (tmp_path / name).read_text().splitlines()]

    assert lines("merged.jsonl") == lines("whole.jsonl")  # the same lines, in the same (id) order
    whole, joined = score(tmp_path / "whole.jsonl", export, tmp_path / "r1"), score(tmp_path / "merged.jsonl", export, tmp_path / "r2")
    for key in ("overall", "groups", "by_task", "by_language", "by_length", "errors"):
        assert joined[key] == whole[key], key
    assert 0 < whole["overall"]["passed"] < whole["overall"]["counted"]
    meta = json.loads((tmp_path / "merged.meta.json").read_text())
    assert [s["shard"] for s in meta["shards"]] == ["0/3", "1/3", "2/3"] and meta["missing"] == 0
    assert meta["selection"]["shard"] is None and len(meta["runs"]) == 4


def test_merge_reports_missing_rows_and_absent_shards(tmp_path):
    export, rows = small_export(tmp_path / "export", CONFIGS, 4)
    with running_server(answers(rows)) as server:
        for i in (0, 2):
            assert run(server, export, tmp_path / f"s{i}.jsonl", "--shard", f"{i}/3").exit_code == 0
    result = invoke(["merge", str(tmp_path / "s0.jsonl"), str(tmp_path / "s2.jsonl"), "--out", str(tmp_path / "m.jsonl")])
    assert result.exit_code == 1
    assert "warning: shard(s) 1 are not among the files" in result.stderr
    assert "row(s) of the selection have no line" in result.stderr
    missing = len(rows) - len((tmp_path / "m.jsonl").read_text().splitlines())
    assert f"error: {tmp_path / 'm.jsonl'}: {missing} row(s)" in result.stderr and missing > 0


def test_merge_refuses_mixed_settings_and_conflicting_ids(tmp_path):
    export, rows = small_export(tmp_path / "export", CONFIGS, 3)
    with running_server(answers(rows)) as server:
        assert run(server, export, tmp_path / "a.jsonl", "--shard", "0/2").exit_code == 0
        assert run(server, export, tmp_path / "b.jsonl", "--shard", "1/2", "--temperature", "0.5").exit_code == 0
        assert run(server, export, tmp_path / "c.jsonl", "--shard", "0/2").exit_code == 0
        server.state.default_reply = lambda row: Reply("something else")
        assert run(server, export, tmp_path / "d.jsonl", "--shard", "0/2").exit_code == 0
        assert run(server, export, tmp_path / "e.jsonl", "--shard", "1/3").exit_code == 0
    mixed = invoke(["merge", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--out", str(tmp_path / "m.jsonl")])
    assert mixed.exit_code == 2 and "was written with sampling" in mixed.stderr and '"temperature": 0.5' in mixed.stderr
    conflict = invoke(["merge", str(tmp_path / "a.jsonl"), str(tmp_path / "d.jsonl"), "--out", str(tmp_path / "m.jsonl")])
    assert conflict.exit_code == 2 and "has different lines in" in conflict.stderr
    shares = invoke(["merge", str(tmp_path / "a.jsonl"), str(tmp_path / "e.jsonl"), "--out", str(tmp_path / "m.jsonl")])
    assert shares.exit_code == 2 and "cover different selections" in shares.stderr
    assert not (tmp_path / "m.jsonl").exists()
    same = invoke(["merge", str(tmp_path / "a.jsonl"), str(tmp_path / "c.jsonl"), "--out", str(tmp_path / "m.jsonl")])
    assert "id(s) appear in two files with the same outcome, written once" in same.stderr
