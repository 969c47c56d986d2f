"""ONERULER as a Hub benchmark, end to end with the real CLI: build → push → run → score against the pushed
dataset → publish with details → leaderboard, against the loopback Hub stand-in (tests/hub_server.py) and the
vLLM stand-in (tests/openai_server.py); huggingface.co cannot be reached from these machines.

The export is the smallest that serves a leaderboard: the 182 main configs at 8k (``oneruler_8k``),
one row each. The served model answers every row right except those of the four low-resource
languages (hi, st, sw, ta: 28 rows), so ``oneruler_8k`` is 100 × 154 / 182 = 84.62 %. The run allows
300 new tokens (the answers of some CWE rows are longer than the paper's 50-token reserve), which the
published notes state.
"""

from __future__ import annotations

import csv
import json
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from huggingface_hub import parse_eval_result_entries
from hub_client import client_env, oneruler, token_leaks
from hub_server import running_hub

from openai_server import Reply, ServerState, running_server

from builders.spec.languages import LANGUAGES
from builders.spec.leaderboards import find_leaderboard

DATASET, MODEL, DETAILS = "my-org/oneruler", "my-org/test-model", "my-org/test-model-oneruler-details"
CONFIGS = find_leaderboard("oneruler_8k").config_names()
LOW_RESOURCE = {code for code, lang in LANGUAGES.items() if lang.low_resource}
RESULTS = ".eval_results/oneruler.yaml"
MAX_TOKENS = 300  # ten CWE words of de, fa, fi, ru, sr, sv, uk, zh take more than the paper's 50-token reserve


def served(export: Path) -> ServerState:
    """A server that answers each row of the export: right, except the low-resource languages' rows."""
    state = ServerState(max_model_len=12_000)
    state.tokenize_enabled = False  # the run sizes prompts from num_tokens: 182 /tokenize calls would take seconds
    for shard in sorted(export.glob("data/*/*.parquet")):
        for row in pq.read_table(shard).to_pylist():
            state.ids_by_prompt[row["input"]] = row["id"]
            right = row["context_language"] not in LOW_RESOURCE
            text = " ".join(row["answers"]) if right else "1000001"
            state.replies[row["id"]] = Reply(text, "let me see" if row["task"] == "s_niah" else None)
    return state


@pytest.fixture(scope="module")
def world(tmp_path_factory, source_cache):
    """build → push → run → score, each the real CLI; the stand-ins stay up for the tests."""
    token = "hf_" + secrets.token_hex(16)
    root = tmp_path_factory.mktemp("publish")
    with running_hub(token) as (endpoint, state):
        env = client_env(endpoint, root, token, ONERULER_CACHE=str(source_cache), OPENAI_API_KEY="")
        steps = [oneruler(["build", *CONFIGS, "--samples", "1", "--out", str(root / "export"), "--quiet"], env, root)]
        steps.append(oneruler(["push", str(root / "export"), "--repo-id", DATASET], env, root))
        with running_server(served(root / "export")) as server:
            steps.append(oneruler(["run", DATASET, "--base-url", server.base_url, "--model", "test-model",
                                   "--max-tokens", str(MAX_TOKENS), "--concurrency", "16", "--out", str(root / "preds.jsonl"), "--quiet"],
                                  env, root))
        steps.append(oneruler(["score", str(root / "preds.jsonl"), "--dataset", DATASET, "--out", str(root / "report")],
                              env, root))
        for step in steps:
            assert step.returncode == 0, (step.args[3:5], step.stderr[-3000:])
        state.add_repo("model", MODEL, {"README.md": b"# test-model\n"})
        yield {"root": root, "env": env, "state": state, "token": token, "steps": steps, "endpoint": endpoint}


def run(world, *args: str):
    """The real CLI in the world's environment; the token never appears in what it prints."""
    result = oneruler([str(a) for a in args], world["env"], world["root"])
    assert world["token"] not in result.stdout + result.stderr
    return result


