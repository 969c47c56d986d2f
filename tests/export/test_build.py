"""Export: real Parquet shards, manifest, README, real ``datasets.load_dataset``, resume after a kill."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from builders.base.errors import OneRulerError
from builders.base.files import sha256_file
from builders.cli.handler import flag_of
from builders.export import shard as shard_module
from builders.export.build import build_dataset
from builders.export.frontmatter import parse_front_matter
from builders.export.manifest import read_manifest
from builders.export.request import BuildRequest
from builders.export.shard import write_shard
from builders.spec.schema import CORE_FEATURES, features_of

REPO = Path(__file__).resolve().parents[2]


def sub_env(tmp: Path, source_cache: Path) -> dict:
    """Environment of a subprocess: mirror/tokenizers from ../shared, offline, private HF caches."""
    env = dict(os.environ)
    env.update(
        ONERULER_CACHE=str(source_cache), HF_HOME=str(tmp / "hf-home"), HF_DATASETS_CACHE=str(tmp / "hf-datasets"),
        HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1",
    )
    return env


def cli(args: list[str], env: dict, cwd: Path = REPO, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "builders.cli", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def hand_row(config: str, index: int, text: str) -> dict:
    """A row with the real schema, written by hand (no generator involved)."""
    return {
        "id": f"{config}/{index}", "config": config, "task": "s_niah", "context_language": "en",
        "instruction_language": "en", "length": 8000, "tokenizer": "cl100k_base", "input": text,
        "answers": [str(1_000_000 + index)], "num_tokens": 100 + index,
        "needles": [{"key": "apple", "value": str(1_000_000 + index), "depth": 50, "actual_depth": 49.5,
                     "token_depth": 50.2}], "queries": ["apple"],
        "context_span": [5, len(text) - 5], "index": index, "seed": 42, "reserve": 30, "budget": 7970,
        "num_units": 10,
    }


HAYSTACK = " ".join(f"Sentence number {i} of a long shared haystack about nothing in particular." for i in range(3000))


def test_write_shard_is_content_addressed_zstd_and_round_trips(tmp_path):
    rows = [hand_row("en_s_niah_8k", i, f"Task. {HAYSTACK[: 100_000 + i]} Question?") for i in range(50)]
    info = write_shard(iter(rows), tmp_path, "en_s_niah_8k", features_of("s_niah").arrow_schema)
    path = tmp_path / info.file
    assert info.file == f"data/en_s_niah_8k/test-{info.sha256[:16]}.parquet"
    assert sha256_file(path) == info.sha256 and path.stat().st_size == info.size
    pf = pq.ParquetFile(path)
    assert pf.schema_arrow.remove_metadata() == CORE_FEATURES.arrow_schema.remove_metadata()  # NIAH: the core only
    md = pf.metadata
    assert md.num_rows == 50 and md.num_row_groups == 1  # rows of one config compress together
    input_col = pf.schema_arrow.get_field_index("input")
    assert md.row_group(0).column(input_col).compression == "ZSTD"
    raw = sum(len(r["input"].encode()) for r in rows)
    assert info.size * 20 < raw, f"shared haystack should compress >20x, got {raw / info.size:.1f}x"
    assert pq.read_table(path).to_pylist() == rows
    assert info.stats.num_tokens_min == 100 and info.stats.num_tokens_max == 149
    # Same rows -> same bytes and name; no temp files left behind.
    again = write_shard(iter(rows), tmp_path / "again", "en_s_niah_8k", features_of("s_niah").arrow_schema)
    assert again.sha256 == info.sha256
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_row_groups_are_capped_for_the_hub_viewer(tmp_path, monkeypatch):
    monkeypatch.setattr(shard_module, "ROW_GROUP_MAX_BYTES", 1_000_000)
    rows = [hand_row("en_s_niah_8k", i, HAYSTACK[:200_000]) for i in range(11)]
    info = write_shard(rows, tmp_path, "en_s_niah_8k", features_of("s_niah").arrow_schema)
    md = pq.ParquetFile(tmp_path / info.file).metadata
    # A group is cut once it holds >= 1 MB of text: 5 rows of 200 KB, 5 more, then the last one.
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == [5, 5, 1]
    assert pq.read_table(tmp_path / info.file).to_pylist() == rows


def test_write_shard_rejects_rows_of_another_config(tmp_path):
    with pytest.raises(Exception, match="pl_s_niah_8k"):
        write_shard([hand_row("en_s_niah_8k", 0, "x")], tmp_path, "pl_s_niah_8k", features_of("s_niah").arrow_schema)
    assert not list((tmp_path / "data" / "pl_s_niah_8k").iterdir())  # temp file removed


CONFIGS = ["pl_s_niah_8k", "pl_cwe_easy_8k", "ko-en_mq_niah_8k"]


@pytest.fixture(scope="module")
def built(tmp_path_factory, source_cache):
    """A real export named ``oneruler`` (3 configs x 3 examples) built in-process."""
    root = tmp_path_factory.mktemp("export")
    out = root / "oneruler"
    summary = build_dataset(BuildRequest(CONFIGS, out, samples=3, seed=42, cache_dir=str(source_cache), progress=False))
    assert sorted(summary.built) == sorted(CONFIGS) and not summary.skipped
    return out


def test_readme_yaml_parses_and_matches_dir(built):
    manifest = read_manifest(built)
    readme = (built / "README.md").read_text(encoding="utf-8")
    meta = parse_front_matter(readme)
    assert yaml.safe_load(readme.split("---\n")[1]) == meta
    on_disk = sorted(p.relative_to(built).as_posix() for p in (built / "data").rglob("*") if p.is_file())
    declared = sorted(d["path"] for c in meta["configs"] for d in c["data_files"])
    assert declared == on_disk == sorted(e.file for e in manifest.configs.values())
    assert [c["config_name"] for c in meta["configs"]] == sorted(CONFIGS)
    assert all(c["data_files"][0]["split"] == "test" for c in meta["configs"])
    assert "dataset_info" not in meta  # features come from the Parquet schema
    assert meta["license"] == "mit" and meta["pretty_name"] == "ONERULER"
    assert meta["language"] == ["en", "ko", "pl"]
    assert meta["size_categories"] == ["n<1K"]
    assert "question-answering" in meta["task_categories"]
    assert "{{" not in readme


def test_manifest_records_checksums_and_inputs(built):
    manifest = read_manifest(built)
    assert set(manifest.configs) == set(CONFIGS)
    for name, entry in manifest.configs.items():
        data = (built / entry.file).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry.sha256 and len(data) == entry.size
        assert entry.seed == 42 and entry.samples == 3 and entry.num_rows == 3
        assert entry.tokenizer.identity == "cl100k_base" and len(entry.tokenizer.fingerprint) == 64
        assert entry.packages["pyarrow"] and entry.packages["datasets"]
    assert manifest.sources and all(len(h) == 64 for h in manifest.sources.values())
    assert any(p.endswith("100_noun_list_translated.tsv") for p in manifest.sources)
    assert {f["name"] for f in manifest.facts["fixes"]} >= {"cwe_korean_homograph_digits"}
    source_of = {f["name"]: f["source"] for f in manifest.facts["fixes"]}  # the role of the file each fix corrected
    assert source_of["cwe_korean_homograph_digits"] == "dictionary" and source_of["footnote_markers"] == "book"
    assert source_of["cwe_template_duplicate_context"] == "cwe_prompt"
    assert len(manifest.facts["books"]) == 26
    text = (built / "manifest.json").read_text(encoding="utf-8")
    assert "time" not in json.loads(text)  # reproducible: no timestamps


def test_load_dataset_offline_by_path_by_name_and_streaming(built, tmp_path, source_cache):
    script = textwrap.dedent(f"""
        import json, os
        from datasets import load_dataset
        out = {{}}
        ds = load_dataset({str(built)!r}, "pl_s_niah_8k", split="test")
        out["path"] = [len(ds), ds[0]["id"], ds[0]["answers"], ds.features == __import__("builders.spec.schema").spec.schema.features_of("s_niah")]
        # The README declares no features: they come from the shard's Parquet schema, and the rows
        # are those of reading the shard directly.
        shard = json.load(open(os.path.join({str(built)!r}, "manifest.json")))["configs"]["pl_s_niah_8k"]["file"]
        direct = load_dataset("parquet", data_files={{"test": os.path.join({str(built)!r}, shard)}}, split="test")
        out["direct"] = [ds.features == direct.features, ds.to_list() == direct.to_list()]
        os.chdir({str(built.parent)!r})
        ds2 = load_dataset("oneruler", "ko-en_mq_niah_8k", split="test")
        out["name"] = [len(ds2), ds2[2]["id"], ds2[0]["instruction_language"]]
        it = load_dataset("oneruler", "pl_cwe_easy_8k", split="test", streaming=True)
        out["stream"] = [r["id"] for r in it]
        print(json.dumps(out))
    """)
    env = sub_env(tmp_path, source_cache)
    proc = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["path"][0] == 3 and got["path"][1] == "pl_s_niah_8k/0" and got["path"][3] is True
    assert got["direct"] == [True, True]
    assert got["name"] == [3, "ko-en_mq_niah_8k/2", "en"]
    assert got["stream"] == [f"pl_cwe_easy_8k/{i}" for i in range(3)]


def test_num_proc_gives_byte_identical_exports(tmp_path, source_cache):
    names = ["en_s_niah_8k", "en_cwe_hard_8k", "ja_mv_niah_8k"]
    a = build_dataset(BuildRequest(names, tmp_path / "a",
                                   samples=2, num_proc=1, cache_dir=str(source_cache), progress=False))
    b = build_dataset(BuildRequest(list(reversed(names)), tmp_path / "b",
                                   samples=2, num_proc=2, cache_dir=str(source_cache), progress=False))
    assert sorted(a.built) == sorted(b.built) == sorted(names)

    def files(d: Path) -> dict:
        return {p.relative_to(d).as_posix(): p.read_bytes() for p in d.rglob("*") if p.is_file()}

    fa, fb = files(tmp_path / "a"), files(tmp_path / "b")
    assert fa.keys() == fb.keys()
    assert all(fa[k] == fb[k] for k in fa), [k for k in fa if fa[k] != fb[k]]


def test_adding_configs_keeps_readme_exact_and_skips_finished(tmp_path, source_cache):
    out = tmp_path / "oneruler"
    build_dataset(BuildRequest(["sw_s_niah_8k"], out, samples=2, cache_dir=str(source_cache), progress=False))
    s2 = build_dataset(BuildRequest(["sw_s_niah_8k", "sw_none_niah_8k"], out,
                                    samples=2, cache_dir=str(source_cache), progress=False))
    assert s2.skipped == ["sw_s_niah_8k"] and s2.built == ["sw_none_niah_8k"]
    meta = parse_front_matter((out / "README.md").read_text(encoding="utf-8"))
    assert [c["config_name"] for c in meta["configs"]] == ["sw_none_niah_8k", "sw_s_niah_8k"]
    # Another seed is refused (an export holds one), --force rebuilds every config with it; the old
    # shards are removed, the README points at the new ones.
    old = {n: e.file for n, e in read_manifest(out).configs.items()}
    with pytest.raises(OneRulerError, match=r"holds configs built with seed 42 samples 2 \(2 configs\).*seed 7") as info:
        build_dataset(BuildRequest(["sw_s_niah_8k"], out,
                                   samples=2, seed=7, cache_dir=str(source_cache), progress=False))
    assert re.search(r"holds configs built with --seed 42 --samples 2 \(2 configs\).*--seed 7.*pass --force",
                     info.value.worded(flag_of))  # the settings, as the command line names them
    assert {n: e.file for n, e in read_manifest(out).configs.items()} == old
    s3 = build_dataset(BuildRequest(["sw_s_niah_8k"], out,
                                    samples=2, seed=7, cache_dir=str(source_cache), progress=False, force=True))
    new = {n: e.file for n, e in read_manifest(out).configs.items()}
    assert sorted(s3.built) == ["sw_none_niah_8k", "sw_s_niah_8k"] and set(new.values()).isdisjoint(old.values())
    assert {e.seed for e in read_manifest(out).configs.values()} == {7}
    assert not any((out / f).exists() for f in old.values()) and all((out / f).exists() for f in new.values())
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert all(f in readme for f in new.values())


def test_stale_cache_regression_new_rows_after_rewrite(tmp_path, source_cache):
    """Rewriting a config with other content must not be served from the datasets cache."""
    from datasets import load_dataset

    out = tmp_path / "oneruler"
    cache = tmp_path / "datasets-cache"
    build_dataset(BuildRequest(["fi_s_niah_8k"], out, samples=3, seed=1, cache_dir=str(source_cache), progress=False))
    first = load_dataset(str(out), "fi_s_niah_8k", split="test", cache_dir=str(cache))
    assert set(first["seed"]) == {1}
    build_dataset(BuildRequest(["fi_s_niah_8k"], out,
                               samples=3, seed=2, cache_dir=str(source_cache), progress=False, force=True))
    second = load_dataset(str(out), "fi_s_niah_8k", split="test", cache_dir=str(cache))
    assert len(second) == 3 and set(second["seed"]) == {2}
    assert list(second["answers"]) != list(first["answers"])


def _staged(out: Path) -> int:
    journal = out / ".oneruler-build" / "journal.jsonl"
    return len(journal.read_text(encoding="utf-8").splitlines()) if journal.exists() else 0


def test_killed_build_commits_nothing_half_and_resumes_from_its_journal(tmp_path, source_cache):
    out = tmp_path / "oneruler"
    env = sub_env(tmp_path, source_cache)
    first = cli(["build", "pl_s_niah_8k", "--out", str(out), "--samples", "3", "--quiet"], env)
    assert first.returncode == 0, first.stderr[-3000:]
    readme_before = (out / "README.md").read_bytes()
    cmd = [sys.executable, "-m", "builders.cli", "build", "pl_*_8k", "pl_*_32k", "--out", str(out), "--samples", "3", "--quiet"]
    proc = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None and _staged(out) < 2:
            time.sleep(0.02)
        assert proc.poll() is None, "the build finished before it could be interrupted; make it longer"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    n_staged = _staged(out)
    assert 2 <= n_staged < 15
    # README and manifest are written once, at the end: the killed build left them as they were.
    assert (out / "README.md").read_bytes() == readme_before
    assert list(read_manifest(out).configs) == ["pl_s_niah_8k"]
    meta = parse_front_matter(readme_before.decode("utf-8"))
    on_disk = sorted(p.relative_to(out).as_posix() for p in (out / "data").rglob("*") if p.is_file())
    assert on_disk == [c["data_files"][0]["path"] for c in meta["configs"]]
    from datasets import load_dataset

    ds = load_dataset(str(out), "pl_s_niah_8k", split="test", cache_dir=str(tmp_path / "dc"))
    assert len(ds) == 3
    # Resume: the finished config and the staged ones are skipped, the rest built; README lists all 16.
    res = cli(["build", "pl_*_8k", "pl_*_32k", "--out", str(out), "--samples", "3", "--quiet"], env)
    assert res.returncode == 0, res.stderr[-3000:]
    skipped = 1 + n_staged
    assert f"skipping {skipped} config(s)" in res.stderr
    assert f"built {16 - skipped}, skipped {skipped}" in res.stdout
    meta = parse_front_matter((out / "README.md").read_text(encoding="utf-8"))
    assert len(meta["configs"]) == 16
    assert not [p for p in out.rglob(".tmp-*")] and not (out / ".oneruler-build").exists()
    # the recovered shards are the bytes a fresh build makes
    fresh = tmp_path / "fresh"
    assert cli(["build", "pl_*_8k", "pl_*_32k", "--out", str(fresh), "--samples", "3", "--quiet"], env).returncode == 0
    assert read_manifest(fresh).configs == read_manifest(out).configs


def test_cli_errors_are_clear(tmp_path, source_cache):
    env = sub_env(tmp_path, source_cache)
    res = cli(["build", "xx_*", "--out", str(tmp_path / "o")], env)
    assert res.returncode == 2 and "matches no config" in res.stderr and res.stdout == ""
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    res = cli(["build", "pl_s_niah_8k", "--out", str(tmp_path / "full")], env)
    assert res.returncode == 2 and "not empty" in res.stderr
    res = cli(["build", "pl_s_niah_8k", "--out", str(tmp_path / "o"), "--samples", "0"], env)
    assert res.returncode == 2 and "--samples" in res.stderr


def assert_export_is_exact(out: Path) -> dict:
    """Every shard the manifest lists exists with its checksum, nothing else is on disk, README == manifest."""
    from builders.export.card import render_readme
    from builders.export.manifest import check_shards

    manifest = read_manifest(out)
    assert manifest is not None and manifest.configs
    assert not any(check_shards(out, manifest).values()), check_shards(out, manifest)
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    listed = sorted(e.file for e in manifest.configs.values())
    assert on_disk == sorted(["README.md", "manifest.json", *listed])  # no lock file, staging or temp file
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_dir()) == sorted(
        {"data", *(str(Path(f).parent) for f in listed)})
    assert (out / "README.md").read_text(encoding="utf-8") == render_readme(manifest)
    return manifest


def _run_together(commands: list[list[str]], env: dict) -> list[tuple[int, str, str]]:
    procs = [subprocess.Popen([sys.executable, "-m", "builders.cli", *c], env=env, cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for c in commands]
    results = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=600)
        results.append((proc.returncode, stdout, stderr))
    return results


def test_two_builds_into_one_new_folder_never_lose_data(tmp_path, source_cache):
    """Overlapping config sets at once, without --wait: each succeeds or fails at once with a clear line."""
    out = tmp_path / "oneruler"
    env = sub_env(tmp_path, source_cache)
    sets = [["pl_s_niah_8k", "pl_mk_niah_8k"], ["pl_mk_niah_8k", "pl_mv_niah_8k"]]
    results = _run_together([["build", *s, "--out", str(out), "--samples", "1", "--quiet"] for s in sets], env)
    built = set()
    for names, (code, stdout, stderr) in zip(sets, results):
        assert "Traceback" not in stderr
        if code == 0:
            built |= set(names)
            continue
        errors = [line for line in stderr.splitlines() if line.startswith("error:")]
        assert code == 2 and len(errors) == 1 and stdout == "", stderr
        assert f"{out}: locked by another `oneruler build`" in errors[0] and "--wait SECONDS" in errors[0]
    assert built, results
    assert set(assert_export_is_exact(out).configs) == built


def test_two_builds_into_an_existing_export_wait_for_each_other(tmp_path, source_cache):
    out = tmp_path / "oneruler"
    env = sub_env(tmp_path, source_cache)
    first = cli(["build", "ko_s_niah_8k", "ko_mk_niah_8k", "--out", str(out), "--samples", "1", "--quiet"], env)
    assert first.returncode == 0, first.stderr
    sets = [["ko_mk_niah_8k", "ko_mv_niah_8k", "ko_mq_niah_8k"], ["ko_mv_niah_8k", "ko_none_niah_8k"]]
    results = _run_together([["build", *s, "--out", str(out), "--samples", "1", "--quiet", "--wait", "300"]
                             for s in sets], env)
    assert [r[0] for r in results] == [0, 0], [r[2] for r in results]
    waited = [r for r in results if "waiting up to 300 s for another `oneruler build`" in r[2]]
    assert len(waited) <= 1  # at most the second one waited (they may also not have overlapped)
    manifest = assert_export_is_exact(out)
    assert sorted(manifest.configs) == sorted(f"ko_{t}_8k" for t in ("s_niah", "mk_niah", "mv_niah", "mq_niah", "none_niah"))


def _process_table() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, start time) of every process, read from /proc (Linux)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue  # exited meanwhile
        fields = stat[stat.rfind(")") + 2:].split()
        table[int(entry)] = (int(fields[1]), fields[0], fields[19])
    return table


def _descendants(pid: int) -> dict[int, str]:
    table, found, todo = _process_table(), {}, [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, _, started) in table.items():
            if ppid == parent and child not in found:
                found[child] = started
                todo.append(child)
    return found


def test_a_sigkilled_parallel_build_leaves_no_process_alive(tmp_path, source_cache):
    """Workers and the resource tracker go away on their own within seconds of the parent's SIGKILL."""
    env = sub_env(tmp_path, source_cache)
    proc = subprocess.Popen([sys.executable, "-m", "builders.cli", "build", "pl_*_32k", "--out", str(tmp_path / "o"),
                             "--samples", "3", "--num-proc", "2", "--quiet"], env=env, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    children: dict[int, str] = {}
    try:
        while time.monotonic() < deadline and proc.poll() is None and len(children) < 3:
            time.sleep(0.1)
            children = _descendants(proc.pid)  # 2 workers + multiprocessing's resource tracker
        assert proc.poll() is None and len(children) >= 3, children
        time.sleep(1)  # the workers are building
        children = _descendants(proc.pid)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)

    def alive() -> list[int]:
        table = _process_table()
        return [pid for pid, started in children.items()
                if pid in table and table[pid][2] == started and table[pid][1] != "Z"]

    until = time.monotonic() + 20  # they exit within ~1 s; the margin is for a loaded CI machine
    while alive() and time.monotonic() < until:
        time.sleep(0.2)
    left = {pid: (Path(f"/proc/{pid}/cmdline").read_bytes()[:120], Path(f"/proc/{pid}/status").read_text()[:300])
            for pid in alive()}
    assert not left, left


