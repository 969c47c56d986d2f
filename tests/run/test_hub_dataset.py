"""``oneruler run ORG/NAME``: rows read from the loopback Hub stand-in (tests/hub_server.py; huggingface.co
cannot be reached here) by the real ``huggingface_hub`` and ``datasets``, sent with the real ``openai``
client to the vLLM stand-in (openai_server.py). Two real exports are pushed with ``oneruler push``:
seed 42 to ``main`` and seed 5 to branch ``v2`` (same configs and ids, other needles and words)."""

from __future__ import annotations

import hashlib
import json
import secrets

import pyarrow.parquet as pq
import pytest
from hub_client import client_env, oneruler, token_leaks
from hub_server import running_hub
from openai_server import Reply, ServerState, running_server

from builders.export.build import build_dataset
from builders.export.request import BuildRequest

REPO_ID = "my-org/oneruler"
CONFIGS = ["pl_s_niah_8k", "pl_cwe_easy_8k"]
COMPLETIONS = "/v1/chat/completions"


def exported_rows(export) -> dict[str, dict]:
    return {r["id"]: r for shard in sorted(export.glob("data/*/*.parquet")) for r in pq.read_table(shard).to_pylist()}


@pytest.fixture(scope="module")
def hub(tmp_path_factory, source_cache):
    """The stand-in Hub with ``main`` (seed 42) and ``v2`` (seed 5) pushed; the two exports' rows by branch."""
    token = "hf_" + secrets.token_hex(16)
    root = tmp_path_factory.mktemp("run-hub")
    exports = {"main": root / "main", "v2": root / "v2"}
    for seed, export in zip((42, 5), exports.values()):
        build_dataset(BuildRequest(CONFIGS, export, samples=2, seed=seed, cache_dir=str(source_cache), progress=False))
    with running_hub(token) as (endpoint, state):
        env = client_env(endpoint, root, token)
        for branch, export in exports.items():
            extra = [] if branch == "main" else ["--revision", branch]
            pushed = oneruler(["push", str(export), "--repo-id", REPO_ID, *extra], env, root)
            assert pushed.returncode == 0, pushed.stderr[-3000:]
        yield endpoint, state, token, exports, {b: exported_rows(e) for b, e in exports.items()}


def answering_server(rows_by_branch: dict[str, dict[str, dict]]) -> ServerState:
    """A server that knows each branch's prompts and answers each with that row's gold answer."""
    state = ServerState(max_model_len=8192)
    for branch, rows in rows_by_branch.items():
        for ident, row in rows.items():
            state.ids_by_prompt[row["input"]] = f"{branch}:{ident}"
            state.replies[f"{branch}:{ident}"] = Reply(" ".join(row["answers"]))
    return state


def test_run_records_the_pinned_commit_and_a_branch_gives_its_own_rows(hub, tmp_path):
    endpoint, state, token, exports, rows = hub
    assert {i: r["input"] for i, r in rows["main"].items()}.keys() == rows["v2"].keys()
    assert all(rows["main"][i]["input"] != rows["v2"][i]["input"] for i in rows["main"])  # the branches differ
    env = client_env(endpoint, tmp_path, token, OPENAI_API_KEY="")
    results, reads = [], {}
    with running_server(answering_server(rows)) as server:
        for branch in ("main", "v2"):
            before, sent = len(state.requests), len(server.state.requests(COMPLETIONS))
            extra = [] if branch == "main" else ["--revision", branch]
            res = oneruler(["run", REPO_ID, "pl_*", "--base-url", server.base_url, "--model", server.state.model,
                            "--out", str(tmp_path / f"{branch}.jsonl"), "--quiet", "--report", str(tmp_path / f"{branch}-report"),
                            *extra], env, tmp_path)
            assert res.returncode == 0, res.stderr[-3000:]
            results.append(res)
            reads[branch] = state.requests[before:]
            answered = {r.row for r in server.state.requests(COMPLETIONS)[sent:]}
            assert answered == {f"{branch}:{i}" for i in rows[branch]}  # that branch's prompts, every one

    for branch, export in exports.items():
        meta = json.loads((tmp_path / f"{branch}.meta.json").read_text(encoding="utf-8"))
        assert meta["dataset"] == {"name": REPO_ID, "revision": state.head("dataset", REPO_ID, branch),
                                   "manifest_sha256": hashlib.sha256((export / "manifest.json").read_bytes()).hexdigest()}
        lines = [json.loads(x) for x in (tmp_path / f"{branch}.jsonl").read_text(encoding="utf-8").splitlines()]
        assert {x["id"]: x["prediction"] for x in lines} == {i: " ".join(r["answers"]) for i, r in rows[branch].items()}
        # --report scores against the commit the run read: every answer right (main's gold would fail v2's)
        scores = json.loads((tmp_path / f"{branch}-report" / "scores.json").read_text(encoding="utf-8"))
        assert (scores["overall"]["passed"], scores["overall"]["counted"]) == (4, 4), branch
        sha = meta["dataset"]["revision"]
        hub_reads = [r.url for r in reads[branch] if r.origin == "hub" and r.url != "/api/agent-harnesses"]
        assert hub_reads[0] == f"/api/datasets/{REPO_ID}" + ("" if branch == "main" else f"/revision/{branch}")
        pinned = [u for u in hub_reads if u != hub_reads[0] and u != f"/api/datasets/{REPO_ID}/revision/{branch}"]
        assert pinned and all(sha in u for u in pinned), pinned  # card, manifest, tree, shards: all at the commit
    assert state.head("dataset", REPO_ID, "main") != state.head("dataset", REPO_ID, "v2")
    assert token_leaks(token, [r for b in reads.values() for r in b], results, [tmp_path]) == []


def test_an_unknown_revision_is_one_error_line_and_nothing_is_sent(hub, tmp_path):
    endpoint, state, token, _, _ = hub
    with running_server(ServerState(max_model_len=8192)) as server:
        res = oneruler(["run", REPO_ID, "--base-url", server.base_url, "--model", server.state.model, "--out",
                        str(tmp_path / "p.jsonl"), "--revision", "no-such-branch"],
                       client_env(endpoint, tmp_path, token, OPENAI_API_KEY=""), tmp_path)
        assert server.state.log == []
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: cannot open dataset '{REPO_ID}' at revision no-such-branch: ")
    assert f"the Hub dataset '{REPO_ID}' has no revision 'no-such-branch'" in lines[0]
    assert token not in res.stderr + res.stdout
    assert not (tmp_path / "p.jsonl").exists()
