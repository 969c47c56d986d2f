"""The datasets builder class (oneruler.py) with the real datasets library."""

from __future__ import annotations

import subprocess
import sys

import pytest

from builders.spec.schema import CORE_FEATURES, features_of
from oneruler import OneRuler


def test_standard_grid_is_declared():
    assert len(OneRuler.BUILDER_CONFIGS) == 952
    assert "pl_s_niah_128k" in OneRuler.builder_configs


def test_download_and_prepare_then_as_dataset_and_streaming(tmp_path, sources):
    builder = OneRuler(config_name="pl_s_niah_8k", samples=3, cache_dir=str(tmp_path / "hf"))
    builder.download_and_prepare()
    ds = builder.as_dataset("test")
    assert ds.features == features_of("s_niah") == CORE_FEATURES and ds.num_rows == 3  # a NIAH config: the core
    assert ds[2]["id"] == "pl_s_niah_8k/2" and ds[0]["num_tokens"] + 30 <= 8000
    streamed = list(builder.as_streaming_dataset("test"))
    assert [r["id"] for r in streamed] == ds["id"]
    assert streamed[0]["input"] == ds[0]["input"]


def test_a_cwe_config_has_the_core_and_its_familys_fields(tmp_path, sources):
    builder = OneRuler(config_name="pl_cwe_easy_8k", samples=1, cache_dir=str(tmp_path / "hf"))
    builder.download_and_prepare()
    ds = builder.as_dataset("test")
    assert ds.features == features_of("cwe_easy") and list(ds.features)[len(CORE_FEATURES):] == [
        "cwe_freq_common", "cwe_freq_uncommon", "cwe_pool_size", "cwe_pool_exhausted"]
    assert ds[0]["cwe_freq_common"] == 10 and ds[0]["cwe_pool_size"] > 0


def test_any_valid_name_is_a_config(tmp_path, hf_tokenizers):
    builder = OneRuler(config_name="en-pl_mq_niah_9k_llama3", tokenizers={"llama3": str(hf_tokenizers / "llama3")},
                       samples=1, cache_dir=str(tmp_path / "hf"))
    builder.download_and_prepare()
    row = builder.as_dataset("test")[0]
    assert row["config"] == "en-pl_mq_niah_9k_llama3" and row["tokenizer"].startswith("tokenizer.json@sha256:")
    with pytest.raises(ValueError, match="unknown task"):
        OneRuler(config_name="pl_s_niha_8k", cache_dir=str(tmp_path / "hf"))


def test_show_command(tmp_path):
    out = subprocess.run([sys.executable, "-m", "builders.cli", "show", "ko-en_none_niah_8k", "--index", "2"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "ko-en_none_niah_8k/2" in out.stdout and "gold answers: none" in out.stdout
    assert "◀ depth" in out.stdout and "<= length 8,000" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "builders.cli", "show", "ko-en_cwe_easy_8k"], capture_output=True, text=True)
    assert bad.returncode == 2 and "only for NIAH/RULER VT/RULER QA tasks, not 'cwe_easy'" in bad.stderr
