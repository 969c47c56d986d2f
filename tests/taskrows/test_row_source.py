"""lm-eval's metadata (and the Inspect task's options, as the same keys) → where a task's rows come from."""

from __future__ import annotations

import pytest

from builders.base.errors import OneRulerError
from builders.taskrows.source import derived_alias, row_source


@pytest.fixture(autouse=True)
def no_dataset_env(monkeypatch):
    monkeypatch.delenv("ONERULER_DATASET", raising=False)


def test_default_is_text_control_generation_of_the_papers_set():
    source = row_source({"model": "gpt-4o", "base_url": "http://x", "version": 1.0})
    got = (source.dataset, source.alias, source.tokenizer_location, source.samples, source.seed)
    assert got == (None, "cl100k", "cl100k_base", 50, 42)
    assert source.config_name("pl_s_niah_8k") == "pl_s_niah_8k"  # an API model name is never taken for a tokenizer


def test_dataset_from_metadata_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("ONERULER_DATASET", "from-env")
    assert row_source({}).dataset == "from-env"
    assert row_source({"dataset": "from-metadata"}).dataset == "from-metadata"
    # a model's own tokenizer does not change which config of a frozen dataset is read
    assert row_source({"pretrained": "meta-llama/Meta-Llama-3-8B"}).config_name("pl_s_niah_8k") == "pl_s_niah_8k"
    # an explicit ALIAS=SPEC reads the token-control config the export was built with
    explicit = row_source({"tokenizer": "llama3=meta-llama/Meta-Llama-3-8B"})
    assert explicit.config_name("pl_s_niah_8k") == "pl_s_niah_8k_llama3"


def test_generation_settings_are_refused_with_a_dataset():
    with pytest.raises(OneRulerError, match="samples.*only apply to rows generated on the fly"):
        row_source({"dataset": "oneruler", "samples": 2})


@pytest.mark.parametrize("meta, alias, spec", [
    ({"tokenizer": "llama3=/models/llama"}, "llama3", "/models/llama"),
    ({"tokenizer": "o200k"}, "o200k", "o200k_base"),
    ({"tokenizer": "cl100k"}, "cl100k", "cl100k_base"),
    ({"tokenizer": "Qwen/Qwen2.5-7B-Instruct"}, "qwen2.5-7b-instruct", "Qwen/Qwen2.5-7B-Instruct"),
    ({"pretrained": "meta-llama/Meta-Llama-3-8B", "model": "ignored"}, "meta-llama-3-8b", "meta-llama/Meta-Llama-3-8B"),
    ({"tokenizer": "x=/tok", "pretrained": "meta-llama/Meta-Llama-3-8B"}, "x", "/tok"),
])
def test_generation_tokenizer(meta, alias, spec):
    source = row_source(meta)
    assert (source.alias, source.tokenizer_location) == (alias, spec)
    assert source.config_name("en_s_niah_8k") == ("en_s_niah_8k" if alias == "cl100k" else f"en_s_niah_8k_{alias}")


def test_derived_aliases_are_valid_config_suffixes():
    assert derived_alias("/models/My_Model/") == "my-model"
    assert derived_alias("cl100k_base") == "cl100k"
    with pytest.raises(OneRulerError, match="ALIAS=SPEC"):
        derived_alias("___")


@pytest.mark.parametrize("meta, message", [
    ({"tokenizer": "cl100k=o200k_base"}, "built-in alias"),
    ({"tokenizer": "Bad_Alias=x"}, "alias 'Bad_Alias'"),
    ({"tokenizer": 3}, "'tokenizer' must be a string"),
    ({"samples": 0}, "'samples' must be a positive integer"),
    ({"data_seed": "7"}, "'data_seed' must be a non-negative integer"),
    ({"dataset": 5}, "'dataset' must be a folder"),
])
def test_bad_metadata_is_named(meta, message):
    with pytest.raises(OneRulerError, match=f"^lm-eval metadata: .*{message}"):
        row_source(meta)
    with pytest.raises(OneRulerError, match=f"^(?!lm-eval).*{message}"):  # Inspect's options: named as they are
        row_source(meta, where=None)
