"""Task and group names, the generated YAML files (never stale) and what the installed package ships."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from builders.lmeval import TASK_FOLDER, tasks_path
from builders.lmeval.catalog import groups, task_entries
from builders.lmeval.make_tasks import TEMPLATE_NAME, generated_files, stale_files, write_files
from builders.spec.configs import iter_standard_names

REPO = Path(__file__).resolve().parents[2]
LANGS = ("en", "zh", "ko", "pl", "ja", "fr", "de", "es", "it", "pt", "ru", "uk", "cs", "sr", "nl", "da", "no",
         "sv", "fi", "hu", "fa", "hi", "ta", "sw", "st", "vi")


def test_one_task_per_standard_config_named_after_it():
    names = [e.name for e in task_entries()]
    assert len(names) == len(set(names)) == 952 + 1264 + 208 + 78 + 192
    assert names[:952] == [f"oneruler_{c}" for c in iter_standard_names()]
    for name in ("oneruler_pl_s_niah_128k", "oneruler_ko-en_none_niah_8k", "oneruler_en_s_niah_nonone_32k"):
        assert name in names
    reserves = {e.task: e.reserve for e in task_entries()[:952]}
    assert reserves == {"s_niah": 30, "mk_niah": 30, "mv_niah": 30, "mq_niah": 30, "none_niah": 30,
                        "s_niah_nonone": 30, "cwe_easy": 50, "cwe_hard": 50}


def test_the_sweep_grids_have_tasks_and_groups():
    entries = {e.name: e for e in task_entries()[952:952 + 1264 + 208]}
    found = groups()
    assert "oneruler_sw_s_niah_64k_at70" in entries and "oneruler_pl-ko_s_niah_128k_at75" in entries
    assert entries["oneruler_ta_mv64e_niah_128k"].reserve == 30 + 9 * 64  # max_gen_toks: a complete answer fits
    assert entries["oneruler_ta_mv8e_niah_32k"].reserve == 30 + 9 * 8
    assert len(found["oneruler_depth"]) == 26 * 11 * 4 + 6 * 5 * 4
    for lang in LANGS:
        members = found[f"oneruler_depth_{lang}"]
        assert len(members) == 44 and all(t.startswith(f"oneruler_{lang}_s_niah_") for t in members)
    xling = found["oneruler_depth_xling"]
    assert len(xling) == 120 and {t.rsplit("_at", 1)[1] for t in xling} == {"0", "25", "50", "75", "100"}
    assert len(found["oneruler_evidence"]) == 208
    for k in (8, 16, 32, 64):
        members = found[f"oneruler_evidence_k{k}"]
        assert len(members) == 52 and all(f"_mv{k}e_niah_" in t for t in members)
    assert set(found["oneruler_depth"]) | set(found["oneruler_evidence"]) == set(entries)


def test_groups_hold_the_papers_slices():
    found = groups()
    assert len(found["oneruler"]) == 728
    assert not [t for t in found["oneruler"] if "nonone" in t or "-" in t.split("_")[1]]
    for lang in LANGS:
        members = found[f"oneruler_{lang}"]
        assert len(members) == 28 and all(t.startswith(f"oneruler_{lang}_") for t in members)
    for task in ("s_niah", "mk_niah", "mv_niah", "mq_niah", "none_niah", "cwe_easy", "cwe_hard", "s_niah_nonone"):
        members = found[f"oneruler_{task}"]
        assert len(members) == 104
        assert all(t.split("_", 2)[2].rsplit("_", 1)[0] == task for t in members), task
    for length in ("8k", "32k", "64k", "128k"):
        members = found[f"oneruler_{length}"]
        assert len(members) == 182 and all(t.endswith(f"_{length}") for t in members)
    assert len(found["oneruler_xling"]) == 120
    assert {t.split("_")[1] for t in found["oneruler_xling"]} == {"en-ko", "en-pl", "ko-en", "ko-pl", "pl-en", "pl-ko"}
    assert len(found) == 1 + 26 + 8 + 4 + 1 + (1 + 26 + 1) + (1 + 4) + (1 + 13 + 6) + (1 + 2 + 25 + 1 + 6)
    task_names = {e.name for e in task_entries()}
    assert not task_names & set(found)
    assert all(set(members) <= task_names for members in found.values())


def test_rulers_grid_has_tasks_and_groups():
    entries = {e.name: e for e in task_entries()[952 + 1264 + 208:][:78]}
    found = groups()
    assert len(entries) == 78 and set(found["oneruler_ruler"]) == set(entries)
    assert entries["oneruler_en_ruler_niah_single_1_4096"].reserve == 128  # max_gen_toks: RULER's tokens_to_generate
    assert entries["oneruler_en_ruler_vt_131072"].reserve == 30 and entries["oneruler_en_ruler_qa_2_8192"].reserve == 32
    assert found["oneruler_ruler_vt"] == [f"oneruler_en_ruler_vt_{n}" for n in (4096, 8192, 16384, 32768, 65536, 131072)]
    assert len(found["oneruler_ruler_8192"]) == 13 and all(t.endswith("_8192") for t in found["oneruler_ruler_8192"])


def test_generated_files_are_up_to_date():
    stale = stale_files()
    assert not stale, f"run `python -m builders.lmeval.make_tasks`: stale {stale[:5]}"
    on_disk = sorted(p.name for p in TASK_FOLDER.glob("*.yaml"))
    assert on_disk == sorted(generated_files())


def test_a_stale_edited_or_extra_file_is_found_and_rewritten(tmp_path):
    folder = tmp_path / "oneruler"
    shutil.copytree(TASK_FOLDER, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "oneruler_pl_s_niah_8k.yaml").write_text("task: edited\n", encoding="utf-8")
    (folder / "oneruler_pl_s_niah_2k.yaml").write_text("task: gone\n", encoding="utf-8")
    (folder / "_oneruler_xling.yaml").unlink()
    assert stale_files(folder) == ["_oneruler_xling.yaml", "oneruler_pl_s_niah_2k.yaml", "oneruler_pl_s_niah_8k.yaml"]
    assert write_files(folder) == 3
    assert stale_files(folder) == []
    assert (folder / TEMPLATE_NAME).is_file()  # not the generator's to touch


def test_the_check_command_passes_on_the_committed_files():
    proc = subprocess.run([sys.executable, "-m", "builders.lmeval.make_tasks", "--check"], cwd=REPO,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_tasks_are_generate_until_with_the_rows_reserve_and_no_stop_sequences():
    template = yaml.load((TASK_FOLDER / TEMPLATE_NAME).read_text(encoding="utf-8"), Loader=_FunctionLoader)
    assert template["output_type"] == "generate_until"
    assert template["doc_to_text"] == "input"  # the row's prompt verbatim, no Jinja rendering
    assert template["metric_list"] == [{"metric": "acc", "aggregation": "!function utils.accuracy",
                                        "higher_is_better": True}]
    for entry in task_entries()[:: 37]:
        cfg = yaml.safe_load((TASK_FOLDER / f"{entry.name}.yaml").read_text(encoding="utf-8"))
        assert cfg["include"] == TEMPLATE_NAME and cfg["task"] == entry.name
        assert cfg["dataset_kwargs"] == {"oneruler_config": entry.config}
        assert cfg["generation_kwargs"] == {"until": [], "do_sample": False, "temperature": 0.0,
                                            "max_gen_toks": entry.reserve}


def test_the_path_command_and_the_installed_package_ship_every_task_file(tmp_path):
    from click.testing import CliRunner

    from builders.cli import cli

    result = CliRunner().invoke(cli, ["lm-eval-path"])
    assert result.exit_code == 0 and result.stdout.strip() == str(tasks_path())
    assert (Path(result.stdout.strip()) / "oneruler" / TEMPLATE_NAME).is_file()
    # a regular (non-editable) install copies exactly what setuptools' build_py collects
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md", "oneruler.py"):
        shutil.copy(REPO / name, project / name)
    shutil.copytree(REPO / "builders", project / "builders", ignore=shutil.ignore_patterns("__pycache__"))
    build = tmp_path / "build"
    proc = subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
                           "--build-lib", str(build)], cwd=project, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    shipped = {p.name for p in (build / "builders" / "lmeval" / "tasks" / "oneruler").iterdir()}
    wanted = {p.name for p in TASK_FOLDER.iterdir() if p.name != "__pycache__"}
    assert shipped == wanted and {"README.md", "utils.py", TEMPLATE_NAME} <= shipped


class _FunctionLoader(yaml.SafeLoader):
    """Reads lm-eval's ``!function`` tags as plain text."""


_FunctionLoader.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")


def test_rulers_cross_lingual_grid_has_tasks_and_groups():
    entries = {e.name: e for e in task_entries()[952 + 1264 + 208 + 78:]}
    found = groups()
    assert len(entries) == 192 and set(found["oneruler_ruler_xling"]) == set(entries)
    assert entries["oneruler_pl-en_ruler_vt_32768"].reserve == 30 and entries["oneruler_pl-en_ruler_vt_32768"].prefilled
    assert entries["oneruler_de-en_ruler_qa_xquad_8192"].reserve == 32
    assert found["oneruler_ruler_xling_pl"] == [f"oneruler_pl-en_ruler_vt_{n}"
                                               for n in (4096, 8192, 16384, 32768, 65536, 131072)]
    assert len(found["oneruler_ruler_xling_de"]) == 12 and len(found["oneruler_ruler_xling_vt"]) == 150
    assert len(found["oneruler_ruler_xling_qa_xquad"]) == 42 and "oneruler_en_ruler_qa_xquad_4096" in entries
