"""``publish`` and ``leaderboard`` against a hostile user and a failing Hub (issue 36, cases 1–8, 10, 11): the real
CLI against the Hub stand-in (tests/hub_server.py) with the faults of tests/hub_faults.py; huggingface.co cannot be
reached from these machines. Every refusal is one ``error:`` line and leaves the Hub as it was; nothing is
published that was not checked, nothing overwritten, nothing duplicated.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from huggingface_hub import parse_eval_result_entries
from hub_client import oneruler
from publish_world import DATASET, RESULTS, error_line, report_copy
from publish_world import second_report as make_second_report

from builders.base.locking import FolderLock


@pytest.fixture
def hub(world, tmp_path):
    """The world with a fresh Hub cache per test (a file cached at a commit is never asked for again, so a fault
    on it would not be met) and no fault left behind."""
    env = {**world["env"], "HF_HOME": str(tmp_path / "hf-home")}
    yield {**world, "env": env}
    world["state"].faults.clear()


def cli(hub, *args, cwd: Path | None = None, **extra):
    """The real CLI in the test's environment (``extra``: more variables); the token never printed."""
    result = oneruler([str(a) for a in args], {**hub["env"], **extra}, cwd or hub["root"])
    assert hub["token"] not in result.stdout + result.stderr and "Traceback" not in result.stderr, result.stderr
    return result


def model_repo(hub, name: str) -> str:
    """A model repo of our own on the stand-in."""
    repo = f"my-org/{name}"
    hub["state"].add_repo("model", repo, {"README.md": f"# {name}\n".encode()})
    return repo


def prs(hub, model: str) -> dict:
    return hub["state"].pull_requests("model", model)


def test_details_never_overwrite_another_dataset(hub):  # case 1
    state, report = hub["state"], hub["root"] / "report"
    model = model_repo(hub, "details-model")
    benchmark = state.files("dataset", DATASET)
    refused = error_line(cli(hub, "publish", report, "--model", model, "--details", DATASET))
    assert refused.startswith(f"error: dataset {DATASET} exists and is not a details dataset made by `oneruler publish` "
                              f"(it holds ") and "give --details a new name" in refused
    assert state.files("dataset", DATASET) == benchmark and prs(hub, model) == {}
    first = cli(hub, "publish", report, "--model", model, "--details", "my-org/details-a")
    assert first.returncode == 0 and "pushed the per-row details to" in first.stdout, first.stderr
    again = cli(hub, "publish", report, "--model", model, "--details", "my-org/details-a")
    assert again.returncode == 0 and "the per-row details are already at" in again.stdout, again.stderr
    assert "already there" in again.stdout and len(state.commits("dataset", "my-org/details-a")) == 2
    other = model_repo(hub, "other-model")
    assert "holds the details of my-org/details-model, not of my-org/other-model" in error_line(
        cli(hub, "publish", report, "--model", other, "--details", "my-org/details-a"))
    assert prs(hub, other) == {} and len(prs(hub, model)) == 1


EDITS = {  # a hand edit of the results file -> what the refusal names
    "value: 84.62": ("value: 99.0", "value of oneruler_8k is 99.0"),
    "value: 84.62 ": ("value: .nan", "value of oneruler_8k is nan"),
    "value: 84.62  ": ("value: .inf", "value of oneruler_8k is inf"),
    "value: 84.62   ": ("value: 1.0e+308", "value of oneruler_8k is 1e+308"),
    "value: 84.62    ": ("value: -3", "value of oneruler_8k is -3"),
    "value: 84.62     ": ("value: a word", "value of oneruler_8k is 'a word'"),
}


def edited(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new), "utf-8")


