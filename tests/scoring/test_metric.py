"""The evaluate metric module (metrics/oneruler): loads with evaluate.load, self-contained, same scores."""

from __future__ import annotations

import ast
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import evaluate
import pytest
import yaml
from evaluate.loading import get_imports

from builders import scoring
from builders.base.errors import OneRulerError
from builders.base.files import sha256_file
from builders.export import metric as metric_folder

METRIC_DIR = Path(__file__).resolve().parents[2] / "metrics" / "oneruler"
WORDS = ["apple", "bridge", "cat", "door", "eagle", "fire", "grape", "house", "ink", "jam"]
NEEDLES = [{"key": "a", "value": "1111111", "depth": 0}, {"key": "b", "value": "4817290", "depth": 50}]

# (prediction, answers, task, instruction language)
CASES = [
    ("<answer>4817290</answer>", ["4817290"], "s_niah", "en"),
    ("none", ["4817290"], "s_niah", "en"),
    ("None 4817290", ["4817290"], "s_niah", "en"),
    (None, ["4817290"], "mk_niah", "pl"),
    ("1111111", ["4817290"], "mk_niah", "pl"),
    ("४८१७२९०", ["4817290"], "s_niah_nonone", "hi"),
    ("Keine vorhanden", ["Keine vorhanden"], "none_niah", "de"),
    ("nonetheless", ["none"], "none_niah", "en"),
    ("数字はありません", ["なし"], "none_niah", "ja"),
    ("4817290 1111111", ["4817290", "1111111"], "mq_niah", "ko"),
    (" ".join(reversed(WORDS)), WORDS, "cwe_easy", None),
    ("category " + " ".join(WORDS[:2] + WORDS[3:]), WORDS, "cwe_hard", None),
    (None, WORDS, "cwe_hard", "ja"),
    ("", ["4817290"], "mv_niah", "fa"),
]


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(str(METRIC_DIR))


def _compute(metric, cases=CASES, **kwargs):
    return metric.compute(predictions=[c[0] for c in cases], references=[c[1] for c in cases],
                          tasks=[c[2] for c in cases], instruction_languages=[c[3] for c in cases], **kwargs)


def test_metric_copy_is_the_scoring_core_byte_for_byte():
    copy, core = METRIC_DIR / metric_folder.METRIC_COPY, Path(scoring.core.__file__)
    assert copy.read_bytes() == core.read_bytes(), (
        "run: python -c 'from builders.export.metric import sync_metric_copy; sync_metric_copy()'")
    assert sha256_file(copy) == sha256_file(core)
    metric_folder.check_metric_copy()


