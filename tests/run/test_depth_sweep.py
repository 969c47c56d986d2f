"""A position-controlled sweep end to end (issue 18): ``build --grid depth`` of one language plus a
multi-evidence config, ``run`` against the vLLM stand-in (openai_server.py) with the real ``openai``
client, then ``score``: the depth heatmap and per-value recall by position."""

from __future__ import annotations

import csv
import json

import pyarrow.parquet as pq
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
    single = {round(float(c["depth_low"]) * BINS / 100): c for c in cells if c["task"] == "s_niah"}
    assert sorted(single) == list(range(BINS))
    for b, cell in single.items():  # depth 10·b in bin b: two rows each, found up to 40 % only
        assert (int(cell["passed"]), int(cell["counted"])) == ((2, 2) if b < 5 else (0, 2)), cell
    evidence = {round(float(c["depth_low"]) * BINS / 100): c for c in cells if c["task"] == "mv8e_niah"}
    found = {b: (int(c["passed"]), int(c["counted"])) for b, c in evidence.items() if int(c["counted"])}
    # values at 6.25, 18.75, 31.25, 43.75 % are returned, those at 56.25 … 93.75 % are not (recall by position)
    assert found == {0: (2, 2), 2: (2, 2), 3: (2, 2), 4: (2, 2), 6: (0, 2), 7: (0, 2), 8: (0, 2), 10: (0, 2)}
    lines = [json.loads(x) for x in (report / "examples.jsonl").read_text(encoding="utf-8").splitlines()]
    multi = [x for x in lines if x["task"] == "mv8e_niah"]
    assert [(x["passed"], x["recall"]) for x in multi] == [(0, 0.5), (0, 0.5)]  # per-row recall: 4 of 8 values
    scores = {r["config"]: r for r in csv.DictReader((report / "scores.csv").open(encoding="utf-8"))}
    assert (scores["pl_mv8e_niah_8k"]["accuracy"], float(scores["pl_mv8e_niah_8k"]["recall"])) == ("0.0", 0.5)