def test_progress_is_plain_lines_on_a_pipe_and_a_short_cwe_config_warns(tmp_path, source_cache):
    """No carriage-return redraws in a log; the config whose word pool ran out says so with its lengths."""
    out = tmp_path / "oneruler"
    res = cli(["build", "ko_cwe_easy_128k", "pl_s_niah_8k", "--out", str(out), "--samples", "1"],
              sub_env(tmp_path, source_cache))
    assert res.returncode == 0, res.stderr
    assert "\r" not in res.stderr and "\x1b" not in res.stderr
    lines = res.stderr.splitlines()
    assert re.fullmatch(r"\[1/2\] built ko_cwe_easy_128k \(\d+\.\d s\)", lines[0]), lines
    stats = read_manifest(out).configs["ko_cwe_easy_128k"].stats
    assert stats.pool_exhausted == 1 and stats.num_tokens_min < 0.9 * stats.budget
    warnings = [line for line in lines if line.startswith("warning:")]
    assert warnings == [
        f"warning: ko_cwe_easy_128k: the word pool ({stats.pool_size} words) ran out: 1 of 1 example(s) are "
        f"short, reaching {stats.num_tokens_min:,} of {stats.budget:,} tokens "
        f"({100 * stats.num_tokens_min / stats.budget:.0f} %)"
    ]
    assert re.fullmatch(r"\[2/2\] built pl_s_niah_8k \(\d+\.\d s\)", lines[-1]), lines
