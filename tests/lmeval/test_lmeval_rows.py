"""The functions lm-eval calls (``tasks/oneruler/utils.py``, loaded by path as lm-eval does): rows and scores."""

from __future__ import annotations

import importlib.util
import json
import math
import os
from pathlib import Path

import pytest

from builders.base.errors import OneRulerError
from builders.lmeval import TASK_FOLDER
from builders.generate.rows import RowGenerator
from builders.generate.tokenizer import TokenizerRegistry
from builders.lmeval.metric import SCORING_COLUMN
from builders.spec.configs import parse_config_name
from builders.spec.schema import features_of


@pytest.fixture(scope="module")
def utils():
    spec = importlib.util.spec_from_file_location("utils", TASK_FOLDER / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def no_dataset_env(monkeypatch):
    monkeypatch.delenv("ONERULER_DATASET", raising=False)
    monkeypatch.delenv("LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER", raising=False)


def test_token_control_rows_with_the_given_or_the_models_tokenizer(utils, sources):
    # the shared tokenizers sit beside tiktoken's rank files (conftest makes that path absolute)
    qwen = str(Path(os.environ["TIKTOKEN_CACHE_DIR"]).parent / "hf" / "qwen")
    generator = RowGenerator(sources, TokenizerRegistry({"qwen": qwen}))
    expected = [generator.example(parse_config_name("en_s_niah_8k_qwen", ["qwen"]), i) for i in range(2)]
    assert expected[0]["tokenizer"].startswith("tokenizer.json@sha256:")
    for meta in ({"tokenizer": f"qwen={qwen}"}, {"pretrained": qwen, "model": "served-name"}):
        rows = utils.custom_dataset(oneruler_config="en_s_niah_8k", samples=2, **meta)["test"].to_list()
        assert [{k: r[k] for k in features_of(r["task"])} for r in rows] == expected
        paper = json.dumps({"answer_tag": False, "strict": False, "strip_think": True})
        assert {r[SCORING_COLUMN] for r in rows} == {paper}


def test_sweep_configs_are_generated_on_the_fly(utils, sources):
    """A fixed-depth and a multi-evidence task: rows generated at run time, with the larger answer reserve."""
    qwen = str(Path(os.environ["TIKTOKEN_CACHE_DIR"]).parent / "hf" / "qwen")
    generator = RowGenerator(sources, TokenizerRegistry({"qwen": qwen}))
    for config, reserve in (("ko-en_s_niah_8k_at75", 30), ("pl_mv8e_niah_32k", 30 + 9 * 8)):
        rows = utils.custom_dataset(oneruler_config=config, samples=1, tokenizer=f"qwen={qwen}")["test"].to_list()
        expected = generator.example(parse_config_name(f"{config}_qwen", ["qwen"]), 0)
        assert [{k: r[k] for k in features_of(r["task"])} for r in rows] == [expected] and expected["reserve"] == reserve
        yaml_text = (TASK_FOLDER / f"oneruler_{config}.yaml").read_text(encoding="utf-8")
        assert f"oneruler_config: {config}\n" in yaml_text and f"max_gen_toks: {reserve}\n" in yaml_text


def test_a_config_the_dataset_lacks_is_named(utils, tmp_path):
    folder = tmp_path / "export"
    folder.mkdir()
    card = ("---\nconfigs:\n- config_name: en_s_niah_8k\n  data_files:\n"
            "  - split: test\n    path: data/en_s_niah_8k/test-0.parquet\n---\n")
    (folder / "README.md").write_text(card, encoding="utf-8")
    with pytest.raises(OneRulerError, match=r"dataset '.*export' has no config 'pl_s_niah_8k'; build it with"):
        utils.custom_dataset(oneruler_config="pl_s_niah_8k", dataset=str(folder))
    with pytest.raises(OneRulerError, match="dataset folder not found: ./no-such-export"):
        utils.custom_dataset(oneruler_config="pl_s_niah_8k", dataset="./no-such-export")


def _doc(task, answers, lang="en", **options):
    return {"task": task, "answers": answers, "instruction_language": lang, "needles": [],
            SCORING_COLUMN: json.dumps({"strict": False, "strip_think": True, "answer_tag": False} | options)}


def test_process_results_scores_as_the_paper(utils, monkeypatch):
    niah = _doc("s_niah", ["4817290"])
    assert utils.process_results(niah, ["<think>maybe 1234567</think> 4817290"]) == {"acc": 1.0}
    assert utils.process_results(_doc("s_niah", ["4817290"], strip_think=False),
                                 ["<think>maybe 1234567</think> 4817290"]) == {"acc": 0.0}
    assert utils.process_results(_doc("s_niah", ["4817290"], answer_tag=True),
                                 ["4817290 <Answer>1</Answer>"]) == {"acc": 0.0}
    assert utils.process_results(_doc("cwe_easy", ["cat"]), ["category"]) == {"acc": 1.0}
    assert utils.process_results(_doc("cwe_easy", ["cat"], strict=True), ["category"]) == {"acc": 0.0}
    assert utils.process_results(_doc("none_niah", ["none"]), ["none"]) == {"acc": 1.0}
    # lm-eval's null-content placeholder: "" is an answer (fails, counts) unless a marker is set
    assert utils.process_results(niah, [""]) == {"acc": 0.0}
    monkeypatch.setenv("LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER", "<none>")
    assert utils.process_results(niah, ["<none>"]) == {"acc": None}  # NIAH: left out
    assert utils.process_results(_doc("cwe_easy", ["cat"]), ["<none>"]) == {"acc": 0.0}  # CWE: wrong


def test_accuracy_leaves_out_what_the_paper_leaves_out(utils):
    assert utils.accuracy([1.0, None, 0.0, 1.0]) == 2 / 3
    assert math.isnan(utils.accuracy([None]))


def test_a_ruler_row_scores_its_credit(utils):
    """RULER's tasks are graded: ``acc`` is the row's credit, so lm-eval's mean is RULER's mean credit."""
    assert utils.process_results(_doc("ruler_vt", ["a", "b", "c", "d"]), ["VAR A = 1, VAR C"]) == {"acc": 0.5}
    assert utils.process_results(_doc("ruler_qa_2", ["Lyon", "Paris"]), ["paris"]) == {"acc": 1.0}
    assert utils.accuracy([0.5, 1.0, None, 0.0]) == 0.5
