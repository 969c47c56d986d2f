"""``oneruler score --dataset ORG/NAME``: a real export pushed with ``oneruler push`` to the loopback Hub
stand-in (tests/hub_server.py; huggingface.co cannot be reached here), then read back by the real
``huggingface_hub`` and ``datasets`` clients, must score exactly as the local folder does."""

from __future__ import annotations

import json
import secrets

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hub_client import client_env, oneruler, token_leaks
from hub_server import running_hub

from builders.base.files import sha256_file
from builders.cli import cli
from builders.export.build import build_dataset
from builders.export.request import BuildRequest

REPO_ID = "my-org/oneruler"
REPORT_FILES = ("scores.csv", "errors.csv", "examples.jsonl", "effective_length.csv", "depth.csv")


@pytest.fixture(scope="module")
def hub_export(tmp_path_factory, source_cache):
    """A real export of two configs (2 rows each), pushed to main of the stand-in by the real ``oneruler push``."""
    token = "hf_" + secrets.token_hex(16)
    export = tmp_path_factory.mktemp("score-hub") / "oneruler"
    build_dataset(BuildRequest(["pl_s_niah_8k", "pl_cwe_easy_8k"], export,
                               samples=2, cache_dir=str(source_cache), progress=False))
    home = tmp_path_factory.mktemp("pusher")
    with running_hub(token) as (endpoint, state):
        pushed = oneruler(["push", str(export), "--repo-id", REPO_ID], client_env(endpoint, home, token), home)
        assert pushed.returncode == 0, pushed.stderr[-3000:]
        yield export, endpoint, state, token


def write_predictions(export, path) -> None:
    """Index 0 of each config answered right, index 1 wrong (a wrong number; nine of the ten words)."""
    with path.open("w", encoding="utf-8") as out:
        for shard in sorted(export.glob("data/*/*.parquet")):
            for row in pq.read_table(shard).to_pylist():
                gold = row["answers"]
                answer = " ".join(gold) if row["index"] == 0 else ("1000001" if row["task"] == "s_niah" else " ".join(gold[:9]))
                out.write(json.dumps({"id": row["id"], "prediction": answer}) + "\n")


def test_scores_from_the_hub_equal_the_local_folders(hub_export, tmp_path):
    export, endpoint, state, token = hub_export
    preds = tmp_path / "preds.jsonl"
    write_predictions(export, preds)
    local = CliRunner().invoke(cli, ["score", str(preds), "--dataset", str(export), "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    before = len(state.requests)
    hub = oneruler(["score", str(preds), "--dataset", REPO_ID, "--out", str(tmp_path / "hub")],
                   client_env(endpoint, tmp_path, token), tmp_path)
    assert hub.returncode == 0, hub.stderr[-3000:]
    for name in REPORT_FILES:
        assert (tmp_path / "hub" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name
    scores = json.loads((tmp_path / "hub" / "scores.json").read_text(encoding="utf-8"))
    local_scores = json.loads((tmp_path / "local" / "scores.json").read_text(encoding="utf-8"))
    # the same scores; only where the rows came from differs: the Hub copy is identified by its commit and by the
    # same manifest as the folder (so reports of the two can be paired)
    assert scores.pop("dataset") == {"name": REPO_ID, "revision": state.head("dataset", REPO_ID),
                                     "manifest_sha256": sha256_file(export / "manifest.json")}
    assert local_scores.pop("dataset")["manifest_sha256"] == sha256_file(export / "manifest.json")
    assert scores == local_scores
    assert {g["config"]: (g["passed"], g["counted"]) for g in scores["groups"]} == {
        "pl_s_niah_8k": (1, 2), "pl_cwe_easy_8k": (1, 2)}  # the predictions' design: the rows were really read

    requests = state.requests[before:]
    head = state.head("dataset", REPO_ID)
    hub_reads = [r.url for r in requests if r.origin == "hub" and r.url != "/api/agent-harnesses"]
    assert hub_reads[0] == f"/api/datasets/{REPO_ID}"  # main pinned to its commit first ...
    assert all("/main/" not in url for url in hub_reads[1:]), hub_reads  # ... then card and rows at that commit
    assert any(url == f"/datasets/{REPO_ID}/resolve/{head}/README.md" for url in hub_reads)
    shards = sorted(p.relative_to(export).as_posix() for p in export.glob("data/*/*.parquet"))
    fetched = [r.url.partition("?")[0] for r in requests if r.origin == "storage"]
    assert len(fetched) == len(shards)  # each LFS shard came from storage (pre-signed, no token) once
    assert token_leaks(token, requests, [hub], [tmp_path]) == []


def test_an_unknown_repo_is_one_error_line(hub_export, tmp_path):
    export, endpoint, state, token = hub_export
    preds = tmp_path / "preds.jsonl"
    write_predictions(export, preds)
    res = oneruler(["score", str(preds), "--dataset", "my-org/no-such-repo"], client_env(endpoint, tmp_path, token), tmp_path)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot open dataset 'my-org/no-such-repo' at revision main")
    assert "the Hub has no dataset 'my-org/no-such-repo'" in lines[0] and token not in res.stderr + res.stdout