def test_the_results_file_is_checked_against_the_report(hub, tmp_path):  # case 2
    model = model_repo(hub, "edited-model")
    report = report_copy(hub, tmp_path / "edited")
    original = (report / RESULTS).read_text("utf-8")
    head = hub["state"].head("dataset", DATASET)
    cases = [(old.strip(), new, said) for old, (new, said) in EDITS.items()]
    cases += [("- dataset:", "- verifyToken: forged\n  dataset:", "verify_token of oneruler_8k is 'forged'"),
              ("- dataset:", "- source:\n    url: https://example.com/fake\n  dataset:",
               "source_url of oneruler_8k is 'https://example.com/fake'"),
              (f"revision: {head}", "revision: main", "dataset_revision of oneruler_8k is 'main'"),
              (f"revision: {head}", "revision: 1234", "dataset_revision of oneruler_8k is 1234")]
    for old, new, said in cases:
        (report / RESULTS).write_text(original.replace(old, new, 1), "utf-8")
        line = error_line(cli(hub, "publish", report, "--model", model))
        assert said in line and "edited after scoring" in line, (new, line)
    (report / RESULTS).write_text(original, "utf-8")
    outside = tmp_path / "outside.yaml"
    outside.write_text(original, "utf-8")
    (report / RESULTS).unlink()
    (report / RESULTS).symlink_to(outside)
    assert "outside the report folder" in error_line(cli(hub, "publish", report, "--model", model))
    (report / RESULTS).unlink()
    (report / RESULTS).mkdir()
    assert error_line(cli(hub, "publish", report, "--model", model)) == \
        f"error: {report / RESULTS}: is a folder, not a file; rescore the predictions (`oneruler score`) to write it again"
    assert prs(hub, model) == {}


def test_the_details_and_counts_must_be_the_reports(hub, world, tmp_path, second_report):  # cases 2, 6
    model = model_repo(hub, "mixed-model")
    report = report_copy(hub, tmp_path / "mixed")
    shutil.copy(second_report / "details.parquet", report / "details.parquet")
    line = error_line(cli(hub, "publish", report, "--model", model, "--details", "my-org/mixed-details"))
    assert "details.parquet: does not hold the verdicts of examples.jsonl" in line
    shutil.copy(second_report / "examples.jsonl", report / "examples.jsonl")
    assert "scores.json and examples.jsonl disagree on" in error_line(cli(hub, "publish", report, "--model", model))
    assert prs(hub, model) == {} and hub["state"].repo("dataset", "my-org/mixed-details") is None


def test_the_dataset_check_fails_closed(hub, tmp_path):  # case 3
    model = model_repo(hub, "closed-model")
    report = hub["root"] / "report"
    hub["state"].fault("status", r"/resolve/[0-9a-f]{40}/manifest\.json", status=500, retry_after="0", times=None)
    line = error_line(cli(hub, "publish", report, "--model", model))
    assert line.startswith(f"error: cannot read manifest.json of dataset '{DATASET}'") and "HTTP 500" in line
    hub["state"].faults.clear()
    hub["state"].fault("status", r"/resolve/[0-9a-f]{40}/manifest\.json", status=404, times=None,
                       message="Entry not found", code="EntryNotFound")
    assert "has no manifest.json, so nothing shows that the report's rows are its rows" in error_line(
        cli(hub, "publish", report, "--model", model, "--no-pr", HF_HOME=str(tmp_path / "second")))
    hub["state"].faults.clear()
    bare = report_copy(hub, tmp_path / "no-dataset")
    scores = (bare / "scores.json").read_text("utf-8")
    (bare / "scores.json").write_text(scores.replace('"dataset": {', '"was_dataset": {'), "utf-8")
    assert "scores.json records no dataset, so its results have no Hub identity" in error_line(
        cli(hub, "publish", bare, "--model", model))
    assert prs(hub, model) == {}


def test_a_hub_dataset_without_manifest_gets_no_results_file(hub, tmp_path):  # case 3 (score)
    export = hub["root"] / "export"
    files = {p.relative_to(export).as_posix(): p.read_bytes() for p in export.rglob("*")
             if p.is_file() and p.name != "manifest.json"}
    hub["state"].add_repo("dataset", "my-org/no-manifest", files)
    scored = cli(hub, "score", hub["root"] / "preds.jsonl", "--dataset", "my-org/no-manifest", "--out", tmp_path / "r")
    assert scored.returncode == 0, scored.stderr
    assert "no manifest.json was found with the rows" in scored.stdout and not (tmp_path / "r" / RESULTS).exists()


