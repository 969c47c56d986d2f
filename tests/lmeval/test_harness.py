"""The real ``lm_eval`` CLI on the ONERULER tasks, through ``local-chat-completions`` and a loopback server.

A tiny export (4 configs x 3 rows at 8k) is built with the real builder; the server (see
chat_server.py: it stands in for vLLM / any OpenAI-compatible server) answers each row's prompt
with a reply the test chose: right, wrong, right behind a ``<think>`` block, wrong behind one, an
unclosed ``<think>``, or no content at all. The expected accuracies below are worked out by hand
from those choices and the paper's rules, not by running the scorer.

lm-eval turns a null content into ``$LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER`` (default ""): scored as
an empty answer unless the variable names a marker, which the tasks then treat as no response.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import datasets
import pytest
from click.testing import CliRunner
from chat_server import ChatServer
from hub_client import client_env, oneruler
from hub_server import running_hub

from builders.cli import cli
from builders.lmeval.make_tasks import group_yaml
from builders.spec.schema import features_of

REPO = Path(__file__).resolve().parents[2]
CONFIGS = ("en_s_niah_8k", "pl_mq_niah_8k", "ko-en_none_niah_8k", "en_cwe_easy_8k")
SAMPLES = 3
TASKS = [f"oneruler_{c}" for c in CONFIGS]
RESERVE = {"en_s_niah_8k": 30, "pl_mq_niah_8k": 30, "ko-en_none_niah_8k": 30, "en_cwe_easy_8k": 50}
# Per config: (passed, counted) under the paper's rules, for the replies chosen in `reply_for`,
# with a no-response marker set (null replies are no response).
EXPECTED = {
    "en_s_niah_8k": (2, 3),        # right; right after a <think> full of other numbers; a wrong number
    "pl_mq_niah_8k": (1, 2),       # one of two values (wrong); both, reversed (right); null: dropped (NIAH)
    "ko-en_none_niah_8k": (1, 3),  # "none" (instructions in English); none only inside <think>; unclosed <think>
    "en_cwe_easy_8k": (1, 3),      # all ten words; nine of them; null: counted wrong (CWE)
}
# Without a marker lm-eval hands the tasks "" for a null reply: an empty NIAH answer fails and counts.
EXPECTED_NO_MARKER = EXPECTED | {"pl_mq_niah_8k": (1, 3)}
GROUP = "oneruler_testgroup"
MARKER = "<no response>"


def reply_for(row: dict) -> str | None:
    """The server's reply to a row (see EXPECTED for which pass)."""
    config, index, gold = row["config"], row["index"], row["answers"]
    wrong = next(str(v) for v in range(1_000_000, 1_000_010) if str(v) not in gold)
    if config == "en_s_niah_8k":
        return [f"<Answer> {gold[0]} </Answer>",
                f"<think>Is it 1111111? Or 2222222?</think>\n<Answer> {gold[0]} </Answer>",
                f"<Answer> {wrong} </Answer>"][index]
    if config == "pl_mq_niah_8k":
        return [f"<Answer> {gold[0]} </Answer>", f"<Answer> {gold[1]}, {gold[0]} </Answer>", None][index]
    if config == "ko-en_none_niah_8k":
        return ["<Answer> none </Answer>", f"<think>none</think> <Answer> {wrong} </Answer>",
                "<think> the answer is none"][index]
    words = [f"{i}. {w}" for i, w in enumerate(gold, 1)]
    return [" ".join(words), " ".join(words[:-1]), None][index]


def expected_accuracy(config: str, expected=EXPECTED) -> float:
    passed, counted = expected[config]
    return passed / counted


@pytest.fixture(scope="module")
def export(tmp_path_factory, source_cache) -> Path:
    from builders.export.build import build_dataset
    from builders.export.request import BuildRequest

    out = tmp_path_factory.mktemp("lmeval") / "oneruler"
    build_dataset(BuildRequest(list(CONFIGS), out, samples=SAMPLES, cache_dir=str(source_cache), progress=False))
    return out


