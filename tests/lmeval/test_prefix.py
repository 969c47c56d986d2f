"""The real ``lm_eval`` CLI on a task whose rows carry an answer prefix: lm-eval's ``gen_prefix`` sends it as a
prefilled assistant turn, and the continuation is scored.

The rows are a toy family's (tests/prefix_family.py, registered in the test and, before lm-eval
starts, in its subprocess) in a small export; the task file is made by the generator
(``make_tasks.task_yaml``) beside a copy of the shipped tasks. The server (chat_server.py, standing
in for an OpenAI-compatible server) records what lm-eval sent: the row's input as the user message
and its answer prefix as a final assistant message. One server answers a prefill as llama.cpp's
does, the prefill's text before the continuation: the prefix holds a number of two digits, so an
answer scored with it fails (NIAH's ``numbers`` rule), and the accuracies below hold only if the
repeated prefix is cut off, in lm-eval's ``acc`` and in ``oneruler score`` of the logged samples.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from chat_server import ChatServer
from click.testing import CliRunner
from prefix_family import TASK, gold, prefix_rows, registered
from run_fixtures import write_export
from test_harness import lm_eval_path

from builders.cli import cli
from builders.lmeval.catalog import TaskEntry
from builders.lmeval.make_tasks import task_yaml

REPO = Path(__file__).resolve().parents[2]
CONFIG = f"en_{TASK}_8k"
LM_EVAL_NAME = f"oneruler_{CONFIG}"
RUN = ("import sys, prefix_family; prefix_family.register(); from lm_eval.__main__ import cli_evaluate; "
       "sys.argv[0] = 'lm_eval'; cli_evaluate()")


@pytest.fixture
def export(tmp_path):
    """The export of the toy family's config (3 rows); the family registered for the whole test."""
    with registered():
        rows = prefix_rows(CONFIG, 3)
        yield write_export(tmp_path / "export", {CONFIG: rows}), rows


def replies(rows: list[dict]) -> dict[str, str]:
    """Row 0 and 2: the gold number (passes); row 1: another number (fails)."""
    return {r["input"]: f" {gold(CONFIG, r['index']) if r['index'] != 1 else '1000003'}." for r in rows}


def run_lm_eval(server: ChatServer, folder: Path, out: Path, source_cache: Path, *extra: str) -> tuple[dict, list[Path]]:
    include = out.parent / "tasks"
    shutil.copytree(Path(lm_eval_path()), include, ignore=shutil.ignore_patterns("__pycache__"))
    entry = TaskEntry(LM_EVAL_NAME, CONFIG, TASK, 20, prefilled=True)
    (include / "oneruler" / f"{LM_EVAL_NAME}.yaml").write_text(task_yaml(entry), encoding="utf-8")
    cmd = [sys.executable, "-c", RUN, "--model", "local-chat-completions", "--model_args",
           f"model=stand-in-model,base_url={server.url}", "--apply_chat_template", "--tasks", LM_EVAL_NAME,
           "--include_path", str(include), "--output_path", str(out), "--log_samples", *extra]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")]),
           "ONERULER_CACHE": str(source_cache), "ONERULER_DATASET": str(folder), "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1"}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=out.parent)
    assert proc.returncode == 0, proc.stderr[-4000:]
    (results,) = out.glob("*/results_*.json")
    return json.loads(results.read_text(encoding="utf-8")), sorted(out.glob("*/samples_*.jsonl"))


def test_the_task_file_names_the_prefix_field_only_where_rows_have_one():
    prefilled = task_yaml(TaskEntry(LM_EVAL_NAME, CONFIG, TASK, 20, prefilled=True))
    assert "gen_prefix: answer_prefix\n" in prefilled
    assert "gen_prefix" not in task_yaml(TaskEntry("oneruler_en_s_niah_8k", "en_s_niah_8k", "s_niah", 30))
    with registered():
        from builders.spec.tasks import get_task

        assert get_task(TASK).family.prefills and not get_task("s_niah").family.prefills


VLLM_FIELDS = ("--gen_kwargs", "continue_final_message=true,add_generation_prompt=false")


@pytest.mark.parametrize("echo, extra", [(False, ()), (True, ()), (False, VLLM_FIELDS)],
                         ids=["continuation", "prefix-repeated", "vllm-fields"])
def test_lm_eval_prefills_the_answer_prefix_and_scores_the_continuation(export, tmp_path, source_cache, echo, extra):
    folder, rows = export
    with ChatServer(replies(rows), echo_prefill=echo) as server:
        results, samples = run_lm_eval(server, folder, tmp_path / "out", source_cache, *extra)
    assert not server.unknown, server.unknown
    sent = sorted((r["prompt"], r["prefill"]) for r in server.requests)
    assert sent == sorted((r["input"], r["answer_prefix"]) for r in rows)  # the prefix as the assistant's turn
    assert all(r["max_tokens"] == 20 and not r.get("stop") for r in server.requests)
    # what docs/lm-eval.md tells a vLLM user to add reaches the request body as vLLM reads it
    fields = {(r.get("continue_final_message"), r.get("add_generation_prompt")) for r in server.requests}
    assert fields == ({(True, False)} if extra else {(None, None)})
    assert results["results"][LM_EVAL_NAME]["acc,none"] == pytest.approx(2 / 3)
    # what docs/lm-eval.md says the logged samples record: the messages sent, and the server's text as it came back
    logged = [json.loads(x) for p in samples for x in p.read_text(encoding="utf-8").splitlines()]
    assert [json.loads(s["arguments"]["gen_args_0"]["arg_0"][0])[-1] for s in logged] == [
        {"role": "assistant", "content": s["doc"]["answer_prefix"]} for s in logged]
    assert {s["resps"][0][0].startswith(s["doc"]["answer_prefix"]) for s in logged} == {echo}
    merged = tmp_path / "samples.jsonl"
    merged.write_bytes(b"".join(p.read_bytes() for p in samples))
    scored = CliRunner().invoke(cli, ["score", str(merged), "--dataset", str(folder), "--out", str(tmp_path / "r")])
    assert scored.exit_code == 0, scored.output
    group = json.loads((tmp_path / "r" / "scores.json").read_text(encoding="utf-8"))["groups"][0]
    assert (group["passed"], group["counted"]) == (2, 3)