def test_check_metric_copy_catches_drift_and_missing_files(tmp_path):
    folder = tmp_path / "oneruler"
    shutil.copytree(METRIC_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    metric_folder.check_metric_copy(folder)
    with (folder / metric_folder.METRIC_COPY).open("a", encoding="utf-8") as handle:
        handle.write("# edited by hand\n")
    with pytest.raises(OneRulerError, match="differs"):
        metric_folder.check_metric_copy(folder)
    metric_folder.sync_metric_copy(folder)
    metric_folder.check_metric_copy(folder)
    (folder / "app.py").unlink()
    with pytest.raises(OneRulerError, match="app.py"):
        metric_folder.check_metric_copy(folder)


def test_scoring_core_imports_only_the_standard_library():
    tree = ast.parse(Path(scoring.core.__file__).read_text(encoding="utf-8"))
    modules = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    modules |= {("." * n.level) + (n.module or "") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert all(m.split(".")[0] in sys.stdlib_module_names or m == "__future__" for m in modules), modules


def test_metric_folder_does_not_import_the_project():
    for name in ("oneruler.py", metric_folder.METRIC_COPY, "app.py"):
        tree = ast.parse((METRIC_DIR / name).read_text(encoding="utf-8"))
        modules = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        modules |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not any(m.split(".")[0] == "builders" for m in modules), (name, modules)
    # what evaluate will fetch and require: the sibling copy, and only installed libraries
    imports = get_imports(str(METRIC_DIR / "oneruler.py"))
    assert ("internal", "oneruler_scoring", "oneruler_scoring", None) in imports
    assert {i[1] for i in imports if i[0] == "library"} == {"datasets", "evaluate"}


def test_evaluate_load_and_compute_match_the_scoring_core(metric):
    result = _compute(metric)
    expected = [scoring.score_example(*c) for c in CASES]
    assert result["passes"] == [int(e.passed) for e in expected]
    assert result["passes"] == [1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    assert result["counted"] == [int(e.counted) for e in expected]
    assert result["categories"] == [e.category for e in expected]
    assert result["recalls"] == [e.recall for e in expected]
    counted = [p for p, e in zip(result["passes"], expected) if e.counted]
    assert result["accuracy"] == pytest.approx(sum(counted) / len(counted)) == pytest.approx(9 / 13)
    assert (result["num_counted"], result["num_dropped"]) == (13, 1)
    assert isinstance(result["accuracy"], float) and isinstance(result["recall"], float)


def test_strict_needles_and_truncation_arguments(metric):
    strict = _compute(metric, strict=True)
    assert strict["accuracy"] == pytest.approx(6 / 13)
    assert strict["paper_accuracy"] == pytest.approx(9 / 13)
    assert strict["disagreements"] == [2, 7, 11]  # "None" (case), "nonetheless", "category"
    cases = [("1111111", ["4817290"], "mk_niah", "en"), ("4817290", ["4817290"], "s_niah", "en")]
    result = _compute(metric, cases, needles=[NEEDLES, NEEDLES], finish_reasons=[None, "length"])
    assert result["categories"] == ["distractor", "no_answer"] and result["counted"] == [1, 0]
    scored = _compute(metric, cases, finish_reasons=[None, "length"], truncation="score")
    assert scored["passes"] == [0, 1] and scored["categories"][0] == "wrong"
    with pytest.raises(ValueError, match="needles has 1 entries for 2 predictions"):
        _compute(metric, cases, needles=[NEEDLES])


def test_odd_inputs_are_scored_not_rejected(metric):
    cases = [(None, ["4817290"], "s_niah", "en"), ("\ud800 4817290 \udfff", ["4817290"], "s_niah", "en"),
             (b"4817290", ["4817290"], "s_niah", "en"), ("x" * 1_000_000, WORDS, "cwe_easy", None)]
    result = _compute(metric, cases)
    assert result["passes"] == [0, 1, 1, 0] and result["counted"] == [0, 1, 1, 1]
    empty_niah = _compute(metric, [(None, ["4817290"], "s_niah", "en")])
    assert math.isnan(empty_niah["accuracy"]) and empty_niah["num_dropped"] == 1
    with pytest.raises(ValueError, match="example 0: unknown task 'niah'"):
        _compute(metric, [("x", ["1234567"], "niah", "en")])


def test_load_by_script_path_as_app_py_does():
    by_file = evaluate.load(str(METRIC_DIR / "oneruler.py"))
    assert _compute(by_file)["passes"] == [int(scoring.score_example(*c).passed) for c in CASES]
    assert "oneruler.py" in (METRIC_DIR / "app.py").read_text(encoding="utf-8")


def test_add_batch_then_compute(metric):
    for chunk in (CASES[:5], CASES[5:]):
        metric.add_batch(predictions=[c[0] for c in chunk], references=[c[1] for c in chunk],
                         tasks=[c[2] for c in chunk], instruction_languages=[c[3] for c in chunk])
    assert metric.compute()["passes"] == _compute(metric)["passes"]


def test_metric_card_is_an_evaluate_card():
    text = (METRIC_DIR / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---", 2)[1])
    assert meta["title"] and meta["description"] and meta["sdk"] == "gradio"
    assert {"evaluate", "metric"} <= set(meta["tags"])
    assert (METRIC_DIR / meta["app_file"]).is_file()
    for heading in ("## Metric Description", "## How to Use", "### Inputs", "### Output Values",
                    "## Limitations and Bias", "## Citation"):
        assert heading in text
    for lang, words in scoring.NONE_WORDS.items():
        assert all(w in text for w in words), lang


_SUBPROCESS = r"""
import json, sys
sys.modules["builders"] = None  # the published folder must work without the project
import evaluate
m = evaluate.load(sys.argv[1])
r = m.compute(predictions=["<answer>4817290</answer>", "none", "Keine vorhanden"],
              references=[["4817290"], ["4817290"], ["x"]], tasks=["s_niah", "s_niah", "none_niah"],
              instruction_languages=["en", "en", "de"])
print(json.dumps({"accuracy": r["accuracy"], "passes": r["passes"], "file": m.__class__.__module__}))
"""


def test_space_files_alone_load_without_the_project(tmp_path):
    space = tmp_path / "space" / "oneruler"  # what `evaluate.load("ORG/oneruler")` downloads
    space.mkdir(parents=True)
    for name in metric_folder.METRIC_SPACE_FILES:
        shutil.copy(METRIC_DIR / name, space / name)
    env = {**os.environ, "HF_MODULES_CACHE": str(tmp_path / "modules"), "HF_EVALUATE_OFFLINE": "1",
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PYTHONPATH": ""}
    proc = subprocess.run([sys.executable, "-c", _SUBPROCESS, str(space)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["passes"] == [1, 0, 1] and out["accuracy"] == pytest.approx(2 / 3)
    copied = list((tmp_path / "modules").rglob(metric_folder.METRIC_COPY))
    assert copied and copied[0].read_bytes() == Path(scoring.core.__file__).read_bytes()


def test_reasoning_and_policy_kwargs_reach_the_rules(metric):
    cases = [("<think>1111111</think>7654321", ["7654321"], "s_niah", "en"),
             ("<Answer>1111111</Answer><Answer>7654321</Answer>", ["7654321"], "s_niah", "en"),
             (None, WORDS, "cwe_easy", None)]
    default = _compute(metric, cases)
    assert default["passes"] == [1, 0, 0] and default["counted"] == [1, 1, 1]
    assert _compute(metric, cases, strip_think=False)["passes"] == [0, 0, 0]
    assert _compute(metric, cases, answer_tag=True)["passes"] == [0, 1, 0]
    upstream = _compute(metric, cases, missing_policy="upstream")
    assert upstream["counted"] == [1, 1, 0] and upstream["accuracy"] == 0.5
    with pytest.raises(ValueError, match="missing_policy"):
        _compute(metric, cases, missing_policy="nope")