def test_build_push_run_score_publish_leaderboard(world):
    root, state = world["root"], world["state"]
    assert set(state.files("dataset", DATASET)) >= {"eval.yaml", "README.md", "manifest.json"}
    head = state.head("dataset", DATASET)
    (entry,) = parse_eval_result_entries(yaml.safe_load((root / "report" / RESULTS).read_text("utf-8")))
    assert (entry.dataset_id, entry.task_id, entry.dataset_revision, entry.value) == (DATASET, "oneruler_8k", head, 84.62)
    assert entry.date == json.loads((root / "preds.meta.json").read_text("utf-8"))["ended_at"]
    assert f"generation max_tokens={MAX_TOKENS} (the paper: greedy" in entry.notes and "1 example per config" in entry.notes

    published = run(world, "publish", root / "report", "--model", MODEL, "--details", DETAILS)
    assert published.returncode == 0, published.stderr
    assert published.stdout.strip().endswith(f"opened a pull request on {MODEL}: {world['endpoint']}/{MODEL}/discussions/1")
    assert RESULTS not in state.files("model", MODEL)  # main untouched: the results are in the pull request
    (uploaded,) = parse_eval_result_entries(yaml.safe_load(state.pull_requests("model", MODEL)[1][RESULTS]))
    assert uploaded.value == entry.value and uploaded.notes == entry.notes and uploaded.dataset_revision == head
    assert uploaded.source_url == f"{world['endpoint']}/datasets/{DETAILS}" and uploaded.source_user == "my-org"

    loaded = subprocess.run([sys.executable, "-c", "import datasets, json; ds = datasets.load_dataset("
                             f"'{DETAILS}', '8k', split='test'); print(json.dumps([ds.num_rows, ds.column_names, "
                             "sum(ds['correct']), list(ds.filter(lambda r: r['task'] == 's_niah')['reasoning_chars'])]))"],
                            env=world["env"], cwd=root, capture_output=True, text=True, timeout=300)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    rows, columns, correct, reasoning = json.loads(loaded.stdout.strip().splitlines()[-1])
    predictions = (root / "preds.jsonl").read_text("utf-8").splitlines()
    assert rows == len(predictions) == 182 and correct == 154 and reasoning == [10] * 26
    assert {"id", "gold", "prediction", "needle_token_depth", "prompt_tokens", "error_category"} <= set(columns)
    card = state.files("dataset", DETAILS)["README.md"].decode("utf-8")
    assert f"`{DATASET}` at commit `{head}`" in card and "test-model" in card and "config_name: 8k" in card

    board = run(world, "leaderboard", root / "report", "--dataset", DATASET, "--out", root / "board")
    assert board.returncode == 0, board.stderr
    table = list(csv.DictReader((root / "board" / "leaderboard.csv").open(encoding="utf-8")))
    assert [(r["model"], r["origin"], float(r["oneruler_8k_value"])) for r in table] == [
        (MODEL, "hub, pull request #1", 84.62), ("test-model", f"local {root / 'report'}", 84.62)]
    assert table[0]["oneruler_8k_ci_low"] == table[1]["oneruler_8k_ci_low"] != ""  # the interval, from the notes
    assert (root / "board" / "leaderboard.png").read_bytes().startswith(b"\x89PNG")
    assert "84.62 [" in board.stdout and (root / "board" / "leaderboard.md").is_file()
    results = [*world["steps"], published, loaded, board]
    assert token_leaks(world["token"], state.requests, results, [root]) == []


def error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    return lines[0]


