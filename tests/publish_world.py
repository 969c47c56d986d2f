"""The world the Hub tests share (``make_world``, given to them as the ``world`` fixture by tests/conftest.py: the
publish tests and push's fault tests, tests/export/test_push_faults.py) and their helpers (``run``, ``error_line``,
``report_copy``, ``second_report``); benchmarks/hub_battery.py makes the same world.

build → push → run → score with the real CLI: the 182 main configs at 8k (``oneruler_8k``), one row each,
pushed to the Hub stand-in as ``my-org/oneruler``; a served model right on every row but the four
low-resource languages' (84.62 %), run with 300 new tokens; the report scored against the pushed dataset.
"""

from __future__ import annotations

import json
import secrets
import shutil
from pathlib import Path

import pyarrow.parquet as pq
from hub_client import client_env, oneruler
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


def make_world(root: Path, source_cache: Path):
    """build → push → run → score, each the real CLI; yields the world while the stand-ins stay up."""
    token = "hf_" + secrets.token_hex(16)
    with running_hub(token) as (endpoint, state):
        env = client_env(endpoint, root, token, ONERULER_CACHE=str(source_cache), OPENAI_API_KEY="",
                         ONERULER_HUB_TIMEOUT="3", HF_HUB_ETAG_TIMEOUT="3", HF_HUB_DOWNLOAD_TIMEOUT="3")
        steps = [] if (root / "export" / "manifest.json").is_file() else [  # an export made before (the battery's)
            oneruler(["build", *CONFIGS, "--samples", "1", "--out", str(root / "export"), "--quiet"], env, root)]
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
        yield {"root": root, "env": env, "state": state, "token": token, "steps": steps, "endpoint": endpoint,
               "setup_requests": len(state.requests)}


def run(world, *args: str):
    """The real CLI in the world's environment; the token never appears in what it prints."""
    result = oneruler([str(a) for a in args], world["env"], world["root"])
    assert world["token"] not in result.stdout + result.stderr
    return result


def error_line(result) -> str:
    """The one ``error:`` line of a failed command (exit 2): the last on stderr, the only one that is an error (lines
    before it may say what was waited for)."""
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and lines and "Traceback" not in result.stderr, result.stderr
    assert [n for n, line in enumerate(lines) if line.startswith("error:")] == [len(lines) - 1], result.stderr
    return lines[-1]


def report_copy(world, where: Path) -> Path:
    """A copy of the world's report folder, to edit."""
    shutil.copytree(world["root"] / "report", where)
    return where


def second_report(world) -> Path:
    """The world's run scored again with its first ten right answers made wrong (``report-b``): another report of the
    same model and dataset, whose value and details differ from the first's; made once."""
    root = world["root"]
    if (root / "report-b" / "scores.json").is_file():
        return root / "report-b"
    out, changed = [], 0
    for line in (root / "preds.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if changed < 10 and row.get("prediction") and row["prediction"] != "1000001":
            row["prediction"], changed = "1000001", changed + 1
        out.append(json.dumps(row))
    (root / "preds-b.jsonl").write_text("\n".join(out) + "\n", "utf-8")
    shutil.copy(root / "preds.meta.json", root / "preds-b.meta.json")
    done = oneruler(["score", str(root / "preds-b.jsonl"), "--dataset", DATASET, "--out", str(root / "report-b")],
                    world["env"], root)
    assert done.returncode == 0, done.stderr
    return root / "report-b"
