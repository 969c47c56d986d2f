"""The Inspect task against a loopback OpenAI-compatible server, its numbers against `oneruler score`'s.

A small export of the eight ``pl_*_8k`` configs (2 rows each) is built with the real builder. The
server is tests/openai_server.py, the project's stand-in for vLLM's OpenAI-compatible server
(real HTTP on 127.0.0.1, replies cut at ``max_tokens`` with ``finish_reason: length``, counted in
real cl100k tokens); Inspect reaches it through its own ``openai-api`` provider. Each row gets a
reply chosen by a policy (right, wrong, right behind a ``<think>`` block, right after so much
filler that ``max_tokens`` cuts it); the (passed, counted) each config must get is worked out by
hand in ``EXPECTED`` from those policies and the paper's rules (a cut NIAH answer is dropped, a
cut CWE answer counts as wrong), not by running the scorer. Inspect's per-config accuracy,
`oneruler score` on Inspect's log and `oneruler score` on `oneruler run`'s predictions for the
same server must all give them.

``inspect eval oneruler/oneruler`` itself runs in a subprocess (``test_the_registered_task_...``).
Inspect finds the task through the ``inspect_ai`` entry point of the installed distribution
``oneruler``; the test must not depend on how (or from which checkout) the shared environment
installed the package, so it gives the subprocess a distribution of its own: a minimal
``oneruler-0.1.0.dist-info`` folder in a temp directory (METADATA, the entry point read from this
checkout's pyproject.toml, and a PEP 610 ``direct_url.json`` marking it an editable install of
this checkout), put first on ``PYTHONPATH`` together with this checkout. ``importlib.metadata``
takes the first distribution of a name on ``sys.path``, so Inspect sees this one.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import datasets
import pytest
from click.testing import CliRunner

from openai_server import Reply, ServerState, running_server

from builders.cli import cli
from builders.spec.selection import match_configs

REPO = Path(__file__).resolve().parents[2]
CONFIGS = [c.name for c in match_configs(["pl_*_8k"])]
SAMPLES = 2
MODEL = "openai-api/standin/test-model"
# Per config: the policies of rows 0 and 1, and the (passed, counted) they must give.
EXPECTED = {
    "pl_s_niah_8k": (("right", "wrong"), (1, 2)),
    "pl_mk_niah_8k": (("think", "truncated"), (1, 1)),   # the cut NIAH answer is dropped
    "pl_mv_niah_8k": (("truncated", "right"), (1, 1)),
    "pl_mq_niah_8k": (("wrong", "think"), (1, 2)),
    "pl_none_niah_8k": (("right", "truncated"), (1, 1)),
    "pl_cwe_easy_8k": (("think", "truncated"), (1, 2)),  # the cut CWE answer counts as wrong
    "pl_cwe_hard_8k": (("wrong", "right"), (1, 2)),
    "pl_s_niah_nonone_8k": (("truncated", "wrong"), (0, 1)),
}
CATEGORY = {"right": "correct", "think": "correct", "wrong": "wrong", "truncated": "no_answer"}


def right(row: dict) -> str:
    if row["task"].startswith("cwe"):
        return " ".join(row["answers"])  # the ten words fit CWE's 50 tokens, with a short <think> before them
    return ", ".join(row["answers"])  # the values, or the none word "brak" of none_niah


def reply_for(row: dict) -> str:
    policy = EXPECTED[row["config"]][0][row["index"]]
    if policy == "wrong":
        return "nic" if row["task"].startswith("cwe") else "1000003"
    if policy == "think":
        return f"<think>1111111?</think>\n{right(row)}"  # a number in the reasoning does not count
    if policy == "truncated":
        return "Hmm, " * 80 + right(row)
    return right(row)


@pytest.fixture(scope="module")
def export(tmp_path_factory, source_cache) -> Path:
    from builders.export.build import build_dataset
    from builders.export.request import BuildRequest

    out = tmp_path_factory.mktemp("inspect") / "oneruler"
    build_dataset(BuildRequest(CONFIGS, out, samples=SAMPLES, cache_dir=str(source_cache), progress=False))
    return out


@pytest.fixture(scope="module")
def rows(export) -> dict[str, dict]:
    out = {}
    for config in CONFIGS:
        out |= {r["id"]: r for r in datasets.load_dataset(str(export), config, split="test").to_list()}
    assert len(out) == len(CONFIGS) * SAMPLES
    return out


@pytest.fixture
def server(rows, monkeypatch):
    monkeypatch.setenv("STANDIN_API_KEY", "test-key")  # openai-api/standin reads its key from STANDIN_API_KEY
    state = ServerState(max_model_len=8_100)
    state.ids_by_prompt = {r["input"]: i for i, r in rows.items()}
    state.replies = {i: Reply(reply_for(r)) for i, r in rows.items()}
    state.default_reply = lambda row: Reply(f"unknown prompt (row {row})")
    with running_server(state) as running:
        yield running


def run_inspect(task, server, log_dir: Path, **kwargs):
    from inspect_ai import eval as inspect_eval

    (log,) = inspect_eval(task, model=MODEL, model_base_url=server.base_url, log_dir=str(log_dir), display="none",
                          **kwargs)
    assert log.status == "success", log.error
    return log


def chat_requests(server) -> list[dict]:
    return [r.body | {"row": r.row} for r in server.state.requests("/v1/chat/completions")]


def score_cli(predictions: Path, export: Path, out: Path) -> dict:
    result = CliRunner().invoke(cli, ["score", str(predictions), "--dataset", str(export), "--out", str(out)])
    assert result.exit_code == 0, result.output
    scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    return {g["config"]: (g["passed"], g["counted"], g["accuracy"]) for g in scores["groups"]}


def check_metrics(log) -> None:
    """Inspect's accuracy per config and overall is EXPECTED's passed / counted; dropped rows are unscored."""
    (scores,) = log.results.scores
    metrics = {name: m.value for name, m in scores.metrics.items()}
    for config, (_, (passed, counted)) in EXPECTED.items():
        assert metrics[f"config:{config}"] == pytest.approx(passed / counted), config
    passed, counted = (sum(e[1][k] for e in EXPECTED.values()) for k in (0, 1))
    assert metrics["accuracy"] == pytest.approx(passed / counted)
    assert metrics["language:pl"] == metrics["length:8k"] == metrics["accuracy"]
    assert metrics["task:s_niah"] == pytest.approx(1 / 2) and metrics["task:cwe_easy"] == pytest.approx(1 / 2)
    assert scores.unscored_samples == len(CONFIGS) * SAMPLES - counted == 4


def clustered_stderr(values: list[float], clusters: list[int]) -> float:
    """The cluster-robust standard error of a mean (sum of squared per-cluster deviations, C / (C - 1))."""
    mean = sum(values) / len(values)
    sums: dict[int, float] = {}
    for value, cluster in zip(values, clusters):
        sums[cluster] = sums.get(cluster, 0.0) + value - mean
    c = len(sums)
    return math.sqrt(sum(s * s for s in sums.values()) * c / (c - 1)) / len(values)


def test_inspect_scores_the_rows_as_the_paper_and_oneruler_score_read_its_log(export, rows, server, tmp_path):
    from builders.inspect_eval._registry import oneruler

    log = run_inspect(oneruler(configs="pl_*_8k", dataset=str(export)), server, tmp_path / "logs")
    requests = chat_requests(server)
    assert sorted(r["row"] for r in requests) == sorted(rows)  # each row asked once, its prompt byte for byte
    for request in requests:
        row = rows[request["row"]]
        assert request["messages"] == [{"role": "user", "content": row["input"]}]
        assert (request["max_tokens"], request["temperature"]) == (row["reserve"], 0) and not request.get("stop")
    check_metrics(log)
    assert log.eval.dataset.name == str(export)  # what Inspect's header shows as `dataset:`
    assert log.eval.metadata["dataset"] == {"name": str(export), "revision": None, "manifest_sha256":
                                            hashlib.sha256((export / "manifest.json").read_bytes()).hexdigest()}
    for sample in log.samples:
        policy = EXPECTED[sample.metadata["config"]][0][sample.metadata["index"]]
        (score,) = sample.scores.values()
        assert score.metadata["category"] == CATEGORY[policy], sample.id
        assert math.isnan(score.value) == (policy == "truncated" and not sample.metadata["task"].startswith("cwe"))
    counted = [s for s in log.samples if not math.isnan(next(iter(s.scores.values())).value)]
    values = [next(iter(s.scores.values())).value for s in counted]
    overall = log.results.scores[0].metrics["stderr"].value
    assert overall == pytest.approx(clustered_stderr(values, [s.metadata["index"] for s in counted]))
    assert overall != pytest.approx(clustered_stderr(values, list(range(len(values)))))  # not one cluster per row
    (path,) = (tmp_path / "logs").glob("*.eval")
    by_config = score_cli(path, export, tmp_path / "report")
    inspect_metrics = log.results.scores[0].metrics
    for config, (_, (passed, counted)) in EXPECTED.items():
        assert by_config[config][:2] == (passed, counted), config
        assert by_config[config][2] == pytest.approx(inspect_metrics[f"config:{config}"].value)


def test_oneruler_run_on_the_same_server_gives_the_same_numbers(export, rows, server, tmp_path):
    preds = tmp_path / "preds.jsonl"
    result = CliRunner().invoke(cli, ["run", str(export), "pl_*_8k", "--base-url", server.base_url, "--model",
                                      "test-model", "--out", str(preds), "--quiet"])
    assert result.exit_code == 0, result.output
    by_config = score_cli(preds, export, tmp_path / "report")
    assert {c: v[:2] for c, v in by_config.items()} == {c: e[1] for c, e in EXPECTED.items()}


def test_rows_generated_on_the_fly_are_the_exports(export, source_cache, monkeypatch):
    from builders.inspect_eval._registry import oneruler

    monkeypatch.setenv("ONERULER_CACHE", str(source_cache))  # the sources the export was built from, fetched once

    generated = oneruler(configs="pl_*_8k", samples=SAMPLES).dataset
    exported = oneruler(configs="pl_*_8k", dataset=str(export)).dataset
    assert len(generated) == len(exported) == len(CONFIGS) * SAMPLES
    assert (generated.name, exported.name) == ("oneruler (generated on the fly)", str(export))
    for mine, theirs in zip(sorted(generated, key=lambda s: s.id), sorted(exported, key=lambda s: s.id)):
        assert (mine.id, mine.input, mine.target, mine.metadata) == (theirs.id, theirs.input, theirs.target,
                                                                     theirs.metadata)


def test_samples_carry_the_rows_metadata(export, rows):
    from builders.inspect_eval._registry import oneruler

    task = oneruler(configs="pl_mq_niah_8k,pl_cwe_hard_8k", dataset=str(export), limit=1)
    assert [s.id for s in task.dataset] == ["pl_cwe_hard_8k/0", "pl_mq_niah_8k/0"]
    niah = task.dataset[1]
    row = rows["pl_mq_niah_8k/0"]
    assert niah.input == row["input"] and niah.target == row["answers"]
    assert {k: niah.metadata[k] for k in ("config", "language", "task", "length", "tokenizer", "index", "reserve")} == \
        {"config": "pl_mq_niah_8k", "language": "pl", "task": "mq_niah", "length": "8k", "tokenizer": "cl100k",
         "index": 0, "reserve": 30}
    assert niah.metadata["depths"] == [n["depth"] for n in row["needles"]] and len(row["needles"]) == 2
    assert task.dataset[0].metadata["depths"] == [] and task.dataset[0].metadata["reserve"] == 50


@pytest.mark.parametrize("options, sent", [
    ({"preset": "deepseek-r1"}, {"temperature": 0.6, "max_tokens": 8_000}),
    ({"preset": "o3-mini-high"}, {"temperature": 1.0, "max_tokens": 10_000, "reasoning_effort": "high"}),
    ({"max_tokens": 7}, {"temperature": 0, "max_tokens": 7}),
])
def test_presets_and_max_tokens_reach_the_server(export, server, tmp_path, options, sent):
    from builders.inspect_eval._registry import oneruler

    server.state.max_model_len = None  # the presets' 8k and 10k tokens would not fit beside an 8k prompt
    run_inspect(oneruler(configs="pl_s_niah_8k", dataset=str(export), limit=1, **options), server, tmp_path)
    (request,) = chat_requests(server)
    assert {k: request.get(k) for k in sent} == sent


def dist_info(root: Path) -> Path:
    """A distribution ``oneruler`` with this checkout's Inspect entry point, editable from this checkout."""
    entry_points = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    info = root / "oneruler-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: oneruler\nVersion: 0.1.0\n", encoding="utf-8")
    lines = [f"{name} = {value}" for name, value in entry_points["inspect_ai"].items()]
    (info / "entry_points.txt").write_text("[inspect_ai]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    (info / "direct_url.json").write_text(json.dumps({"url": REPO.as_uri(), "dir_info": {"editable": True}}))
    return root


def test_the_registered_task_runs_from_inspects_command_line(export, server, tmp_path):
    site = dist_info(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]), "STANDIN_API_KEY": "test-key"}
    cmd = [sys.executable, "-m", "inspect_ai", "eval", "oneruler/oneruler", "-T", "configs=pl_*_8k", "-T",
           f"dataset={export}", "--model", MODEL, "--model-base-url", server.base_url, "--log-dir",
           str(tmp_path / "logs"), "--display", "none"]
    proc = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    from inspect_ai.log import read_eval_log

    (path,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.eval.task_registry_name == "oneruler/oneruler"
    check_metrics(log)
    by_config = score_cli(path, export, tmp_path / "report")
    for config, (_, (passed, counted)) in EXPECTED.items():
        assert by_config[config][:2] == (passed, counted), config


@pytest.mark.parametrize("option, said", [
    ("configs=zz_*", "error: configs glob 'zz_*' matches no config of the dataset"),
    ("samples=0", "error: samples"),
])
def test_a_bad_task_option_is_one_error_line_at_inspects_prompt_not_a_traceback(export, tmp_path, option, said):
    site = dist_info(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}
    cmd = [sys.executable, "-m", "inspect_ai", "eval", "oneruler/oneruler", "-T", option, "-T", f"dataset={export}",
           "--model", "mockllm/model", "--log-dir", str(tmp_path / "logs"), "--display", "plain"]  # none: says nothing
    proc = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in output, output[-3000:]
    assert said in " ".join(output.split()), output[-3000:]
