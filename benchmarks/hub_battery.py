"""The hostile-Hub battery of issue 36: ``publish``, ``leaderboard`` and ``push`` (the real CLI) against the Hub
stand-in (tests/hub_server.py) driven through every fault of tests/hub_faults.py and every hostile input, counted.

    python benchmarks/hub_battery.py [--work DIR] [--export DIR] [--only NAME]

It makes the publish tests' world (tests/publish_world.py: build → push → run → score; ``--export``
reuses a built export of the 182 ``oneruler_8k`` configs), then plays each case and prints one line per case
and the totals, which must all be 0:

- ``tracebacks``: a command that printed a Python traceback;
- ``secrets``: the token, the endpoint's password or a storage signature in any output or written file;
- ``overwritten``: a repository that changed although the case may not change it (the benchmark, another
  dataset, someone else's model), or a half-published state (a details dataset left without its results);
- ``duplicated``: more than one open pull request of ours on a model, or a commit sent twice;
- ``wrong cause``: a message that does not name what the case did (each case says what must be said).

Exit code 0 when every count is 0, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the stand-ins and helpers of the tests (tests/publish_world.py)
SHARED = REPO.parent / "shared"
os.environ.setdefault("ONERULER_MIRROR", str(SHARED / "oneruler-upstream"))
os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(SHARED / "tokenizers" / "tiktoken"))

DATASET = "my-org/oneruler"
RESULTS = ".eval_results/oneruler.yaml"
PASSWORD = "pa55word-of-the-endpoint"


@dataclass
class Outcome:
    """What a case ran and what it must show."""

    runs: list = field(default_factory=list)  # CompletedProcess
    said: list[str] = field(default_factory=list)  # substrings the output must hold (the true cause)
    may_change: set[str] = field(default_factory=set)  # repos ("dataset:org/name") allowed to change
    problems: list[str] = field(default_factory=list)  # what the case itself found wrong (duplicates, leftovers)
    files: list[Path] = field(default_factory=list)  # folders whose files must hold no secret


class Battery:
    """The world and the counts."""

    def __init__(self, world: dict, work: Path):
        self.w, self.work, self.state = world, work, world["state"]
        self.counts = {"cases": 0, "commands": 0, "tracebacks": 0, "secrets": 0, "overwritten": 0, "duplicated": 0,
                       "wrong cause": 0}
        self.n = 0
        self.before: dict | None = None  # the Hub as the case's first command found it (its own seeding done)

    def env(self, **extra) -> dict:
        if self.before is None:
            self.before = self.snapshot()
        self.n += 1
        return {**self.w["env"], "HF_HOME": str(self.work / f"hf-{self.n}"), **extra}

    def cli(self, *args, cwd: Path | None = None, **extra) -> subprocess.CompletedProcess:
        from hub_client import oneruler

        return oneruler([str(a) for a in args], self.env(**extra), cwd or self.w["root"])

    def snapshot(self) -> dict[str, dict]:
        with self.state.lock:
            return {f"{t}:{r}": {b: br.commits[-1].oid for b, br in repo.branches.items()}
                    for (t, r), repo in self.state.repos.items()}

    def secrets(self) -> list[str]:
        return [self.w["token"], PASSWORD, self.state.signature]

    def check(self, name: str, case: Callable[["Battery"], Outcome]) -> None:
        self.before = None
        out = case(self)
        self.state.faults.clear()
        before, after = self.before or {}, self.snapshot()
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        texts = [r.stdout + r.stderr for r in out.runs]
        found = {
            "tracebacks": sum("Traceback" in t for t in texts),
            "secrets": sum(s in t for t in texts for s in self.secrets())
            + sum(1 for root in out.files for p in root.rglob("*") if p.is_file()
                  for s in self.secrets() if s.encode() in p.read_bytes()),
            "overwritten": len([k for k in changed if k not in out.may_change])
            + sum(p.startswith("overwritten") for p in out.problems),
            "duplicated": sum(p.startswith("duplicated") for p in out.problems),
            "wrong cause": sum(not any(s in t for t in texts) for s in out.said),
        }
        self.counts["cases"] += 1
        self.counts["commands"] += len(out.runs)
        for key, value in found.items():
            self.counts[key] += value
        bad = {k: v for k, v in found.items() if v}
        last = next((line for t in reversed(texts) for line in reversed(t.strip().splitlines()) if line.strip()), "")
        print(f"{'FAIL' if bad else 'ok  '} {name:44s} {bad or ''} | {last[:150]}", flush=True)
        if bad:
            for t in texts:
                print("      " + t.strip().replace("\n", "\n      ")[-1500:])
            print(f"      changed: {changed}; expected to say: {out.said}; problems: {out.problems}")

    def model(self, name: str, writable: bool = True) -> str:
        repo = f"{'my-org' if writable else 'far-org'}/{name}"
        self.state.add_repo("model", repo, {"README.md": f"# {name}\n".encode()}, writable=writable)
        return repo

    def ours(self, model: str) -> int:
        """Open pull requests of ours on a model repo."""
        repo = self.state.repo("model", model)
        return sum(d["author"] == self.state.user and d["status"] == "open" for d in repo.discussions.values())

    def report_copy(self, name: str) -> Path:
        target = self.work / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(self.w["root"] / "report", target)
        return target


# ------------------------------------------------------------------ the cases


def edited_results(old: str, new: str, said: str) -> Callable[[Battery], Outcome]:
    def case(b: Battery) -> Outcome:
        report = b.report_copy("edited")
        path = report / RESULTS
        path.write_text(path.read_text("utf-8").replace(old, new, 1), "utf-8")
        return Outcome([b.cli("publish", report, "--model", b.model("edit-target"))], [said])
    return case


def details_into_the_benchmark(b: Battery) -> Outcome:
    return Outcome([b.cli("publish", b.w["root"] / "report", "--model", b.model("m1"), "--details", DATASET)],
                   ["is not a details dataset made by `oneruler publish`"])


def details_into_another_models(b: Battery) -> Outcome:
    m2, m3 = b.model("m2"), b.model("m3")
    first = b.cli("publish", b.w["root"] / "report", "--model", m2, "--details", "my-org/details-m2")
    second = b.cli("publish", b.w["root"] / "report", "--model", m3, "--details", "my-org/details-m2")
    return Outcome([first, second], ["holds the details of my-org/m2, not of my-org/m3"],
                   {"dataset:my-org/details-m2", "model:my-org/m2"})


def details_into_a_foreign_dataset(b: Battery) -> Outcome:
    b.state.add_repo("dataset", "my-org/someones-data", {"README.md": b"---\npretty_name: data\n---\n", "a.csv": b"x\n"})
    return Outcome([b.cli("publish", b.w["root"] / "report", "--model", b.model("m4"), "--details",
                          "my-org/someones-data")], ["(it holds a.csv)"])


def symlinked_results(b: Battery) -> Outcome:
    report = b.report_copy("linked")
    outside = b.work / "outside.yaml"
    shutil.copy(report / RESULTS, outside)
    (report / RESULTS).unlink()
    (report / RESULTS).symlink_to(outside)
    return Outcome([b.cli("publish", report, "--model", b.model("m5"))], ["outside the report folder"])


def folder_as_results(b: Battery) -> Outcome:
    report = b.report_copy("folder")
    (report / RESULTS).unlink()
    (report / RESULTS).mkdir()
    return Outcome([b.cli("publish", report, "--model", b.model("m6"))], ["is a folder, not a file"])


def mixed_details(b: Battery) -> Outcome:
    report = b.report_copy("mixed")
    shutil.copy(b.w["root"] / "report-b" / "details.parquet", report / "details.parquet")
    return Outcome([b.cli("publish", report, "--model", b.model("m7"), "--details", "my-org/mixed")],
                   ["does not hold the verdicts of examples.jsonl"])


def fault_case(action: str, path: str, said: str, model: str, opens: bool = False, **how) -> Callable[[Battery], Outcome]:
    """``publish`` to a model repo of its own with one fault playing; ``opens``: the pull request is opened in the end."""
    def case(b: Battery) -> Outcome:
        target = b.model(model)
        b.state.fault(action, path, **how)
        return Outcome([b.cli("publish", b.w["root"] / "report", "--model", target)], [said],
                       {f"model:{target}"} if opens else set())
    return case


def no_dataset_in_report(b: Battery) -> Outcome:
    report = b.report_copy("nodataset")
    text = (report / "scores.json").read_text("utf-8")
    (report / "scores.json").write_text(text.replace('"dataset": {', '"was_dataset": {'), "utf-8")
    return Outcome([b.cli("publish", report, "--model", b.model("m8"))], ["scores.json records no dataset"])


def reruns(b: Battery) -> Outcome:
    model = b.model("rerun")
    runs = [b.cli("publish", b.w["root"] / "report", "--model", model) for _ in range(2)]
    problems = ["duplicated: more than one open pull request"] if b.ours(model) != 1 else []
    return Outcome(runs, ["already there (our open pull request holds these results)"], {f"model:{model}"}, problems)


def cut_after_apply(b: Battery) -> Outcome:
    model = b.model("cut-after")
    b.state.fault("cut-after", r"/api/models/my-org/cut-after/commit/main\?create_pr=1", method="POST")
    runs = [b.cli("publish", b.w["root"] / "report", "--model", model),
            b.cli("publish", b.w["root"] / "report", "--model", model)]
    problems = ["duplicated: more than one open pull request"] if b.ours(model) != 1 else []
    return Outcome(runs, ["the Hub had applied it", "already there"], {f"model:{model}"}, problems)


def killed_after_apply(b: Battery) -> Outcome:
    model = b.model("killed")
    fault = b.state.fault("hang-after", r"/api/models/my-org/killed/commit/main\?create_pr=1", method="POST")
    proc = subprocess.Popen([sys.executable, "-m", "builders.cli", "publish", str(b.w["root"] / "report"), "--model",
                             model], env=b.env(), cwd=b.w["root"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 300
    while fault.hits == 0 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(0.5)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    again = b.cli("publish", b.w["root"] / "report", "--model", model)
    problems = ["duplicated: more than one open pull request"] if b.ours(model) != 1 else []
    return Outcome([again], ["already there"], {f"model:{model}"}, problems)


def two_at_once(b: Battery) -> Outcome:
    model = b.model("twice")
    procs = [subprocess.Popen([sys.executable, "-m", "builders.cli", "publish", str(b.w["root"] / "report"), "--model",
                               model], env=b.env(), cwd=b.w["root"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outputs = [p.communicate() for p in procs]
    runs = [subprocess.CompletedProcess(p.args, p.returncode, out, err) for p, (out, err) in zip(procs, outputs)]
    problems = ["duplicated: more than one open pull request"] if b.ours(model) != 1 else []
    return Outcome(runs, ["already there"], {f"model:{model}"}, problems)


def race_with_score(b: Battery) -> Outcome:
    from builders.base.locking import FolderLock

    model, report = b.model("race"), b.report_copy("race")
    lock = FolderLock(report).acquire()
    proc = subprocess.Popen([sys.executable, "-m", "builders.cli", "publish", str(report), "--model", model],
                            env=b.env(), cwd=b.w["root"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stderr.readline()
    for name in ("scores.json", "examples.jsonl", "details.parquet", RESULTS):
        shutil.copy(b.w["root"] / "report-b" / name, report / name)
    lock.release()
    out, err = proc.communicate()
    run = subprocess.CompletedProcess(proc.args, proc.returncode, out, first + err)
    sent = b.state.pull_requests("model", model).get(1, {}).get(RESULTS)
    problems = [] if sent == (b.w["root"] / "report-b" / RESULTS).read_bytes() else ["overwritten: a mixed report"]
    return Outcome([run], ["waiting up to 120 s for another oneruler command"], {f"model:{model}"}, problems)


def secrets_in_the_endpoint(b: Battery) -> Outcome:
    endpoint = b.w["endpoint"].replace("http://", f"http://someone:{PASSWORD}@")
    out = b.work / "secret-outputs"
    shutil.rmtree(out, ignore_errors=True)
    runs = [b.cli(*args, HF_ENDPOINT=endpoint) for args in (
        ["publish", b.w["root"] / "report", "--model", "my-org/test-model"],
        ["leaderboard", b.w["root"] / "report", "--dataset", DATASET, "--out", out / "board"],
        ["push", b.w["root"] / "export", "--repo-id", "my-org/secret-push"],
        ["show", "en_s_niah_8k", "--dataset", DATASET],
        ["score", b.w["root"] / "preds.jsonl", "--dataset", DATASET, "--out", out / "scored"])]
    return Outcome(runs, ["HTTP 401"], files=[out])


def signed_urls_in_retries(b: Battery) -> Outcome:
    shard = next((b.w["root"] / "export" / "data").glob("*/*.parquet"))
    b.state.lfs.pop(hashlib.sha256(shard.read_bytes()).hexdigest(), None)
    b.state.fault("cut-before", r"lfs-upload", origin="storage", method="PUT")
    return Outcome([b.cli("push", b.w["root"] / "export", "--repo-id", "my-org/sig-push")], ["sig=***"],
                   {"dataset:my-org/sig-push"})


def refused_pull_request(b: Battery) -> Outcome:
    model = b.model("refusing")
    b.state.fault("status", r"/api/models/my-org/refusing/commit/main\?create_pr=1", status=403, times=None,
                  message="Pull requests are disabled on this repository")
    run = b.cli("publish", b.w["root"] / "report", "--model", model, "--details", "my-org/refused-details")
    problems = ["overwritten: an orphan details dataset"] if b.state.repo("dataset", "my-org/refused-details") else []
    return Outcome([run], ["refused the pull request", "Pull requests are disabled", "was deleted again"], set(),
                   problems)


def refused_update_puts_details_back(b: Battery) -> Outcome:
    model = b.model("locked-pr")
    first = b.cli("publish", b.w["root"] / "report", "--model", model, "--details", "my-org/kept")
    before = b.state.files("dataset", "my-org/kept")
    b.state.fault("status", r"/api/models/my-org/locked-pr/commit/refs%2Fpr%2F1", status=403, times=None,
                  message="This pull request is locked")
    second = b.cli("publish", b.w["root"] / "report-b", "--model", model, "--details", "my-org/kept")
    problems = [] if b.state.files("dataset", "my-org/kept") == before else ["overwritten: details not put back"]
    return Outcome([first, second], ["was put back as it was"], {f"model:{model}", "dataset:my-org/kept"}, problems)


def no_pr_advice(b: Battery) -> Outcome:
    model = b.model("theirs", writable=False)
    return Outcome([b.cli("publish", b.w["root"] / "report", "--model", model, "--no-pr")],
                   ["drop --no-pr to open a pull request instead"])


def empty_folder_named_like_the_dataset(b: Battery) -> Outcome:
    cwd = b.work / "cwd"
    (cwd / "my-org" / "oneruler").mkdir(parents=True, exist_ok=True)
    model = b.model("cwd")
    return Outcome([b.cli("publish", b.w["root"] / "report", "--model", model, cwd=cwd)], ["opened a pull request"],
                   {f"model:{model}"})


def dataset_id_path(b: Battery) -> Outcome:
    return Outcome([b.cli("score", b.w["root"] / "preds.jsonl", "--dataset", b.w["root"] / "export", "--dataset-id",
                          "../..@" + "0" * 40, "--out", b.work / "x")], ["expected ORG/NAME@COMMIT"])


def no_leaderboard_covered(b: Battery) -> Outcome:
    lines = (b.w["root"] / "preds.jsonl").read_text("utf-8").splitlines()[:20]
    (b.work / "few.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    head = b.state.head("dataset", DATASET)
    scored = b.cli("score", b.work / "few.jsonl", "--dataset", b.w["root"] / "export", "--allow-partial",
                   "--dataset-id", f"{DATASET}@{head}", "--out", b.work / "few")
    dry = b.cli("publish", b.work / "few", "--model", "my-org/test-model", "--dry-run")
    problems = ["wrong cause: asked for --dataset-id"] if "--dataset-id" in dry.stderr else []
    return Outcome([scored, dry], ["covers no leaderboard in full"], set(), problems)


def hostile_board(b: Battery) -> Outcome:
    import yaml

    board = "my-org/board"
    b.state.add_repo("dataset", board, {"eval.yaml": (b.w["root"] / "export" / "eval.yaml").read_bytes()})
    values = {"high": 250, "low": -5, "nan": float("nan"), "huge": 1e308, "word": "a word", "outside": 95.0,
              "good": 85.0}
    for name, value in values.items():
        entry = [{"dataset": {"id": board, "task_id": "oneruler_8k"}, "value": value,
                  "notes": "95 % CI 80.00–90.00 (cluster bootstrap over example indices)"}]
        b.state.add_repo("model", f"far-org/b-{name}", {"README.md": b"x"}, writable=False)
        b.state.open_pull_request("model", f"far-org/b-{name}", {RESULTS: yaml.safe_dump(entry).encode()}, "someone")
    b.state.open_pull_request("model", "far-org/b-good", {RESULTS: yaml.safe_dump([{
        "dataset": {"id": board, "task_id": "oneruler_8k"}, "value": 70.0}]).encode()}, "someone")
    out = b.work / "board"
    run = b.cli("leaderboard", "--dataset", board, "--out", out)
    rows = (out / "leaderboard.csv").read_text("utf-8").splitlines() if (out / "leaderboard.csv").is_file() else []
    problems = [] if len(rows) == 3 else [f"wrong cause: {len(rows) - 1} rows on the board"]
    return Outcome([run], ["left out", "does not hold its value", "shown once"], set(), problems)


def board_errors(b: Battery) -> Outcome:
    missing = b.cli("leaderboard", b.w["root"] / "report", "--dataset", "my-org/nothing", "--out", b.work / "b1")
    refused = b.cli("leaderboard", b.w["root"] / "report", "--dataset", DATASET, "--out", b.work / "b2",
                    HF_TOKEN="hf_" + "0" * 32)
    b.state.fault("hang", r"/leaderboard$", times=None)
    hung = b.cli("leaderboard", b.w["root"] / "report", "--dataset", DATASET, "--out", b.work / "b3",
                 ONERULER_HUB_TIMEOUT="1")
    problems = [f"wrong cause: exit {r.returncode}" for r, code in ((missing, 2), (refused, 2), (hung, 0))
                if r.returncode != code]
    return Outcome([missing, refused, hung], ["does not exist on the Hub", "HTTP 401", "did not answer in time"],
                   set(), problems)


def push_case(repo: str, said: list[str], commits: int | None, keep: bool = True, existing: bool = False,
              fault: dict | None = None) -> Callable[[Battery], Outcome]:
    def case(b: Battery) -> Outcome:
        if existing:
            b.state.add_repo("dataset", repo)
        for shard in sorted((b.w["root"] / "export" / "data").glob("*/*.parquet"))[:2]:
            b.state.lfs.pop(hashlib.sha256(shard.read_bytes()).hexdigest(), None)
        if fault:
            b.state.fault(**fault)
        run = b.cli("push", b.w["root"] / "export", "--repo-id", repo)
        found = b.state.repo("dataset", repo)
        problems = []
        if commits is not None and found is not None and len(found.branches["main"].commits) != commits:
            problems.append(f"duplicated: {len(found.branches['main'].commits)} commits")
        if not keep and found is not None and not existing:
            problems.append("overwritten: an empty repository left behind")
        return Outcome([run], said, {f"dataset:{repo}"}, problems)
    return case


CASES: list[tuple[str, Callable[[Battery], Outcome]]] = [
    ("1 details into the benchmark", details_into_the_benchmark),
    ("1 details into another model's", details_into_another_models),
    ("1 details into a foreign dataset", details_into_a_foreign_dataset),
    ("2 value edited", edited_results("value: 84.62", "value: 99.0", "value of oneruler_8k is 99.0")),
    ("2 value NaN", edited_results("value: 84.62", "value: .nan", "value of oneruler_8k is nan")),
    ("2 value inf", edited_results("value: 84.62", "value: .inf", "value of oneruler_8k is inf")),
    ("2 value 1e308", edited_results("value: 84.62", "value: 1.0e+308", "is 1e+308")),
    ("2 value -3", edited_results("value: 84.62", "value: -3", "value of oneruler_8k is -3")),
    ("2 value a word", edited_results("value: 84.62", "value: a word", "is 'a word'")),
    ("2 forged verifyToken", edited_results("- dataset:", "- verifyToken: x\n  dataset:", "verify_token")),
    ("2 forged source", edited_results("- dataset:", "- source:\n    url: https://x.example\n  dataset:", "source_url")),
    ("2 revision main", edited_results("revision: ", "revision: main #", "dataset_revision")),
    ("2 results through a symlink", symlinked_results),
    ("11 a folder as the results file", folder_as_results),
    ("2/6 details of another scoring", mixed_details),
    ("3 manifest 500", fault_case("status", r"/resolve/[0-9a-f]{40}/manifest\.json",
                                  "cannot read manifest.json", "f1", status=500, retry_after="0", times=None)),
    ("3 manifest 404", fault_case("status", r"/resolve/[0-9a-f]{40}/manifest\.json",
                                  "has no manifest.json", "f2", status=404, code="EntryNotFound", times=None)),
    ("3 report without dataset", no_dataset_in_report),
    ("11 eval.yaml 500", fault_case("status", r"/resolve/[0-9a-f]{40}/eval\.yaml",
                                    "cannot read eval.yaml", "f3", status=500, retry_after="0", times=None)),
    ("4 hostile leaderboard entries", hostile_board),
    ("4/11 leaderboard 404, 401, hang", board_errors),
    ("5 rerun twice", reruns),
    ("5 cut after the commit was applied", cut_after_apply),
    ("5 kill -9 after the commit was applied", killed_after_apply),
    ("5 two at once", two_at_once),
    ("6 publish while score rewrites", race_with_score),
    ("7 password in HF_ENDPOINT", secrets_in_the_endpoint),
    ("7 signed storage URLs in retries", signed_urls_in_retries),
    ("8 refused pull request after details", refused_pull_request),
    ("8 refused update puts details back", refused_update_puts_details_back),
    ("8 --no-pr advice only with --no-pr", no_pr_advice),
    ("9 push: cut after apply", push_case("my-org/p1", ["the Hub had applied it"], 2, fault=dict(
        action="cut-after", path=r"/api/datasets/my-org/p1/commit/main", method="POST"))),
    ("9 push: LFS upload cut once", push_case("my-org/p2", ["pushed"], 2, fault=dict(
        action="cut-before", path="lfs-upload", origin="storage", method="PUT"))),
    ("9 push: every LFS upload cut", push_case("my-org/p3", ["was deleted again"], None, keep=False, fault=dict(
        action="cut-before", path="lfs-upload", origin="storage", method="PUT", times=None))),
    ("9 push: 409 on create", push_case("my-org/p4", ["409 Conflict"], None, keep=False, fault=dict(
        action="status", path="/api/repos/create", status=409, message="conflict"))),
    ("9 push: 409 loop on create", push_case("my-org/p5", ["409 Conflict 5 times"], None, keep=False, fault=dict(
        action="status", path="/api/repos/create", status=409, times=None,
        message="Cannot create repo: another conflicting operation is in progress"))),
    ("9 push: multi-line 400 on first commit", push_case("my-org/p6", ["must be a list - license"], None, keep=False,
        fault=dict(action="status", path=r"/api/datasets/my-org/p6/commit/main", status=400, times=None,
                   in_header=False, message="Invalid metadata.\n- configs: must be a list\n- license: unknown"))),
    ("9 push: 503 on an existing repo", push_case("my-org/p7", ["gave up after 4 tries"], 1, existing=True, fault=dict(
        action="status", path=r"/api/datasets/my-org/p7/commit/main", status=503, retry_after="0", times=None))),
    ("10 429 with Retry-After: 1", fault_case("status", r"/api/models/my-org/r1$",
                                              "waiting 1 s before try 2 of 4", "r1", True, status=429, retry_after="1",
                                              message="Too many requests")),
    ("10 503 every time", fault_case("status", r"/api/models/my-org/r2$", "gave up after 4 tries", "r2",
                                     status=503, retry_after="0", times=None)),
    ("10 a Hub that stops answering", fault_case("hang", r"/api/models/my-org/r3$", "did not answer in time",
                                                 "r3", times=None)),
    ("10 500 once on the pull request", fault_case("status", r"/api/models/my-org/r4/commit",
                                                   "opened a pull request", "r4", True, status=500, retry_after="0")),
    ("11 empty folder named like the dataset", empty_folder_named_like_the_dataset),
    ("11 --dataset-id ../..@SHA", dataset_id_path),
    ("11 dry run of a report covering no board", no_leaderboard_covered),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, default=None, help="working folder (default: a new temporary one)")
    parser.add_argument("--export", type=Path, default=None, help="a built export of the oneruler_8k configs")
    parser.add_argument("--only", default=None, help="play the cases whose name holds this text")
    args = parser.parse_args()
    from publish_world import make_world, second_report

    work = args.work or Path(tempfile.mkdtemp(prefix="oneruler-battery-"))
    root = work / "world"
    root.mkdir(parents=True, exist_ok=True)
    if args.export is not None and not (root / "export").exists():
        shutil.copytree(args.export, root / "export")
    cache = work / "source-cache"
    cache.mkdir(parents=True, exist_ok=True)
    world_gen = make_world(root, cache)
    world = next(world_gen)
    try:
        second_report(world)  # report-b
        battery = Battery(world, work)
        for name, case in CASES:
            if args.only is None or args.only in name:
                battery.check(name, case)
    finally:
        world_gen.close()
    print("\n" + ", ".join(f"{k} {v}" for k, v in battery.counts.items()))
    bad = sum(v for k, v in battery.counts.items() if k not in ("cases", "commands"))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
