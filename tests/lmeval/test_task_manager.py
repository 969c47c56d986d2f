"""lm-eval's own TaskManager registers every ONERULER task and group from `oneruler lm-eval-path`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from lm_eval.tasks import TaskManager

from builders.lmeval import TASK_FOLDER, tasks_path
from builders.lmeval.catalog import groups, task_entries


@pytest.fixture(scope="module")
def manager() -> TaskManager:
    # the built-in tasks are left out only to save ~7 s; the CLI runs in test_harness.py include them
    return TaskManager(include_path=str(tasks_path()), include_defaults=False)


def yaml_path(manager: TaskManager, name: str) -> Path:
    entry = manager.task_index[name]
    return Path(entry["yaml_path"] if isinstance(entry, dict) else entry.yaml_path)  # lm-eval 0.4.10 / 0.4.13


def test_every_task_and_group_is_registered(manager):
    tasks = {e.name for e in task_entries()}
    assert set(manager.all_subtasks) == tasks
    assert set(manager.all_groups) == set(groups())
    assert not manager.all_tags
    sweeps = {"oneruler_depth", "oneruler_depth_pl", "oneruler_depth_xling", "oneruler_evidence", "oneruler_evidence_k64"}
    assert sweeps <= set(manager.all_groups)
    assert {"oneruler_pl_s_niah_32k_at50", "oneruler_en-ko_s_niah_128k_at25", "oneruler_sw_mv32e_niah_128k"} <= set(
        manager.all_subtasks)
    for entry in task_entries()[::50]:
        assert yaml_path(manager, entry.name) == TASK_FOLDER / f"{entry.name}.yaml"


def test_groups_list_their_tasks_and_average_over_configs(manager):
    for name, members in groups().items():
        cfg = yaml.safe_load(yaml_path(manager, name).read_text(encoding="utf-8"))
        assert cfg["group"] == name and cfg["task"] == members, name
        assert cfg["aggregate_metric_list"] == [{"metric": "acc", "aggregation": "mean", "weight_by_size": False}]
