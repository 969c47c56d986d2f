"""A position-controlled sweep end to end (issue 18): ``build --grid depth`` of one language plus a
multi-evidence config, ``run`` against the vLLM stand-in (openai_server.py) with the real ``openai``
client, then ``score``: the depth heatmap in tokens and per-value recall by position."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from openai_server import Reply, ServerState, running_server

from builders.cli import cli

BINS = 11  # one bin per depth of the sweep (0, 10, …, 100), centred on it


def sweep_bin(token_depth: float) -> int:
    """The bin of a sweep's depth view: the nearest of 0, 10, …, 100 (a bin reaches 5 points either side)."""
    return min(math.floor(token_depth / 10 + 0.5), BINS - 1)


def invoke(args: list[str]):
    result = CliRunner().invoke(cli, args, catch_exceptions=False, env={"OPENAI_API_KEY": ""})
    assert result.exit_code == 0, result.output
    return result


def test_a_depth_sweep_builds_runs_and_draws_its_heatmap(tmp_path, source_cache):
    export = tmp_path / "sweep"
    invoke(["build", "--grid", "depth", "pl_s_niah_8k_*", "--samples", "2", "--out", str(export), "--quiet",
            "--cache-dir", str(source_cache)])
    invoke(["build", "pl_mv8e_niah_8k", "--samples", "2", "--out", str(export), "--quiet", "--cache-dir", str(source_cache)])
    rows = {r["id"]: r for shard in export.glob("data/*/*.parquet") for r in pq.read_table(shard).to_pylist()}
    assert len(rows) == 11 * 2 + 2
    # the model finds a needle in the first 45 % of the haystack's tokens only
    state = ServerState(max_model_len=8192)
    for ident, row in rows.items():
        state.ids_by_prompt[row["input"]] = ident
        found = [n["value"] for n in row["needles"] if n["token_depth"] < 45]
        state.replies[ident] = Reply(" ".join(found) or "brak")
    preds = tmp_path / "preds.jsonl"
    with running_server(state) as server:
        invoke(["run", str(export), "--base-url", server.base_url, "--model", state.model, "--out", str(preds),
                "--quiet"])
    report = tmp_path / "report"
    invoke(["score", str(preds), "--dataset", str(export), "--out", str(report), "--depth-bins", str(BINS)])

    assert (report / "depth.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    cells = list(csv.DictReader((report / "depth.csv").open(encoding="utf-8")))
    # the view bins by token depth, as the sweeps are placed: each needle in the bin of its token_depth, found when
    # the stand-in returned it (below 45 %)
    assert {c["depth_unit"] for c in cells} == {"tokens"}
    expected = {"s_niah": Counter(), "mv8e_niah": Counter()}  # (bin, found) -> needles
    for row in rows.values():
        for n in row["needles"]:
            expected[row["task"]][sweep_bin(n["token_depth"]), n["token_depth"] < 45] += 1
    for task, needles in expected.items():
        mine = [c for c in cells if c["task"] == task]  # bins 0 … 10 in order
        assert [float(c["depth_low"]) for c in mine] == [0.0] + [10.0 * b - 5 for b in range(1, BINS)]
        got = {b: (int(c["passed"]), int(c["counted"])) for b, c in enumerate(mine) if int(c["counted"])}
        assert got == {b: (needles[b, True], needles[b, True] + needles[b, False]) for b, _ in needles}, task
    assert len({b for b, _ in expected["s_niah"]}) >= 9 and {True, False} == {f for _, f in expected["s_niah"]}
    lines = [json.loads(x) for x in (report / "examples.jsonl").read_text(encoding="utf-8").splitlines()]
    multi = [x for x in lines if x["task"] == "mv8e_niah"]
    recall = [sum(n["token_depth"] < 45 for n in rows[x["id"]]["needles"]) / 8 for x in multi]
    assert [(x["passed"], x["recall"]) for x in multi] == [(0, r) for r in recall] and 0 < min(recall) < 1  # per row
    scores = {r["config"]: r for r in csv.DictReader((report / "scores.csv").open(encoding="utf-8"))}
    assert scores["pl_mv8e_niah_8k"]["accuracy"] == "0.0"
    assert float(scores["pl_mv8e_niah_8k"]["recall"]) == pytest.approx(sum(recall) / len(recall))
