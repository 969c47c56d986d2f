"""The Inspect task's ``-T`` options: which configs they pick, where the rows come from, and every bad value.

Values arrive as Inspect's command line makes them (YAML: strings, numbers, booleans; an unquoted
value with commas becomes a list). Exports here are small hand-written ones in the exporter's
layout (tests/run_fixtures.py): only their cards are read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from run_fixtures import make_row, write_export

from builders.base.errors import OneRulerError
from builders.inspect_eval.options import Generation, task_options
from builders.taskrows.source import DATASET_ENV


@pytest.fixture(autouse=True)
def no_dataset_from_the_environment(monkeypatch):
    monkeypatch.delenv(DATASET_ENV, raising=False)


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    rows = [make_row("pl_s_niah_8k", 0)]
    configs = {"pl_s_niah_8k": rows, "pl_s_niah_8k_llama3": rows, "en_cwe_easy_8k": [make_row("en_cwe_easy_8k", 0)],
               "pl_s_niah_8k_qwen": rows}
    return write_export(tmp_path_factory.mktemp("options") / "export", configs)


def test_globs_pick_configs_of_the_standard_grid_when_rows_are_generated():
    options = task_options(configs=["pl_*_8k", "en_s_niah_8k"])
    assert options.configs[:2] == ["pl_s_niah_8k", "pl_mk_niah_8k"] and options.configs[-1] == "en_s_niah_8k"
    assert len(options.configs) == 9 and options.source.dataset is None and options.limit is None
    assert (options.source.samples, options.source.seed) == (50, 42)
    assert options.generation == Generation(temperature=0.0, max_tokens=None)
    assert task_options(configs="pl_s_niah_8k_at50", grid="depth").configs == ["pl_s_niah_8k_at50"]
    assert len(task_options(configs="*_s_niah_8k_at*", grid="depth").configs) == 26 * 11 + 6 * 5


def test_a_tokenizer_makes_token_control_rows_of_the_same_configs():
    options = task_options(configs="pl_s_niah_8k", tokenizer="llama3=meta-llama/Meta-Llama-3-8B", samples=3)
    assert options.configs == ["pl_s_niah_8k"] and options.source.samples == 3
    assert options.source.config_name("pl_s_niah_8k") == "pl_s_niah_8k_llama3"
    assert options.source.tokenizer_location == "meta-llama/Meta-Llama-3-8B"


def test_with_a_dataset_globs_pick_its_configs_of_the_runs_tokenizer(export):
    assert task_options(dataset=str(export)).configs == ["en_cwe_easy_8k", "pl_s_niah_8k"]
    assert task_options(configs="pl_*", dataset=str(export)).configs == ["pl_s_niah_8k"]
    twin = task_options(configs="pl_*", dataset=str(export), tokenizer="llama3=x")
    assert twin.configs == ["pl_s_niah_8k"] and twin.source.config_name("pl_s_niah_8k") == "pl_s_niah_8k_llama3"


def test_the_dataset_may_come_from_the_environment_as_for_lm_eval(export, monkeypatch):
    monkeypatch.setenv(DATASET_ENV, str(export))
    assert task_options(configs="en_*").source.dataset == str(export)


def test_presets_and_max_tokens():
    assert task_options(configs="pl_s_niah_8k", preset="deepseek-r1").generation == Generation(0.6, 8_000)
    assert task_options(configs="pl_s_niah_8k", preset="o3-mini-high", max_tokens=20_000).generation == \
        Generation(1.0, 20_000, "high")
    assert Generation(1.0, 20_000, "high").config_args() == {"temperature": 1.0, "reasoning_effort": "high"}


def test_scoring_options():
    scoring = task_options(configs="pl_s_niah_8k", strict=True, truncation="score", missing_policy="paper",
                           keep_think=True, answer_tag=True).scoring
    assert (scoring.strict, scoring.truncation, scoring.missing_policy, scoring.strip_think, scoring.answer_tag) == \
        (True, "score", "paper", False, True)
    upstream = task_options(configs="pl_s_niah_8k", missing_policy="upstream").scoring
    assert (upstream.truncation, upstream.missing_policy) == ("paper", "upstream")
    # refused as `oneruler score --truncated score --missing-policy upstream` is (report/score/options.py)
    with pytest.raises(OneRulerError, match="^truncation score has no effect with missing_policy upstream"):
        task_options(configs="pl_s_niah_8k", truncation="score", missing_policy="upstream")


@pytest.mark.parametrize("options, message", [
    ({"configs": "pl_zz_8k"}, "configs: config 'pl_zz_8k': unknown task"),
    ({"configs": "xx_*"}, "configs: "),
    ({"configs": 8}, "configs must be one or more globs"),
    ({"configs": "pl_s_niah_8k_o200k"}, "configs picks 'pl_s_niah_8k_o200k', a config measured with 'o200k'"),
    ({"limit": 0}, "limit must be an integer of at least 1, got 0"),
    ({"samples": "ten"}, "samples must be an integer of at least 1, got 'ten'"),
    ({"data_seed": -1}, "data_seed must be an integer of at least 0"),
    ({"max_tokens": True}, "max_tokens must be an integer"),
    ({"strict": "yes"}, "strict must be true or false, got 'yes'"),
    ({"truncation": "maybe"}, "truncation must be one of paper, score, wrong, got 'maybe'"),
    ({"missing_policy": "drop"}, "missing_policy must be one of paper, upstream"),
    ({"preset": "o1"}, "preset must be one of o3-mini-high, deepseek-r1, got 'o1'"),
    ({"dataset": 3}, "dataset must be a string like 'org/oneruler', got 3"),
    ({"tokenizer": "cl100k=other"}, "tokenizer cl100k=other: 'cl100k' is the built-in alias"),
    ({"grid": "mine"}, "grid must be one of standard, depth, evidence, ruler, ruler_xling, got 'mine'"),
])
def test_bad_options_are_errors_naming_the_option(options, message):
    with pytest.raises(OneRulerError, match="^" + re.escape(message)):
        task_options(**({"configs": "pl_s_niah_8k"} | options))


@pytest.mark.parametrize("options, message", [
    ({"configs": "de_*"}, r"configs glob 'de_\*' matches no config of the dataset"),
    ({"samples": 5}, "samples only applies to rows generated on the fly"),
    ({"tokenizer": "llama3"}, "tokenizer with a dataset must be ALIAS=SPEC"),
    ({"tokenizer": "gemma=google/gemma-2b"}, "tokenizer 'gemma': dataset .* has no config measured with it"),
    ({"grid": "depth"}, "grid only applies to rows generated on the fly"),
])
def test_bad_options_with_a_dataset(export, options, message):
    with pytest.raises(OneRulerError, match=message):
        task_options(**({"dataset": str(export)} | options))


def test_an_empty_configs_option_is_an_error_not_every_config():  # issue 36, case 12
    from inspect_ai._cli.util import parse_cli_args

    from builders.inspect_eval.task import oneruler_task

    given = parse_cli_args(("configs=",))  # what `inspect eval ... -T configs=` passes
    assert given == {"configs": None}
    with pytest.raises(OneRulerError, match=r"^configs is empty: give one or more globs like 'pl_\*_8k'"):
        oneruler_task(**given)