def test_one_hostile_result_does_not_break_the_leaderboard(hub, tmp_path):  # case 4 (and 5: one row per model)
    state, export = hub["state"], hub["root"] / "export"
    board = "my-org/oneruler-board"
    state.add_repo("dataset", board, {"eval.yaml": (export / "eval.yaml").read_bytes()})

    def result(value, notes="95 % CI 80.00–90.00 (cluster bootstrap over example indices)") -> bytes:
        return yaml.safe_dump([{"dataset": {"id": board, "task_id": "oneruler_8k"}, "value": value,
                                "notes": notes}]).encode()

    hostile = {"m-high": 250, "m-low": -5, "m-nan": math.nan, "m-huge": 1e308, "m-word": "a word",
               "m-outside": 95.0, "m-good": 85.0}
    for name, value in hostile.items():
        state.add_repo("model", f"far/{name}", {"README.md": b"x"}, writable=False)
        state.open_pull_request("model", f"far/{name}", {RESULTS: result(value)}, author="someone")
    state.add_repo("model", "far/m-reversed", {"README.md": b"x", RESULTS: result(60.0, "95 % CI 90.00–10.00 (x)")},
                   writable=False)
    for value in (70.0, 71.0):
        state.open_pull_request("model", "far/m-good", {RESULTS: result(value)}, author="someone")
    done = cli(hub, "leaderboard", "--dataset", board, "--out", tmp_path / "board")
    assert done.returncode == 0, done.stderr
    rows = {r["model"]: r for r in csv.DictReader((tmp_path / "board" / "leaderboard.csv").open(encoding="utf-8"))}
    assert set(rows) == {"far/m-good", "far/m-outside", "far/m-reversed"}  # the four bad values left out
    assert rows["far/m-good"]["origin"] == "hub, pull request #3" and rows["far/m-good"]["oneruler_8k_value"] == "71.0"
    assert rows["far/m-outside"]["oneruler_8k_ci_low"] == "" and rows["far/m-reversed"]["oneruler_8k_ci_low"] == ""
    said = done.stderr
    for name, value in (("m-high", "250"), ("m-low", "-5"), ("m-nan", "nan"), ("m-huge", "1e+308"), ("m-word", "'a word'")):
        assert f"far/{name} (hub, pull request #1), oneruler_8k: value {value}" in said and "; left out" in said
    assert "far/m-outside (hub, pull request #1), oneruler_8k: its interval 80–90 does not hold its value 95" in said
    assert "far/m-good: shown once, from pull request #3; also published in #2, #1 (left out)" in said
    assert (tmp_path / "board" / "leaderboard.png").read_bytes().startswith(b"\x89PNG")
    assert "m-high" in (tmp_path / "board" / "leaderboard.md").read_text("utf-8")  # the notes are in the file too


