"""A position-controlled sweep end to end (issue 18): ``build --grid depth`` of one language plus a
multi-evidence config, ``run`` against the vLLM stand-in (openai_server.py) with the real ``openai``
client, then ``score``: the depth heatmap and per-value recall by position."""

from __future__ import annotations

import csv
import json
from collections import Counter

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from openai_server import Reply, ServerState, running_server

from builders.cli import cli

BINS = 11  # one bin per depth of the sweep (0, 10, …, 100)


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
    # the model finds a needle in the first 45 % of the context only
    state = ServerState(max_model_len=8192)
    for ident, row in rows.items():
        state.ids_by_prompt[row["input"]] = ident
        found = [n["value"] for n in row["needles"] if n["actual_depth"] < 45]
        state.replies[ident] = Reply(" ".join(found) or "brak")
    preds = tmp_path / "preds.jsonl"
    with running_server(state) as server:
        invoke(["run", str(export), "--base-url", server.base_url, "--model", state.model, "--out", str(preds),
                "--quiet"])
    report = tmp_path / "report"
    invoke(["score", str(preds), "--dataset", str(export), "--out", str(report), "--depth-bins", str(BINS)])

    assert (report / "depth.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    cells = list(csv.DictReader((report / "depth.csv").open(encoding="utf-8")))
    # the view bins by actual_depth (sentences; the sweeps are placed in tokens since issue 27): each needle
    # in the bin of its actual_depth, found when the stand-in returned it (below 45 %)
    expected = {"s_niah": Counter(), "mv8e_niah": Counter()}  # (bin, found) -> needles
    for row in rows.values():
        for n in row["needles"]:
            expected[row["task"]][min(int(n["actual_depth"] * BINS / 100), BINS - 1), n["actual_depth"] < 45] += 1
    for task, needles in expected.items():
        got = {round(float(c["depth_low"]) * BINS / 100): (int(c["passed"]), int(c["counted"]))
               for c in cells if c["task"] == task and int(c["counted"])}
        assert got == {b: (needles[b, True], needles[b, True] + needles[b, False]) for b, _ in needles}, task
    assert len({b for b, _ in expected["s_niah"]}) >= 9 and {True, False} == {f for _, f in expected["s_niah"]}
    lines = [json.loads(x) for x in (report / "examples.jsonl").read_text(encoding="utf-8").splitlines()]
    multi = [x for x in lines if x["task"] == "mv8e_niah"]
    recall = [sum(n["actual_depth"] < 45 for n in rows[x["id"]]["needles"]) / 8 for x in multi]
    assert [(x["passed"], x["recall"]) for x in multi] == [(0, r) for r in recall] and 0 < min(recall) < 1  # per row
    scores = {r["config"]: r for r in csv.DictReader((report / "scores.csv").open(encoding="utf-8"))}
    assert scores["pl_mv8e_niah_8k"]["accuracy"] == "0.0"
    assert float(scores["pl_mv8e_niah_8k"]["recall"]) == pytest.approx(sum(recall) / len(recall))
