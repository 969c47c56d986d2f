"""The evaluate metric module (metrics/oneruler): the scoring package copied whole beside the script, loads with
evaluate.load (offline, without the project), same scores as the package."""

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
from builders.spec.tasks import get_task

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


def scored(case) -> scoring.ExampleScore:
    """The scoring package's verdict on a case (prediction, answers, task, instruction language)."""
    prediction, answers, task, language = case
    return scoring.score_example(prediction, answers, get_task(task).scoring_rule, language)


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(str(METRIC_DIR))


def _compute(metric, cases=CASES, **kwargs):
    return metric.compute(predictions=[c[0] for c in cases], references=[c[1] for c in cases],
                          tasks=[c[2] for c in cases], instruction_languages=[c[3] for c in cases], **kwargs)


def test_the_folder_holds_the_scoring_package_byte_for_byte_and_a_current_task_table():
    package = Path(scoring.__file__).parent
    modules = sorted(p.name for p in package.glob("*.py"))
    assert "__init__.py" in modules and len(modules) >= 8
    for name in modules:
        assert (METRIC_DIR / name).read_bytes() == (package / name).read_bytes(), f"run {metric_folder.SYNC}"
        assert sha256_file(METRIC_DIR / name) == sha256_file(package / name)
    assert (METRIC_DIR / metric_folder.TASK_TABLE).read_text(encoding="utf-8") == metric_folder.task_table_text()
    metric_folder.check_metric_copy()


def test_check_metric_copy_catches_drift_missing_files_and_unimported_modules(tmp_path):
    folder = tmp_path / "oneruler"
    shutil.copytree(METRIC_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    metric_folder.check_metric_copy(folder)
    with (folder / "word_rules.py").open("a", encoding="utf-8") as handle:
        handle.write("# edited by hand\n")
    with pytest.raises(OneRulerError, match="word_rules.py differ"):
        metric_folder.check_metric_copy(folder)
    (folder / metric_folder.TASK_TABLE).write_text("TASK_RULES = {}\n", encoding="utf-8")
    with pytest.raises(OneRulerError, match=f"word_rules.py, {metric_folder.TASK_TABLE} differ"):
        metric_folder.check_metric_copy(folder)
    metric_folder.sync_metric_copy(folder)
    metric_folder.check_metric_copy(folder)
    script = folder / "oneruler.py"
    script.write_text(script.read_text(encoding="utf-8").replace("from .digit_runs import values_found\n", ""),
                      encoding="utf-8")
    with pytest.raises(OneRulerError, match="does not import digit_runs: evaluate.load copies only"):
        metric_folder.check_metric_copy(folder)
    (folder / "app.py").unlink()
    with pytest.raises(OneRulerError, match="app.py"):
        metric_folder.check_metric_copy(folder)


def test_the_scoring_package_imports_only_the_standard_library_and_itself_relatively():
    for path in Path(scoring.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        modules |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
        assert all(m.split(".")[0] in sys.stdlib_module_names or m == "__future__" for m in modules), (path.name, modules)
        relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
        assert all(n.level == 1 and n.module for n in relative), path.name  # siblings only: the copy is flat


def test_the_scoring_modules_shadow_no_module_a_space_may_import():
    # a Space runs app.py from the folder, so its modules are top-level names there: none may hide another
    import importlib.util

    for name in metric_folder.scoring_modules() + (metric_folder.TASK_TABLE,):
        stem = Path(name).stem
        if stem != "__init__":
            assert stem not in sys.stdlib_module_names and importlib.util.find_spec(stem) is None, stem


def test_metric_folder_does_not_import_the_project():
    for name in ("oneruler.py", "app.py", *metric_folder.scoring_modules(), metric_folder.TASK_TABLE):
        tree = ast.parse((METRIC_DIR / name).read_text(encoding="utf-8"))
        modules = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        modules |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not any(m.split(".")[0] == "builders" for m in modules), (name, modules)
    # what evaluate will fetch and require: every module of the package and the task table, one by one, and only
    # installed libraries
    imports = get_imports(str(METRIC_DIR / "oneruler.py"))
    internal = {i[1] for i in imports if i[0] == "internal"}
    assert internal == {Path(n).stem for n in metric_folder.scoring_modules() if n != "__init__.py"} | {"oneruler_tasks"}
    assert {i[1] for i in imports if i[0] == "library"} == {"datasets", "evaluate"}


def test_evaluate_load_and_compute_match_the_scoring_core(metric):
    result = _compute(metric)
    expected = [scored(c) for c in CASES]
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
    assert _compute(by_file)["passes"] == [int(scored(c).passed) for c in CASES]
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
r = m.compute(predictions=["<answer>4817290</answer>", "none", "Keine vorhanden", "1 2", "3"],
              references=[["4817290"], ["4817290"], ["x"], ["12", "34"], ["12", "34"]],
              tasks=["s_niah", "s_niah", "none_niah", "mv2e_niah", "mv2_niah"],
              instruction_languages=["en", "en", "de", "en", "en"])
print(json.dumps({"accuracy": r["accuracy"], "passes": r["passes"], "file": m.__class__.__module__}))
"""


def test_space_files_alone_load_without_the_project(tmp_path):
    space = tmp_path / "space" / "oneruler"  # what `evaluate.load("ORG/oneruler")` downloads
    space.mkdir(parents=True)
    for name in metric_folder.metric_space_files():
        shutil.copy(METRIC_DIR / name, space / name)
    env = {**os.environ, "HF_MODULES_CACHE": str(tmp_path / "modules"), "HF_EVALUATE_OFFLINE": "1",
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "PYTHONPATH": ""}
    proc = subprocess.run([sys.executable, "-c", _SUBPROCESS, str(space)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["passes"] == [1, 0, 1, 0, 0] and out["accuracy"] == pytest.approx(2 / 5)
    # evaluate copied the script and every module of the package beside it, byte for byte, into one package
    script = next((tmp_path / "modules").rglob("oneruler.py"))
    package = Path(scoring.__file__).parent
    for module in metric_folder.scoring_modules():
        if module != "__init__.py":
            assert (script.parent / module).read_bytes() == (package / module).read_bytes(), module


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


def test_rulers_tasks_score_their_credit_and_the_mean_credit(metric):
    """RULER's rows (graded): ``scores`` is each row's credit (string_match_all: the share of references found;
    string_match_part: 1 when any is), ``score`` their mean (RULER's task score); ``accuracy`` stays full credit."""
    cases = [("VAR A VAR b", ["a", "b", "c", "d"], "ruler_vt", "en"),  # 2 of 4 (case-insensitive)
             ("1234567 and 7654321 and 1111111", ["1234567", "7654321", "1111111"], "ruler_niah_multivalue", "en"),
             ("Paris", ["Lyon", "paris"], "ruler_qa_1", "en"),  # any one reference: full credit
             ("nothing", ["x1", "y2", "z3"], "ruler_cwe", "en")]
    result = _compute(metric, cases)
    assert result["scores"] == [0.5, 1.0, 1.0, 0.0]
    assert result["score"] == pytest.approx(2.5 / 4)
    assert result["accuracy"] == pytest.approx(2 / 4) and result["passes"] == [0, 1, 1, 0]
    assert "score" not in _compute(metric)  # ONERULER's tasks alone: pass/fail, no graded output
