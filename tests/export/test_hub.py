"""Publishing with the real ``huggingface_hub`` client against the loopback Hub stand-in."""

from __future__ import annotations

import dataclasses

import hashlib
import json
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builders.export.build import build_dataset
from builders.export.manifest import read_manifest
from builders.export.request import BuildRequest
from hand_edit import write_manifest
from hub_client import client_env, oneruler, token_leaks
from hub_server import GITATTRIBUTES, running_hub

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def hub():
    token = "hf_" + secrets.token_hex(16)
    with running_hub(token) as (endpoint, state):
        yield endpoint, state, token


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory, source_cache):
    out = tmp_path_factory.mktemp("hub") / "oneruler"
    build_dataset(BuildRequest(["it_s_niah_8k", "it_mv_niah_8k"], out,
                               samples=2, cache_dir=str(source_cache), progress=False))
    return out


def run(args: list[str], endpoint: str, token: str | None, tmp: Path, source_cache: Path):
    return oneruler(args, client_env(endpoint, tmp, token, ONERULER_CACHE=str(source_cache)), tmp)


def local_files(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in d.rglob("*") if p.is_file()}


def assert_token_never_leaked(token: str, state, results, roots: list[Path]) -> None:
    assert state.requests, "no request reached the stand-in Hub"
    assert token_leaks(token, state.requests, results, roots) == []


def test_push_uploads_dir_byte_identical_in_one_commit(hub, export_dir, tmp_path, source_cache):
    endpoint, state, token = hub
    res = run(["push", str(export_dir), "--repo-id", "my-org/oneruler", "--private"], endpoint, token, tmp_path, source_cache)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "pushed" in res.stdout and "/datasets/my-org/oneruler/commit/" in res.stdout
    assert "warning" not in res.stderr  # ONERULER's books: nothing to warn about
    repo = state.repo("dataset", "my-org/oneruler")
    assert repo is not None and repo.private
    remote = state.files("dataset", "my-org/oneruler")
    assert remote.pop(".gitattributes")  # created by the Hub with the repo
    assert remote == local_files(export_dir)  # byte-identical, nothing more, nothing less
    commits = state.commits("dataset", "my-org/oneruler")
    assert len(commits) == 2 and commits[0].summary == "initial commit"  # exactly one commit of ours
    ops = {op["key"] for op in commits[1].operations}
    assert ops == {"file", "lfsFile"}  # README/manifest inline, shards through LFS
    paths = {r.method + " " + r.url.split("?")[0] for r in state.requests}
    assert "POST /api/repos/create" in paths
    assert any(p.startswith("POST /datasets/my-org/oneruler.git/info/lfs/objects/batch") for p in paths)
    assert any(p.startswith("PUT /lfs-upload/") for p in paths)  # to the storage origin, without the token
    assert_token_never_leaked(token, state, [res], [tmp_path, export_dir])


def test_second_push_replaces_stale_shards_on_a_branch(hub, export_dir, tmp_path, source_cache):
    endpoint, state, token = hub
    work = tmp_path / "oneruler"
    shutil.copytree(export_dir, work)
    r1 = run(["push", str(work), "--repo-id", "my-org/oneruler"], endpoint, token, tmp_path, source_cache)
    assert r1.returncode == 0, r1.stderr[-3000:]
    build_dataset(BuildRequest(["it_s_niah_8k"], work, samples=2, seed=5, cache_dir=str(source_cache), progress=False,
                               force=True))  # another seed: every config of the export is rebuilt
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


def test_push_warns_in_one_line_before_publishing_essays_then_pushes(hub, tmp_path, source_cache):
    endpoint, state, token = hub
    out = tmp_path / "essays"
    build_dataset(BuildRequest(["en_ruler_niah_single_2_4096", "en_ruler_niah_single_1_4096"], out, samples=1,
                               cache_dir=str(source_cache), progress=False))
    res = run(["push", str(out), "--repo-id", "my-org/essays"], endpoint, token, tmp_path, source_cache)
    assert res.returncode == 0, res.stderr[-3000:]
    assert [line for line in res.stderr.splitlines() if "warning" in line] == [
        "warning: 1 config (en_ruler_niah_single_2_4096) holds Paul Graham's essays as haystacks: his writing, "
        "licensed neither by this project nor by the repository that collects them; publish them only where you may "
        "(the card says so)"]
    remote = state.files("dataset", "my-org/essays")
    remote.pop(".gitattributes")
    assert remote == local_files(out)
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "These essays are Paul Graham's writing" in card and "`en_ruler_niah_single_1_4096`" in card


