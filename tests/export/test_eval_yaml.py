"""The export's eval.yaml (export/eval_yaml.py) against the Hub's specification and Inspect's schema.

The Hub's specification (huggingface/hub-docs ``docs/hub/eval-results.md``, "Eval.yaml
specification"): ``name``, ``description``, ``evaluation_framework`` (one of the Hub's list,
huggingface.js ``packages/tasks/src/eval.ts``), ``tasks[]`` each with an ``id`` (``config`` and
``split`` optional); with ``inspect-ai`` each task also needs ``field_spec``, ``solvers`` and
``scorers``, validated by Inspect's own ``HFTask`` model (the loader behind ``inspect eval hf/...``).
"""

from __future__ import annotations

import shutil

import pytest
import yaml
from inspect_ai._eval.task.hf import HFTask

from builders.base.errors import CheckFailed
from builders.export.build import build_dataset
from builders.export.eval_yaml import eval_yaml_problem, leaderboards_section, render_eval_yaml
from builders.export.hub import check_publishable
from builders.export.request import BuildRequest
from builders.spec.grids import grid_configs
from builders.spec.schema import CORE_FEATURES

# huggingface.js packages/tasks/src/eval.ts, EVALUATION_FRAMEWORKS (stored copy, 2026)
HUB_FRAMEWORKS = {"exgentic", "inspect-ai", "math-arena", "mteb", "olmocr-bench", "harbor", "archipelago", "apex-evals",
                  "screenspot-pro", "swe-bench", "swe-bench-pro", "nemo-evaluator", "yc-bench", "open-asr-leaderboard",
                  "mdpbench", "parsebench", "video-mme-v2", "claw-eval", "wildclawbench"}
STANDARD = [c.name for c in grid_configs("standard")]
EIGHT_K = [n for n in STANDARD if n.endswith("_8k")]


def test_eval_yaml_meets_the_hub_specification_and_inspects_schema():
    text = render_eval_yaml(STANDARD)
    data = yaml.safe_load(text)
    assert set(data) == {"name", "description", "evaluation_framework", "tasks"}
    assert data["name"] == "ONERULER" and len(data["description"]) > 100
    assert data["evaluation_framework"] in HUB_FRAMEWORKS and data["evaluation_framework"] == "inspect-ai"
    ids = [t["id"] for t in data["tasks"]]
    assert ids == ["oneruler", "oneruler_8k", "oneruler_32k", "oneruler_64k", "oneruler_128k"]
    for task in data["tasks"]:
        HFTask.model_validate(task)  # extra keys forbidden, solvers and scorers from Inspect's closed lists
        assert task["config"] in STANDARD and task["split"] == "test"
        spec = task["field_spec"]
        assert {spec["input"], spec["target"], *spec["metadata"]} <= set(CORE_FEATURES)  # columns of every row
    assert text.startswith("# ONERULER's leaderboards") and "NOT what Inspect's `hf/` loader computes" in text


def test_an_export_serves_only_the_boards_whose_pool_it_holds():
    tasks = yaml.safe_load(render_eval_yaml(EIGHT_K))["tasks"]
    assert [(t["id"], t["config"]) for t in tasks] == [("oneruler_8k", "en_s_niah_8k")]
    assert render_eval_yaml(["pl_s_niah_8k", "pl_cwe_easy_8k"]) is None
    section = leaderboards_section(EIGHT_K)
    assert "| `oneruler_8k` (ONERULER at 8k) | 26 languages × 7 tasks × 8k (182 configs) | `en_s_niah_8k` / `test` | yes" \
        in section
    assert "| `oneruler_32k` (ONERULER at 32k) | 26 languages × 7 tasks × 32k (182 configs) | — | no" in section
    assert "micro accuracy" in section and "footnote 10" in section


def test_eval_yaml_problems_name_what_is_wrong(tmp_path):
    assert eval_yaml_problem(tmp_path, ["pl_s_niah_8k"]) is None  # serves nothing, has nothing
    assert eval_yaml_problem(tmp_path, EIGHT_K) == "eval.yaml is missing"
    (tmp_path / "eval.yaml").write_text(render_eval_yaml(EIGHT_K), encoding="utf-8")
    assert eval_yaml_problem(tmp_path, EIGHT_K) is None
    assert eval_yaml_problem(tmp_path, STANDARD) == "eval.yaml differs from the one its configs give"
    assert "should not be there" in eval_yaml_problem(tmp_path, ["pl_s_niah_8k"])


def test_a_small_build_has_no_eval_yaml_and_push_refuses_a_stray_one(tmp_path, source_cache):
    out = tmp_path / "oneruler"
    build_dataset(BuildRequest(["pl_s_niah_8k"], out, samples=1, cache_dir=str(source_cache), progress=False))
    assert not (out / "eval.yaml").exists()
    _, paths = check_publishable(out)
    assert "eval.yaml" not in paths
    assert "no (not every config of its pool is here)" in (out / "README.md").read_text(encoding="utf-8")
    stray = tmp_path / "stray"
    shutil.copytree(out, stray)
    (stray / "eval.yaml").write_text(render_eval_yaml(EIGHT_K), encoding="utf-8")
    with pytest.raises(CheckFailed, match="eval.yaml should not be there .*rebuild with `oneruler build`"):
        check_publishable(stray)


def test_an_export_of_the_ruler_grid_serves_the_ruler_board_valued_by_rulers_average():
    ruler = [c.name for c in grid_configs("ruler")]
    data = yaml.safe_load(render_eval_yaml(ruler))
    (task,) = data["tasks"]
    HFTask.model_validate(task)
    assert (task["id"], task["config"], task["split"]) == ("ruler", "en_ruler_niah_single_1_131072", "test")
    assert "The `ruler` leaderboard is RULER's Avg." in data["description"]
    assert "RULER's Avg." not in yaml.safe_load(render_eval_yaml(STANDARD))["description"]
    section = leaderboards_section(ruler)
    assert "| `ruler` (RULER's Avg., 13 English tasks × 4096 … 131072) | 1 language × 13 tasks × 4096, 8192, 16384, " \
           "32768, 65536, 131072 (78 configs) | `en_ruler_niah_single_1_131072` / `test` | yes" in section
    assert "Value of `ruler`: RULER's Avg.: per length the mean of its 13 tasks' scores" in section
    assert "`ruler`" not in leaderboards_section(STANDARD)  # a card of ONERULER's configs alone does not list it
