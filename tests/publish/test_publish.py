"""ONERULER as a Hub benchmark, end to end with the real CLI: build → push → run → score against the pushed
dataset → publish with details → leaderboard, against the loopback Hub stand-in (tests/hub_server.py) and the
vLLM stand-in (tests/openai_server.py); huggingface.co cannot be reached from these machines.

The export is the smallest that serves a leaderboard: the 182 main configs at 8k (``oneruler_8k``),
one row each. The served model answers every row right except those of the four low-resource
languages (hi, st, sw, ta: 28 rows), so ``oneruler_8k`` is 100 × 154 / 182 = 84.62 %. The run allows
300 new tokens (the answers of some CWE rows are longer than the paper's 50-token reserve), which the
published notes state. ``world`` (tests/conftest.py, tests/publish_world.py) is made once per test process
and shared by this file, test_hostile_hub.py and tests/export/test_push_faults.py: each test writes to model
and dataset repos of its own.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys

import yaml
from huggingface_hub import parse_eval_result_entries
from hub_client import oneruler, token_leaks
from publish_world import DATASET, DETAILS, MAX_TOKENS, MODEL, RESULTS, error_line, run


def test_build_push_run_score_publish_leaderboard(world):
    root, state = world["root"], world["state"]
    mark = len(state.requests)  # the requests of the world's making and of this test (others send bad tokens on purpose)
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
    table = [r for r in csv.DictReader((root / "board" / "leaderboard.csv").open(encoding="utf-8"))
             if r["model"] in (MODEL, "test-model")]  # other tests publish other models' results to the dataset
    assert [(r["model"], r["origin"], float(r["oneruler_8k_value"])) for r in table] == [
        (MODEL, "hub, pull request #1", 84.62), ("test-model", f"local {root / 'report'}", 84.62)]
    assert table[0]["oneruler_8k_ci_low"] == table[1]["oneruler_8k_ci_low"] != ""  # the interval, from the notes
    assert (root / "board" / "leaderboard.png").read_bytes().startswith(b"\x89PNG")
    assert "84.62 [" in board.stdout and (root / "board" / "leaderboard.md").is_file()
    results = [*world["steps"], published, loaded, board]
    requests = state.requests[:world["setup_requests"]] + state.requests[mark:]
    assert token_leaks(world["token"], requests, results, [root]) == []


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
    assert error_line(run(world, "publish", renamed, "--model", MODEL)) == (
        f"error: {results}: holds a result for 'oneruler_pl', which the report's scores do not give; it was edited "
        f"after scoring: rescore the predictions")
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