def test_the_leaderboard_says_what_the_hub_said(hub, tmp_path):  # cases 10, 11
    report = hub["root"] / "report"
    missing = error_line(cli(hub, "leaderboard", report, "--dataset", "my-org/no-such-dataset", "--out", tmp_path / "a"))
    assert missing.startswith("error: dataset repo my-org/no-such-dataset does not exist on the Hub")
    refused = error_line(cli(hub, "leaderboard", report, "--dataset", DATASET, "--out", tmp_path / "b",
                             HF_TOKEN="hf_" + "0" * 32))
    assert "HTTP 401" in refused and not (tmp_path / "b").exists()
    hub["state"].fault("hang", r"/leaderboard$", times=None)
    hung = cli(hub, "leaderboard", report, "--dataset", DATASET, "--out", tmp_path / "c", ONERULER_HUB_TIMEOUT="1")
    assert hung.returncode == 0 and "Hub part skipped: the leaderboard of dataset my-org/oneruler: the Hub did not " \
                                   "answer in time" in hung.stderr and "(gave up after 4 tries)" in hung.stderr
    hub["state"].faults.clear()
    hub["state"].fault("status", r"/leaderboard$", status=429, retry_after="1", message="Too many requests")
    waited = cli(hub, "leaderboard", report, "--dataset", DATASET, "--out", tmp_path / "d")
    assert waited.returncode == 0 and "HTTP 429" in waited.stderr and "waiting 1 s before try 2 of 4" in waited.stderr
    assert "Hub part skipped" not in waited.stderr and "HTTP 429 Too Many Requests: Too many requests" in waited.stderr