@pytest.fixture(scope="module")
def rows(export) -> list[dict]:
    out = []
    for config in CONFIGS:
        out += datasets.load_dataset(str(export), config, split="test").to_list()
    assert len(out) == len(CONFIGS) * SAMPLES
    return out


def lm_eval_path() -> str:
    result = CliRunner().invoke(cli, ["lm-eval-path"])
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def run_lm_eval(server: ChatServer, tasks: str, out: Path, source_cache: Path, env: dict, metadata=None,
                include_path: str | None = None):
    cmd = [sys.executable, "-m", "lm_eval", "--model", "local-chat-completions",
           "--model_args", f"model=stand-in-model,base_url={server.url}", "--apply_chat_template",
           "--tasks", tasks, "--include_path", include_path or lm_eval_path(), "--output_path", str(out),
           "--log_samples"]
    if metadata:
        cmd += ["--metadata", json.dumps(metadata)]
    env = {**os.environ, **env, "PYTHONPATH": str(REPO), "ONERULER_CACHE": str(source_cache),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=out.parent)
    assert proc.returncode == 0, proc.stderr[-4000:]
    (results,) = out.glob("*/results_*.json")
    return json.loads(results.read_text(encoding="utf-8")), sorted(out.glob("*/samples_*.jsonl"))


def check_requests(server: ChatServer, rows: list[dict]) -> None:
    assert not server.unknown, server.unknown  # every prompt was a row's input, byte for byte
    prompts = sorted(r["prompt"] for r in server.requests)
    assert prompts == sorted(r["input"] for r in rows)  # each row asked exactly once
    by_prompt = {r["input"]: r for r in rows}
    for request in server.requests:
        row = by_prompt[request["prompt"]]
        assert request["max_tokens"] == row["reserve"] == RESERVE[row["config"]]
        assert request["temperature"] == 0
        assert not request.get("stop")  # no stop sequence can cut an answer


def score_samples(samples: list[Path], export: Path, tmp_path: Path) -> dict:
    merged = tmp_path / "samples.jsonl"
    merged.write_bytes(b"".join(p.read_bytes() for p in samples))
    report = tmp_path / "report"
    result = CliRunner().invoke(cli, ["score", str(merged), "--dataset", str(export), "--out", str(report)])
    assert result.exit_code == 0, result.output
    return json.loads((report / "scores.json").read_text(encoding="utf-8"))


def check_scored_samples(samples: list[Path], export: Path, tmp_path: Path, expected: dict) -> None:
    """`oneruler score` on lm-eval's --log_samples files gives the expected (passed, counted) per config."""
    scores = score_samples(samples, export, tmp_path)
    by_config = {g["config"]: g for g in scores["groups"]}
    for config in CONFIGS:
        assert (by_config[config]["passed"], by_config[config]["counted"]) == expected[config], config
    assert scores["complete"] is True
    passed, counted = sum(p for p, _ in expected.values()), sum(c for _, c in expected.values())
    assert scores["overall"]["accuracy"] == pytest.approx(passed / counted)


def test_lm_eval_on_an_export_gives_the_papers_accuracy(export, rows, source_cache, tmp_path):
    answers = {r["input"]: reply_for(r) for r in rows}
    with ChatServer(answers) as server:
        results, samples = run_lm_eval(server, ",".join(TASKS), tmp_path / "out", source_cache,
                                       {"ONERULER_DATASET": str(export), "LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER": ""})
    check_requests(server, rows)
    for config in CONFIGS:
        assert results["results"][f"oneruler_{config}"]["acc,none"] == expected_accuracy(config, EXPECTED_NO_MARKER)
    assert len(samples) == len(CONFIGS)
    check_scored_samples(samples, export, tmp_path, EXPECTED_NO_MARKER)