def test_bad_publications_are_one_error_line(world, tmp_path):
    root, state = world["root"], world["state"]
    local = run(world, "score", root / "preds.jsonl", "--dataset", root / "export", "--out", tmp_path / "local")
    assert local.returncode == 0 and "no Hub identity" in local.stdout
    assert error_line(run(world, "publish", tmp_path / "local", "--model", MODEL)).startswith(
        f"error: {tmp_path / 'local'}: no Hub identity: its rows come from the local export")
    assert error_line(run(world, "publish", root / "report", "--model", "my-org/no-such-model")).startswith(
        "error: model repo my-org/no-such-model does not exist on the Hub")
    state.add_repo("model", "other-org/their-model", {"README.md": b"# theirs\n"}, writable=False)
    assert error_line(run(world, "publish", root / "report", "--model", "other-org/their-model", "--no-pr")).startswith(
        "error: no write access to model repo other-org/their-model with this token")
    assert RESULTS not in state.files("model", "other-org/their-model")
    before = state.pull_requests("model", MODEL)
    assert error_line(run(world, "publish", root / "report", "--model", MODEL, "--details", "other-org/details")) \
        .startswith("error: no write access to dataset repo other-org/details with this token")
    assert state.repo("dataset", "other-org/details") is None and state.pull_requests("model", MODEL) == before
    tokenless = {k: v for k, v in world["env"].items() if k != "HF_TOKEN"}
    assert error_line(oneruler(["publish", str(root / "report"), "--model", MODEL], tokenless, root)).startswith(
        "error: no Hugging Face token: log in with `hf auth login` or set HF_TOKEN")
    renamed = tmp_path / "renamed"
    shutil.copytree(root / "report", renamed)
    results = renamed / RESULTS
    results.write_text(results.read_text("utf-8").replace("task_id: oneruler_8k", "task_id: oneruler_pl"), "utf-8")
    head = state.head("dataset", DATASET)
    assert error_line(run(world, "publish", renamed, "--model", MODEL)) == (
        f"error: task 'oneruler_pl' is not defined by the eval.yaml of dataset {DATASET}@{head} (it defines: oneruler_8k)")
    assert error_line(run(world, "publish", root / "report", "--model", "not-a-repo-id")).startswith(
        "error: --model 'not-a-repo-id': expected ORG/NAME")


def test_anyone_may_open_a_pull_request_and_no_pr_commits_to_main(world):
    root, state = world["root"], world["state"]
    state.add_repo("model", "far-org/a-model", {"README.md": b"# a model\n"}, writable=False)
    opened = run(world, "publish", root / "report", "--model", "far-org/a-model")
    assert opened.returncode == 0 and "opened a pull request on far-org/a-model" in opened.stdout, opened.stderr
    assert RESULTS in state.pull_requests("model", "far-org/a-model")[1]
    state.add_repo("model", "my-org/own-model", {"README.md": b"# own\n"})
    direct = run(world, "publish", root / "report", "--model", "my-org/own-model", "--no-pr")
    assert direct.returncode == 0 and "committed on my-org/own-model" in direct.stdout, direct.stderr
    assert state.files("model", "my-org/own-model")[RESULTS] == (root / "report" / RESULTS).read_bytes()
    assert state.pull_requests("model", "my-org/own-model") == {}


def test_dry_run_shows_files_and_destinations_and_sends_nothing(world):
    root, state = world["root"], world["state"]
    before = len(state.requests)
    dry = run(world, "publish", root / "report", "--model", MODEL, "--details", DETAILS, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "dry run: nothing checked on the Hub, nothing sent" in dry.stdout
    assert f"dataset {DETAILS} (created if missing): README.md (" in dry.stdout and "data/8k/test.parquet (" in dry.stdout
    assert f"a pull request on model {MODEL}: {RESULTS} (source: the details dataset's URL), 1 result(s):" in dry.stdout
    assert "task_id: oneruler_8k" in dry.stdout
    assert [r.url for r in state.requests[before:] if r.url != "/api/agent-harnesses"] == []


def test_the_leaderboard_works_offline_on_local_reports(world):
    root = world["root"]
    offline = oneruler(["leaderboard", str(root / "report"), "--dataset", DATASET, "--out", str(root / "offline")],
                       {**world["env"], "HF_HUB_OFFLINE": "1"}, root)
    assert offline.returncode == 0, offline.stderr
    assert "Hub part skipped: HF_HUB_OFFLINE is set; local reports only" in offline.stderr
    assert "test-model" in offline.stdout and "84.62 [" in offline.stdout and MODEL not in offline.stdout
    alone = run(world, "leaderboard", root / "report", "--out", root / "alone")
    assert "Hub part skipped: no --dataset given" in alone.stderr and alone.returncode == 0
