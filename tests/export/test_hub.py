"""Publishing with the real ``huggingface_hub`` client against the loopback Hub stand-in."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builders.export.build import build_dataset
from builders.export.manifest import read_manifest, write_manifest
from hub_server import running_hub

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def hub():
    token = "hf_" + secrets.token_hex(16)
    with running_hub(token) as (endpoint, state):
        yield endpoint, state, token


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory, source_cache):
    out = tmp_path_factory.mktemp("hub") / "oneruler"
    build_dataset(["it_s_niah_8k", "it_mv_niah_8k"], out, samples=2, cache_dir=str(source_cache), progress=False)
    return out


def run(args: list[str], endpoint: str, token: str | None, tmp: Path, source_cache: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(HF_ENDPOINT=endpoint, HF_HUB_DISABLE_XET="1", HF_HOME=str(tmp / "hf-home"), HF_HUB_OFFLINE="0",
               HF_HUB_DISABLE_TELEMETRY="1", ONERULER_CACHE=str(source_cache), PYTHONPATH=str(REPO))
    if token is not None:
        env["HF_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "builders.cli", *args], env=env, cwd=tmp, capture_output=True,
                          text=True, timeout=300)


def local_files(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in d.rglob("*") if p.is_file()}


def assert_token_never_leaked(token: str, state, results, roots: list[Path]) -> None:
    assert state.requests, "no request reached the stand-in Hub"
    for req in state.requests:
        headers = {k.lower(): v for k, v in req.headers.items()}
        if req.url.startswith("/lfs-upload/"):  # pre-signed storage URL: no credentials at all
            assert "authorization" not in headers
        else:
            assert headers.get("authorization") == f"Bearer {token}"  # the one place it belongs (control)
        assert token not in req.url
        assert token.encode() not in req.body
        assert all(token not in v for k, v in headers.items() if k != "authorization")
    for res in results:
        assert token not in res.stdout and token not in res.stderr
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file():
                assert token.encode() not in path.read_bytes(), f"token written to {path}"


def test_push_uploads_dir_byte_identical_in_one_commit(hub, export_dir, tmp_path, source_cache):
    endpoint, state, token = hub
    res = run(["push", str(export_dir), "--repo-id", "my-org/oneruler", "--private"], endpoint, token, tmp_path, source_cache)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "pushed" in res.stdout and "/datasets/my-org/oneruler/commit/" in res.stdout
    repo = state.repo("dataset", "my-org/oneruler")
    assert repo is not None and repo.private
    remote = state.files("dataset", "my-org/oneruler")
    assert remote.pop(".gitattributes")  # created by the Hub with the repo
    assert remote == local_files(export_dir)  # byte-identical, nothing more, nothing less
    commits = state.commits("dataset", "my-org/oneruler")
    assert len(commits) == 2 and commits[0]["summary"] == "initial commit"  # exactly one commit of ours
    ops = {op["key"] for op in commits[1]["operations"]}
    assert ops == {"file", "lfsFile"}  # README/manifest inline, shards through LFS
    paths = {r.method + " " + r.url.split("?")[0] for r in state.requests}
    assert "POST /api/repos/create" in paths
    assert any(p.startswith("POST /datasets/my-org/oneruler.git/info/lfs/objects/batch") for p in paths)
    assert any(p.startswith("PUT /lfs-upload/") for p in paths)
    assert_token_never_leaked(token, state, [res], [tmp_path, export_dir])


def test_second_push_replaces_stale_shards_on_a_branch(hub, export_dir, tmp_path, source_cache):
    endpoint, state, token = hub
    work = tmp_path / "oneruler"
    shutil.copytree(export_dir, work)
    r1 = run(["push", str(work), "--repo-id", "my-org/oneruler"], endpoint, token, tmp_path, source_cache)
    assert r1.returncode == 0, r1.stderr[-3000:]
    build_dataset(["it_s_niah_8k"], work, samples=2, seed=5, cache_dir=str(source_cache), progress=False,
                  force=True)  # another seed: every config of the export is rebuilt
    r2 = run(["push", str(work), "--repo-id", "my-org/oneruler", "--revision", "v2"], endpoint, token, tmp_path,
             source_cache)
    assert r2.returncode == 0, r2.stderr[-3000:]
    v2 = state.files("dataset", "my-org/oneruler", "v2")
    v2.pop(".gitattributes")
    assert v2 == local_files(work)  # the old shards were deleted in the same commit
    main = state.files("dataset", "my-org/oneruler", "main")
    main.pop(".gitattributes")
    assert main == local_files(export_dir)  # main untouched
    assert_token_never_leaked(token, state, [r1, r2], [tmp_path])


def test_push_refuses_a_corrupt_dir_and_sends_nothing(hub, export_dir, tmp_path, source_cache):
    endpoint, state, token = hub
    work = tmp_path / "oneruler"
    shutil.copytree(export_dir, work)
    shard = work / read_manifest(work)["configs"]["it_mv_niah_8k"]["file"]
    data = bytearray(shard.read_bytes())
    data[100] ^= 0xFF
    shard.write_bytes(bytes(data))
    res = run(["push", str(work), "--repo-id", "my-org/oneruler"], endpoint, token, tmp_path, source_cache)
    assert res.returncode == 1
    assert "it_mv_niah_8k" in res.stderr and "refusing to push" in res.stderr
    assert state.requests == []


def test_push_refuses_more_than_3000_configs(hub, export_dir, tmp_path, source_cache):
    endpoint, state, token = hub
    work = tmp_path / "oneruler"
    shutil.copytree(export_dir, work)
    manifest = read_manifest(work)
    template = manifest["configs"]["it_s_niah_8k"]
    for i in range(3001):
        manifest["configs"][f"it_s_niah_{i + 1}k_o200k"] = dict(template, tokenizer=dict(template["tokenizer"], alias="o200k"))
    write_manifest(work, manifest)
    res = run(["push", str(work), "--repo-id", "my-org/oneruler"], endpoint, token, tmp_path, source_cache)
    assert res.returncode == 2
    assert "3,003 configs" in res.stderr and "its own repository" in res.stderr
    assert state.requests == []


def test_push_without_token_says_how_to_log_in(hub, export_dir, tmp_path, source_cache):
    endpoint, state, _ = hub
    res = run(["push", str(export_dir), "--repo-id", "my-org/oneruler"], endpoint, None, tmp_path, source_cache)
    assert res.returncode == 2 and "hf auth login" in res.stderr and "HF_TOKEN" in res.stderr
    res = run(["push", str(export_dir), "--repo-id", "nonsense"], endpoint, "hf_x", tmp_path, source_cache)
    assert res.returncode == 2 and "ORG/NAME" in res.stderr
    assert state.requests == []


def test_push_metric_publishes_the_metric_folder_as_a_space(hub, tmp_path, source_cache):
    endpoint, state, token = hub
    res = run(["push-metric", "--repo-id", "my-org/oneruler-metric"], endpoint, token, tmp_path, source_cache)
    assert res.returncode == 0, res.stderr[-3000:]
    repo = state.repo("space", "my-org/oneruler-metric")
    assert repo is not None and repo.sdk == "gradio"
    remote = state.files("space", "my-org/oneruler-metric")
    remote.pop(".gitattributes")
    folder = REPO / "metrics" / "oneruler"
    from builders.export.metric import METRIC_SPACE_FILES

    expected = {k: v for k, v in local_files(folder).items() if k in METRIC_SPACE_FILES}
    # evaluate.load("ORG/NAME") fetches NAME.py: the module is uploaded under that name too
    expected["oneruler-metric.py"] = (folder / "oneruler.py").read_bytes()
    assert len(expected) == len(METRIC_SPACE_FILES) + 1 and remote == expected
    assert len(state.commits("space", "my-org/oneruler-metric")) == 2
    assert_token_never_leaked(token, state, [res], [tmp_path])