def test_lm_eval_generates_the_rows_on_the_fly_and_averages_groups_over_configs(export, rows, source_cache,
                                                                                 tmp_path):
    # lm-eval takes one --include_path: a copy of the shipped tasks plus a small group made by the generator
    include = tmp_path / "tasks"
    shutil.copytree(Path(lm_eval_path()), include, ignore=shutil.ignore_patterns("__pycache__"))
    (include / "oneruler" / f"_{GROUP}.yaml").write_text(group_yaml(GROUP, TASKS), encoding="utf-8")
    answers = {r["input"]: reply_for(r) for r in rows}  # prompts of the export: generation must match them
    env = {"ONERULER_DATASET": "", "LMEVAL_MODEL_NONE_ANSWER_PLACEHOLDER": MARKER}
    with ChatServer(answers) as server:
        results, samples = run_lm_eval(server, GROUP, tmp_path / "out", source_cache, env,
                                       metadata={"samples": SAMPLES}, include_path=str(include))
    check_requests(server, rows)
    for config in CONFIGS:
        assert results["results"][f"oneruler_{config}"]["acc,none"] == expected_accuracy(config), config
    # the group is the unweighted mean over its configs (5/11 would be the mean over counted examples)
    macro = sum(Fraction(*EXPECTED[c]) for c in CONFIGS) / len(CONFIGS)
    assert results["results"][GROUP]["acc,none"] == pytest.approx(float(macro), rel=1e-12)
    assert macro != Fraction(5, 11)
    # --log_samples output scored by `oneruler score`: the null NIAH reply is dropped there too
    check_scored_samples(samples, export, tmp_path, EXPECTED)
    # the rows lm-eval evaluated are the export's, field for field
    exported = {r["id"]: r for r in rows}
    for path in samples:
        for line in path.read_text(encoding="utf-8").splitlines():
            doc = json.loads(line)["doc"]
            assert {k: doc[k] for k in features_of(doc["task"])} == exported[doc["id"]]


HUB_SCRIPT = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("utils", sys.argv[1])
utils = importlib.util.module_from_spec(spec)
spec.loader.exec_module(utils)
rows = utils.custom_dataset(oneruler_config="pl_mq_niah_8k", dataset="org/oneruler")["test"].to_list()
try:
    utils.custom_dataset(oneruler_config="de_none_niah_8k", dataset="org/oneruler")
except Exception as exc:
    error = str(exc)
print(json.dumps({"rows": rows, "error": error}))
"""


def test_rows_from_a_hub_repo(export, rows, tmp_path):
    """The export pushed with the real ``oneruler push`` to the Hub stand-in, read back anonymously (a public repo)."""
    from builders.lmeval import TASK_FOLDER

    token = "hf_" + secrets.token_hex(16)
    with running_hub(token) as (endpoint, state):
        pushed = oneruler(["push", str(export), "--repo-id", "org/oneruler"], client_env(endpoint, tmp_path / "pusher", token),
                          tmp_path)
        assert pushed.returncode == 0, pushed.stderr[-3000:]
        before = len(state.requests)
        proc = subprocess.run([sys.executable, "-c", HUB_SCRIPT, str(TASK_FOLDER / "utils.py")], capture_output=True,
                              env=client_env(endpoint, tmp_path, None, ONERULER_DATASET=""), text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [{k: r[k] for k in features_of(r["task"])} for r in got["rows"]] == [r for r in rows if r["config"] == "pl_mq_niah_8k"]
    assert got["error"].startswith("dataset 'org/oneruler' has no config 'de_none_niah_8k'")
    reads = state.requests[before:]
    head = state.head("dataset", "org/oneruler")
    resolved = [r.url.partition("/resolve/")[2] for r in reads if "/resolve/" in r.url]
    assert all(path.startswith(head + "/") for path in resolved), resolved  # every task reads the pinned commit
    assert f"{head}/README.md" in resolved and any(p.startswith(f"{head}/data/pl_mq_niah_8k/") for p in resolved)
    assert all("authorization" not in {k.lower() for k in r.headers} for r in reads)  # no token: none sent