def test_a_rerun_finds_its_own_pull_request(hub, world, second_report):  # case 5
    state, report = hub["state"], hub["root"] / "report"
    model = model_repo(hub, "rerun-model")
    state.fault("cut-after", r"/api/models/my-org/rerun-model/commit/main\?create_pr=1", method="POST")
    cut = cli(hub, "publish", report, "--model", model)
    assert cut.returncode == 0 and "the connection was cut before the Hub answered; the Hub had applied it" in cut.stderr
    assert cut.stdout.strip().endswith(f"opened a pull request on {model}: {hub['endpoint']}/{model}/discussions/1")
    again = cli(hub, "publish", report, "--model", model)
    assert again.returncode == 0 and "already there (our open pull request holds these results)" in again.stdout
    both = [subprocess.Popen([sys.executable, "-m", "builders.cli", "publish", str(second_report), "--model", model],
                             env=hub["env"], cwd=hub["root"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    said = sorted(p.communicate(timeout=300)[0].strip().split(":")[0] for p in both)
    assert [p.returncode for p in both] == [0, 0] and said == [
        "already there (our open pull request holds these results) on my-org/rerun-model",
        "updated our open pull request on my-org/rerun-model"]
    assert list(prs(hub, model)) == [1]
    assert prs(hub, model)[1][RESULTS] == (second_report / RESULTS).read_bytes()


def test_publish_reads_one_consistent_report(hub, tmp_path, second_report):  # case 6
    model = model_repo(hub, "race-model")
    report = report_copy(hub, tmp_path / "race")
    lock = FolderLock(report).acquire()  # a `score` writing into the report
    publishing = subprocess.Popen([sys.executable, "-m", "builders.cli", "publish", str(report), "--model", model],
                                  env=hub["env"], cwd=hub["root"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    waiting = publishing.stderr.readline()
    assert waiting.startswith(f"waiting up to 120 s for another oneruler command (score or publish) writing into {report}")
    for name in ("scores.json", "examples.jsonl", "details.parquet", RESULTS):
        shutil.copy(second_report / name, report / name)
    lock.release()
    out, err = publishing.communicate(timeout=300)
    assert publishing.returncode == 0, err
    (sent,) = parse_eval_result_entries(yaml.safe_load(prs(hub, model)[1][RESULTS]))
    (scored,) = parse_eval_result_entries(yaml.safe_load((second_report / RESULTS).read_text("utf-8")))
    assert sent.value == scored.value != 84.62 and sent.notes == scored.notes


def test_score_waits_for_the_report_lock(hub, tmp_path):  # case 6 (score's side)
    report = report_copy(hub, tmp_path / "busy")
    lock = FolderLock(report).acquire()
    scoring = subprocess.Popen([sys.executable, "-m", "builders.cli", "score", str(hub["root"] / "preds.jsonl"),
                                "--dataset", DATASET, "--out", str(report)], env=hub["env"], cwd=hub["root"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert scoring.stderr.readline().startswith(f"waiting up to 120 s for another oneruler command (score or publish) "
                                                f"writing into {report}")
    lock.release()
    scoring.communicate(timeout=300)
    assert scoring.returncode == 0


def test_no_secret_of_the_endpoint_is_printed_or_stored(hub, tmp_path):  # case 7
    endpoint = hub["endpoint"].replace("http://", "http://someone:pa55word-xyz@")
    report, out = hub["root"] / "report", tmp_path / "board"
    commands = [["publish", report, "--model", "my-org/test-model"], ["leaderboard", report, "--dataset", DATASET,
                "--out", out], ["push", hub["root"] / "export", "--repo-id", "my-org/secret-push"],
                ["show", "en_s_niah_8k", "--dataset", DATASET], ["score", hub["root"] / "preds.jsonl", "--dataset",
                DATASET, "--out", tmp_path / "scored"]]
    for args in commands:
        done = cli(hub, *args, HF_ENDPOINT=endpoint)
        assert "pa55word-xyz" not in done.stdout + done.stderr, (args, done.stderr)
        assert done.returncode == 0 or len(done.stderr.strip().splitlines()) == 1, (args, done.stderr)
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and b"pa55word-xyz" in p.read_bytes()]
    shard = next((hub["root"] / "export" / "data").glob("*/*.parquet"))
    del hub["state"].lfs[hashlib.sha256(shard.read_bytes()).hexdigest()]  # stored anew by this push: one upload
    hub["state"].fault("cut-before", r"lfs-upload", origin="storage", method="PUT")
    pushed = cli(hub, "push", hub["root"] / "export", "--repo-id", "my-org/sig-push")
    assert pushed.returncode == 0 and hub["state"].faults[0].hits == 1
    assert hub["state"].signature not in pushed.stderr and "sig=***" in pushed.stderr


def test_a_refused_pull_request_leaves_no_details_behind(hub, tmp_path, second_report):  # case 8
    state, report = hub["state"], hub["root"] / "report"
    model = model_repo(hub, "refusing-model")
    state.fault("status", r"/api/models/my-org/refusing-model/commit/main\?create_pr=1", status=403,
                message="Pull requests are disabled on this repository", times=None)
    line = error_line(cli(hub, "publish", report, "--model", model, "--details", "my-org/refused-details"))
    assert f"model repo {model} refused the pull request (" in line and "Pull requests are disabled" in line
    assert line.endswith("; the dataset repo my-org/refused-details this command created was deleted again")
    assert state.repo("dataset", "my-org/refused-details") is None and prs(hub, model) == {}
    state.faults.clear()
    assert cli(hub, "publish", report, "--model", model, "--details", "my-org/kept-details").returncode == 0
    before = state.files("dataset", "my-org/kept-details")
    state.fault("status", r"/api/models/my-org/refusing-model/commit/refs%2Fpr%2F1", status=403, times=None,
                message="This pull request is locked")
    line = error_line(cli(hub, "publish", second_report, "--model", model, "--details", "my-org/kept-details"))
    assert "This pull request is locked" in line and line.endswith(
        "; the details dataset my-org/kept-details was put back as it was")
    assert state.files("dataset", "my-org/kept-details") == before


def test_transient_failures_are_retried_and_said(hub, tmp_path):  # case 10
    model = model_repo(hub, "retried-model")
    report = hub["root"] / "report"
    hub["state"].fault("status", r"/api/models/my-org/retried-model$", status=503, retry_after="1")
    hub["state"].fault("status", r"/commit/main\?create_pr=1", status=500, retry_after="0")
    done = cli(hub, "publish", report, "--model", model)
    assert done.returncode == 0, done.stderr
    assert f"model repo {model}: HTTP 503" in done.stderr and "waiting 1 s before try 2 of 4" in done.stderr
    assert f"the pull request on model repo {model}: HTTP 500" in done.stderr and list(prs(hub, model)) == [1]
    hub["state"].fault("hang", r"/api/models/my-org/retried-model$", times=None)
    hung = error_line(cli(hub, "publish", report, "--model", model, ONERULER_HUB_TIMEOUT="1"))
    assert f"model repo {model}: the Hub did not answer in time" in hung and "(gave up after 4 tries)" in hung


def test_messages_name_the_true_cause(hub, tmp_path):  # case 11
    report = hub["root"] / "report"
    model = model_repo(hub, "cause-model")
    hub["state"].fault("status", r"/resolve/[0-9a-f]{40}/eval\.yaml", status=500, retry_after="0", times=None)
    line = error_line(cli(hub, "publish", report, "--model", model))
    assert line.startswith(f"error: cannot read eval.yaml of dataset '{DATASET}'") and "not registered" not in line
    hub["state"].faults.clear()
    (tmp_path / "cwd" / "my-org" / "oneruler").mkdir(parents=True)  # an empty folder named like the dataset
    assert cli(hub, "publish", report, "--model", model, "--dry-run", cwd=tmp_path / "cwd").returncode == 0
    bad_id = error_line(cli(hub, "score", hub["root"] / "preds.jsonl", "--dataset", hub["root"] / "export",
                            "--dataset-id", "../..@" + "0" * 40, "--out", tmp_path / "x"))
    assert bad_id.startswith("error: --dataset-id '../..@") and "expected ORG/NAME@COMMIT" in bad_id
    lines = (hub["root"] / "preds.jsonl").read_text("utf-8").splitlines()[:20]
    (tmp_path / "few.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    few = cli(hub, "score", tmp_path / "few.jsonl", "--dataset", hub["root"] / "export", "--allow-partial",
              "--dataset-id", f"{DATASET}@{hub['state'].head('dataset', DATASET)}", "--out", tmp_path / "few")
    assert few.returncode == 0, few.stderr
    line = error_line(cli(hub, "publish", tmp_path / "few", "--model", model, "--dry-run"))
    assert "covers no leaderboard in full" in line and "--dataset-id" not in line


@pytest.fixture(scope="module")
def second_report(world):
    """The world's run scored again with ten right answers made wrong: another report of the same model."""
    return make_second_report(world)


def test_a_local_export_scored_with_its_hub_identity_publishes(hub, tmp_path):  # case 2: the revision scored
    state, root = hub["state"], hub["root"]
    head = state.head("dataset", DATASET)
    scored = cli(hub, "score", root / "preds.jsonl", "--dataset", root / "export", "--dataset-id", f"{DATASET}@{head}",
                 "--out", tmp_path / "local")
    assert scored.returncode == 0, scored.stderr
    scores = json.loads((tmp_path / "local" / "scores.json").read_text("utf-8"))
    assert scores["hub_dataset"] == {"id": DATASET, "revision": head} and scores["dataset"]["revision"] is None
    model = model_repo(hub, "local-model")
    done = cli(hub, "publish", tmp_path / "local", "--model", model)
    assert done.returncode == 0 and f"opened a pull request on {model}" in done.stdout, done.stderr
    (sent,) = parse_eval_result_entries(yaml.safe_load(prs(hub, model)[1][RESULTS]))
    assert (sent.dataset_id, sent.dataset_revision, sent.value) == (DATASET, head, 84.62)


def test_two_machines_at_once_leave_one_open_pull_request(hub, tmp_path):  # case 5: no shared lock between them
    model = model_repo(hub, "two-machines")
    both = [subprocess.Popen([sys.executable, "-m", "builders.cli", "publish", str(hub["root"] / "report"), "--model",
                              model], env={**hub["env"], "HF_HOME": str(tmp_path / f"machine-{n}")}, cwd=hub["root"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in range(2)]
    said = [p.communicate(timeout=300)[0] for p in both]
    assert [p.returncode for p in both] == [0, 0], said
    discussions = hub["state"].repo("model", model).discussions
    assert [n for n, d in discussions.items() if d["status"] == "open"] == [1]  # a second one, if opened, closed
    assert all(f"{hub['endpoint']}/{model}/discussions/1" in s for s in said)