def test_push_refuses_a_corrupt_dir_and_sends_nothing(hub, export_dir, tmp_path, source_cache):
    endpoint, state, token = hub
    work = tmp_path / "oneruler"
    shutil.copytree(export_dir, work)
    shard = work / read_manifest(work).configs["it_mv_niah_8k"].file
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
    template = manifest.configs["it_s_niah_8k"]
    o200k = dataclasses.replace(template, tokenizer=dataclasses.replace(template.tokenizer, alias="o200k"))
    for i in range(3001):
        manifest.configs[f"it_s_niah_{i + 1}k_o200k"] = o200k
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
    from builders.export.metric import metric_space_files

    space_files = metric_space_files()  # the metric's files and the scoring package, module by module
    assert {"oneruler.py", "oneruler_tasks.py", "example_score.py", "__init__.py"} <= set(space_files)
    expected = {k: v for k, v in local_files(folder).items() if k in space_files}
    # evaluate.load("ORG/NAME") fetches NAME.py: the module is uploaded under that name too
    expected["oneruler-metric.py"] = (folder / "oneruler.py").read_bytes()
    assert len(expected) == len(space_files) + 1 and remote == expected
    assert len(state.commits("space", "my-org/oneruler-metric")) == 2
    assert_token_never_leaked(token, state, [res], [tmp_path])


READ_BACK = """
import json, sys
from huggingface_hub import HfApi, HfFileSystem

repo, api, fs = sys.argv[1], HfApi(), HfFileSystem()


def entry(e):
    out = {"path": e.path, "folder": not hasattr(e, "size"), "last_commit": e.last_commit and e.last_commit.oid}
    if hasattr(e, "size"):
        out.update(size=e.size, blob_id=e.blob_id, lfs=e.lfs and [e.lfs.sha256, e.lfs.size])
    return out


info = api.dataset_info(repo, files_metadata=True)
shards = sorted(fs.glob(f"datasets/{repo}/data/*/*.parquet"))
with fs.open(shards[0], "rb", block_size=64) as f:
    f.seek(100)
    part = f.read(50).hex()
print(json.dumps({
    "sha": info.sha,
    "siblings": {s.rfilename: [s.size, s.blob_id, s.lfs and [s.lfs.sha256, s.lfs.size]] for s in info.siblings},
    "tree": [entry(e) for e in api.list_repo_tree(repo, repo_type="dataset", recursive=True, expand=True)],
    "top": [entry(e) for e in api.list_repo_tree(repo, repo_type="dataset")],
    "paths": [entry(e) for e in api.get_paths_info(repo, ["README.md", "data", "no-such-file"], repo_type="dataset",
                                                   expand=True)],
    "files": api.list_repo_files(repo, repo_type="dataset"),
    "shards": shards, "part": part, "size": fs.info(shards[0])["size"],
}))
"""


def test_what_push_wrote_reads_back_through_the_hub_api(hub, export_dir, tmp_path, source_cache):
    """The stand-in's read endpoints, through the real HfApi and HfFileSystem, with facts computed from the folder."""
    endpoint, state, token = hub
    res = run(["push", str(export_dir), "--repo-id", "my-org/oneruler"], endpoint, token, tmp_path, source_cache)
    assert res.returncode == 0, res.stderr[-3000:]
    before = len(state.requests)
    read = subprocess.run([sys.executable, "-c", READ_BACK, "my-org/oneruler"], capture_output=True, text=True,
                          env=client_env(endpoint, tmp_path, token), timeout=300)
    assert read.returncode == 0, read.stderr[-3000:]
    got = json.loads(read.stdout)
    files = local_files(export_dir) | {".gitattributes": GITATTRIBUTES}  # the Hub creates it with the repo
    first, pushed = [c.oid for c in state.commits("dataset", "my-org/oneruler")]
    assert got["sha"] == pushed
    git_sha1 = {p: hashlib.sha1(b"blob %d\0" % len(d) + d).hexdigest() for p, d in files.items()}
    lfs = {p: [hashlib.sha256(d).hexdigest(), len(d)] for p, d in files.items() if p.endswith(".parquet")}
    assert {p: (size, lfs_info) for p, (size, _, lfs_info) in got["siblings"].items()} == \
        {p: (len(d), lfs.get(p)) for p, d in files.items()}
    assert all(got["siblings"][p][1] == git_sha1[p] for p in files if p not in lfs)  # regular files: git blob ids
    assert got["files"] == sorted(files)
    shards = sorted(lfs)
    folders = sorted({"data"} | {p.rsplit("/", 1)[0] for p in shards})
    assert [(e["path"], e["folder"]) for e in got["tree"]] == sorted([(p, False) for p in files] + [(p, True) for p in folders])
    for e in got["tree"]:
        assert e["last_commit"] == (first if e["path"] == ".gitattributes" else pushed), e  # the commit that last touched it
        if not e["folder"]:
            assert (e["size"], e["lfs"]) == (len(files[e["path"]]), lfs.get(e["path"]))
    assert [(e["path"], e["folder"]) for e in got["top"]] == [(".gitattributes", False), ("README.md", False),
                                                             ("data", True), ("manifest.json", False)]
    assert [(e["path"], e["folder"], e["last_commit"]) for e in got["paths"]] == [("README.md", False, pushed),
                                                                                 ("data", True, pushed)]
    assert got["shards"] == [f"datasets/my-org/oneruler/{p}" for p in shards]
    assert bytes.fromhex(got["part"]) == files[shards[0]][100:150] and got["size"] == len(files[shards[0]])
    ranged = [r for r in state.requests[before:] if r.origin == "storage"]
    assert ranged and all("range" in {k.lower() for k in r.headers} for r in ranged)  # read in blocks, not whole
    assert token_leaks(token, state.requests, [res, read], [tmp_path]) == []
