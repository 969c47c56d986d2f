"""DatasetSource: folder or Hub id, the card's configs (else the export layout), identity. The Hub side runs
against the loopback Hub in tests/report/score/test_score_hub.py and tests/run/test_hub_dataset.py."""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builders.base.errors import OneRulerError
from builders.cli.handler import flag_of
from builders.dataset.source import DatasetSource, layout_configs, local_folder, select_configs


def _shard(root, rel, configs=("pl_s_niah_8k",)):
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": [f"{c}/0" for c in configs], "config": list(configs)}), root / rel)


def test_folders_paths_and_hub_ids_are_told_apart(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "export").mkdir()
    assert local_folder("export") == tmp_path.joinpath("export").relative_to(tmp_path)
    assert local_folder("my-org/oneruler") is None  # not a folder here: a Hub repo id
    for path_like in ("./missing", "~/missing-oneruler-export", str(tmp_path / "missing"), "a/b/c"):
        with pytest.raises(OneRulerError, match="dataset folder not found"):
            local_folder(path_like)


def test_a_revision_on_a_folder_is_refused(tmp_path):
    with pytest.raises(OneRulerError, match="^revision applies to Hub datasets") as info:
        DatasetSource.open(str(tmp_path), "main")
    assert info.value.worded(flag_of).startswith("--revision applies to Hub datasets")
    with pytest.raises(OneRulerError, match="^a revision applies to Hub datasets"):  # words, not a setting
        DatasetSource.open(str(tmp_path), "main", "a revision")


def test_the_card_lists_the_configs(tmp_path):
    card = ("---\nconfigs:\n- config_name: b_cfg\n  data_files:\n  - split: test\n    path: data/b/x.parquet\n"
            "- config_name: a_cfg\n  data_files: data/a/*.parquet\n---\n# card\n")
    (tmp_path / "README.md").write_text(card, encoding="utf-8")
    _shard(tmp_path, "data/zzz/test-0.parquet")  # the layout is not consulted when the card lists configs
    assert DatasetSource.open(str(tmp_path)).configs() == {"b_cfg": ["data/b/x.parquet"], "a_cfg": ["data/a/*.parquet"]}


def test_without_a_card_the_export_layout_gives_the_configs(tmp_path):
    _shard(tmp_path, "data/pl_s_niah_8k/test-00.parquet")
    _shard(tmp_path, "data/pl_s_niah_8k/test-01.parquet")
    _shard(tmp_path, "data/en_cwe_easy_8k/test-00.parquet")
    (tmp_path / "data" / "notes.txt").write_text("not data")
    assert DatasetSource.open(str(tmp_path)).configs() == {
        "en_cwe_easy_8k": ["data/en_cwe_easy_8k/test-00.parquet"],
        "pl_s_niah_8k": ["data/pl_s_niah_8k/test-00.parquet", "data/pl_s_niah_8k/test-01.parquet"]}
    assert layout_configs(["README.md", "data/x.parquet", "data/a/b/c.parquet", "data/c/t.parquet"]) == {"c": ["data/c/t.parquet"]}


def test_nothing_declared_and_a_broken_card_are_one_error_each(tmp_path):
    with pytest.raises(OneRulerError, match="declares no configs"):
        DatasetSource.open(str(tmp_path)).configs()
    (tmp_path / "README.md").write_text("---\nconfigs: [\n---\n", encoding="utf-8")
    with pytest.raises(OneRulerError, match="dataset card of .* has invalid YAML"):
        DatasetSource.open(str(tmp_path)).configs()


def test_identity_is_the_manifest_sha256_and_shards_must_exist(tmp_path):
    source = DatasetSource.open(str(tmp_path))
    assert source.identity().to_dict() == {"name": str(tmp_path), "revision": None, "manifest_sha256": None}
    (tmp_path / "manifest.json").write_bytes(b'{"configs": {}}\n')
    assert source.identity().manifest_sha256 == hashlib.sha256(b'{"configs": {}}\n').hexdigest()
    with pytest.raises(OneRulerError, match="lacks data/x/test.parquet, which its card lists"):
        source.shard("data/x/test.parquet")


def test_select_configs_by_glob_with_a_hint():
    names = ["pl_s_niah_8k", "pl_cwe_easy_8k", "en_s_niah_8k"]
    assert select_configs(names, []) == sorted(names)
    assert select_configs(names, ["pl_*", "en_s_niah_8k"]) == ["en_s_niah_8k", "pl_cwe_easy_8k", "pl_s_niah_8k"]
    with pytest.raises(OneRulerError, match=r"'pl_s_niah_8' matches no config .*did you mean 'pl_s_niah_8k'"):
        select_configs(names, ["pl_s_niah_8"])
