"""``oneruler run`` (and ``merge``, ``ingest``, ``score``) under two checkouts against one stand-in server:
every file and every line of output the same, apart from times.

    python -m builders.cli build 'pl_*_8k' 'en_s_niah_8k' --samples 3 --out /tmp/runproof/export
    python benchmarks/run_unchanged.py /tmp/runproof/export --before /path/to/old/checkout [--after .]

Starts the vLLM stand-in of the tests (``tests/openai_server.py``, its Batch API included) on
127.0.0.1 with a scripted model: each row of EXPORT answered by a sha256 of its id (the whole
answer, the first value, a wrong sentence, "none", a ``<think>`` block, reasoning in
``reasoning_content``), some rows failing once with HTTP 500. Then, for each checkout in turn (the
server's faults and batches reset before each, so both see the same server), runs with
``PYTHONPATH=CHECKOUT python -m builders.cli`` in a folder of its own:

- a plain run (``--max-retries 0``: the faulted rows fail), then ``--retry-failed`` on a copy of it;
- a resumed run (``--limit 1``, then all rows); a run whose rows partly do not fit
  (``--max-model-len 7990 --skip-overlong``), then ``--retry-failed`` with the server's window;
- a streamed run, a ``--api completions`` run;
- ``--shard 0/2`` and ``1/2``, then ``merge``;
- ``--batch-requests`` (split by ``--batch-max-requests``, rows over the window skipped), the results
  written from the request files as ``vllm run-batch`` would (every fifth row failed), then
  ``ingest``; ``--retry-failed`` on the ingested file and on the merged one; ``--batch-requests``
  without a server; ``--submit`` to the stand-in's Batch API, then ``ingest`` fetching the results;
- ``--dry-run`` (on a finished file and on a new one); bad invocations (exit code and message);
- ``score`` of every predictions file.

Compared byte for byte: exit codes, stdout and stderr of every command; every file written
(predictions, metas, request and result files, scores.json, scores.csv, examples.jsonl, errors.csv,
effective_length.csv, depth.csv) with ISO times, ``latency_s`` and ``wait_s`` values blanked.
``--expect-different NAME`` lists commands whose output may differ (a fixed bug). Prints one JSON
line; exits 1 if anything else differs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import click
import pyarrow.parquet as pq
from schema_moves import moved

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the vLLM stand-in of the tests (tests/openai_server.py)

TIMES = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")
LATENCY = re.compile(rb'"(latency_s|wait_s)": (-?[0-9.e+-]+|null)')
COMPARED = ("*.jsonl", "*.json", "*-report/*.json", "*-report/*.jsonl", "*-report/*.csv")


def rows_of(export: Path) -> dict[str, dict]:
    """id → {"input", "answers"} of every row of the export."""
    rows = {}
    for shard in sorted(export.glob("data/*/*.parquet")):
        for row in pq.read_table(shard, columns=["id", "input", "answers"]).to_pylist():
            rows[row["id"]] = row
    return rows


def kind_of(ident: str, n: int) -> int:
    """A fixed choice among ``n`` per row (sha256 of its id)."""
    import hashlib

    return int(hashlib.sha256(ident.encode()).hexdigest(), 16) % n


def scripted_state(rows: dict[str, dict]):
    """The stand-in's state: every prompt known by its row, a fixed reply per row, a window all rows fit."""
    from openai_server import Reply, ServerState

    state = ServerState(max_model_len=9000)
    state.ids_by_prompt = {row["input"]: ident for ident, row in rows.items()}

    def reply(ident: str | None) -> Reply:
        answers = rows[ident]["answers"] if ident in rows else ["?"]
        return [Reply(", ".join(answers)), Reply(answers[0]), Reply("I cannot find it."), Reply("none"),
                Reply(f"<think>It could be {answers[-1]}.</think> {', '.join(answers)}"),
                Reply(answers[0], reasoning_content=f"The needle says {answers[0]}.")][kind_of(ident or "", 6)]

    state.default_reply = reply
    return state


def arm(state, rows: dict[str, dict]) -> None:
    """The same server for every checkout: faults (HTTP 500 once, for every seventh row) and no batches yet."""
    from openai_server import Fault

    state.faults = {i: [Fault(500, message="injected")] for i in rows if kind_of(i, 7) == 0}
    state.files.clear()
    state.batches.clear()


def cli(code: Path, folder: Path, *args: str, key: str = "") -> dict:
    """One command with the code of checkout ``code``, in ``folder``: exit code, stdout, stderr."""
    env = dict(os.environ, PYTHONPATH=str(code), OPENAI_API_KEY=key, HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-m", "builders.cli", *args], cwd=folder, env=env, capture_output=True,
                          timeout=600)
    return {"exit": done.returncode, "stdout": done.stdout.decode(), "stderr": done.stderr.decode()}


def write_results(state, folder: Path, requests: str, out: str) -> None:
    """What ``vllm run-batch`` writes for every request file of ``requests`` (parts in the meta's order), every
    fifth row failed (an ``error`` object, or HTTP 500)."""
    from batch_api import run_batch

    meta = json.loads((folder / requests.replace(".jsonl", ".meta.json")).read_text())
    text = "".join(run_batch(state, (folder / f["file"]).read_text()) for f in meta["batch"]["files"])
    lines = []
    for line in map(json.loads, text.splitlines()):
        if kind_of(line["custom_id"], 5) == 0:
            line.update(response=None, error={"code": "server_error", "message": "injected"})
        elif kind_of(line["custom_id"], 5) == 1:
            line["response"].update(status_code=500, body={"error": {"message": "engine dead", "code": 500}})
        lines.append(json.dumps(line) + "\n")
    (folder / out).write_text("".join(lines))


def bad_invocations(export: str, url: str) -> dict[str, list[str]]:
    """Invocations that must fail, each in one line (named for the report)."""
    run = ["run", export, "--base-url", url, "--model", "test-model", "--quiet"]
    return {
        "concurrency-zero": run + ["--out", "x.jsonl", "--concurrency", "0"],
        "shard-out-of-range": run + ["--out", "x.jsonl", "--shard", "3/2"],
        "temperature": run + ["--out", "x.jsonl", "--temperature", "5"],
        "timeout-zero": run + ["--out", "x.jsonl", "--timeout", "0"],
        "retries-negative": run + ["--out", "x.jsonl", "--max-retries", "-1"],
        "retry-wait-negative": run + ["--out", "x.jsonl", "--retry-wait", "-1"],
        "batch-max-requests": run + ["--batch-requests", "b.jsonl", "--batch-max-requests", "0"],
        "batch-max-bytes": run + ["--batch-requests", "b.jsonl", "--batch-max-bytes", "10"],
        "window-zero": run + ["--out", "x.jsonl", "--max-model-len", "0"],
        "count-margin": run + ["--out", "x.jsonl", "--count-margin", "-1"],
        "max-failed": run + ["--out", "x.jsonl", "--max-failed", "x"],
        "extra-body": run + ["--out", "x.jsonl", "--extra-body", "[1]"],
        "limit-zero": run + ["--out", "x.jsonl", "--limit", "0"],
        "model-not-served": ["run", export, "--base-url", url, "--model", "other", "--out", "x.jsonl", "--quiet"],
        "submit-without-batch": run + ["--out", "x.jsonl", "--submit"],
        "no-out": run,
        "twice-the-url": run + ["--base-url", url, "--out", "x.jsonl"],
        "revision-of-a-folder": run + ["--out", "x.jsonl", "--revision", "main"],
        "overlong": run + ["--out", "out/x.jsonl", "--max-model-len", "4000"],
        "overlong-dry-run": run + ["--out", "x.jsonl", "--max-model-len", "4000", "--dry-run"],
        "resume-other-sampling": run + ["--out", "plain.jsonl", "--temperature", "0.5"],
        "resume-other-shard": run + ["--out", "plain.jsonl", "--shard", "0/2"],
        "resume-other-model-in-out": ["run", export, "--base-url", url, "--model", "out", "--out", "out/plain.jsonl"],
        "lines-without-meta": run + ["--out", "foreign.txt"],
        "merge-into-an-input": ["merge", "s0.jsonl", "s1.jsonl", "--out", "s0.jsonl"],
        "merge-other-runs": ["merge", "s0.jsonl", "comp.jsonl", "--out", "m2.jsonl"],
        "ingest-without-meta": ["ingest", "results.jsonl", "--requests", "nothing.jsonl", "--out", "i2.jsonl"],
        "bad-meta-shape": run + ["--out", "badmeta.jsonl"],
        "unreachable": ["run", export, "--base-url", "http://127.0.0.1:9/v1", "--model", "test-model", "--out",
                        "x.jsonl", "--quiet"],
    }


def copy(folder: Path, name: str, to: str) -> None:
    """A predictions file and its meta copied under another name."""
    for suffix in (".jsonl", ".meta.json"):
        shutil.copy(folder / f"{name}{suffix}", folder / f"{to}{suffix}")


def session(code: Path, folder: Path, export: str, url: str, state, rows: dict) -> dict[str, dict]:
    """Every command of the comparison with one checkout; returns name → its outcome."""
    run = ["run", export, "--base-url", url, "--model", "test-model", "--quiet", "--max-retries", "0",
           "--max-failed", "100%"]
    said = {}
    arm(state, rows)
    said["plain"] = cli(code, folder, *run, "--out", "plain.jsonl")
    copy(folder, "plain", "retry")
    said["retry-failed"] = cli(code, folder, *run, "--out", "retry.jsonl", "--retry-failed")
    said["resume-limit"] = cli(code, folder, *run, "--out", "resume.jsonl", "--limit", "1")
    said["resume-all"] = cli(code, folder, *run, "--out", "resume.jsonl")
    said["skip-overlong"] = cli(code, folder, *run, "--out", "skip.jsonl", "--max-model-len", "7990", "--skip-overlong")
    said["skip-retried"] = cli(code, folder, *run, "--out", "skip.jsonl", "--retry-failed")
    said["stream"] = cli(code, folder, *run, "--out", "stream.jsonl", "--stream")
    said["completions"] = cli(code, folder, *run, "--out", "comp.jsonl", "--api", "completions", "--limit", "1")
    said["shard-0"] = cli(code, folder, *run, "--out", "s0.jsonl", "--shard", "0/2")
    said["shard-1"] = cli(code, folder, *run, "--out", "s1.jsonl", "--shard", "1/2")
    said["merge"] = cli(code, folder, "merge", "s0.jsonl", "s1.jsonl", "--out", "merged.jsonl")
    said["dry-run-done"] = cli(code, folder, *run, "--out", "plain.jsonl", "--dry-run", "--price-in", "1", "--price-out", "2")
    said["dry-run-new"] = cli(code, folder, *run, "--out", "new.jsonl", "--dry-run", "--max-model-len", "8000")
    said["batch-requests"] = cli(code, folder, *run, "--batch-requests", "req.jsonl", "--batch-max-requests", "7",
                                 "--max-model-len", "7990", "--skip-overlong")
    write_results(state, folder, "req.jsonl", "results.jsonl")
    said["ingest"] = cli(code, folder, "ingest", "results.jsonl", "--requests", "req.jsonl", "--out", "ingested.jsonl")
    copy(folder, "ingested", "ingretry")
    said["ingest-then-retry"] = cli(code, folder, *run, "--out", "ingretry.jsonl", "--retry-failed")
    copy(folder, "merged", "mergedrun")
    said["merge-then-run"] = cli(code, folder, *run, "--out", "mergedrun.jsonl", "--retry-failed")
    said["batch-offline"] = cli(code, folder, "run", export, "--model", "test-model", "--quiet", "--batch-requests",
                                "offline.jsonl", "--max-model-len", "9000")
    said["submit"] = cli(code, folder, *run, "--batch-requests", "sub.jsonl", "--batch-max-requests", "20", "--submit",
                         key="sk-test")
    said["ingest-fetch"] = cli(code, folder, "ingest", "--requests", "sub.jsonl", "--out", "sub_ing.jsonl", "--base-url",
                               url, "--wait", "30", "--poll", "0.05", key="sk-test")
    (folder / "out").mkdir(exist_ok=True)
    copy(folder, "plain", "out/plain")
    (folder / "foreign.txt").write_text('{"id": "en_s_niah_8k/0", "prediction": "x"}\n')
    (folder / "badmeta.jsonl").write_text("")
    bad = dict(json.loads((folder / "plain.meta.json").read_text()), runs=5)  # main: a TypeError's traceback
    (folder / "badmeta.meta.json").write_text(json.dumps(bad))
    for name, args in bad_invocations(export, url).items():
        said[f"error:{name}"] = cli(code, folder, *args)
    for name in ("plain", "retry", "resume", "skip", "stream", "merged", "ingested", "sub_ing", "ingretry", "mergedrun"):
        said[f"score:{name}"] = cli(code, folder, "score", f"{name}.jsonl", "--dataset", export, "--out",
                                    f"{name}-report", "--allow-partial")
    return said


def blanked(data: bytes) -> bytes:
    """The bytes with times and latencies blanked."""
    return LATENCY.sub(rb'"\1": "T"', TIMES.sub(b"T", data))  # still JSON: schema_moves.py reads it


def compare(before: Path, after: Path, old: dict, new: dict, expected: set[str]) -> tuple[list[str], list[str], int]:
    """(differences, expected differences and files that differ only by what the schema change moves, files
    compared)."""
    found, allowed = [], []
    for name in old:
        for part in ("exit", "stdout", "stderr"):
            if old[name][part] != new[name][part]:
                (allowed if name in expected else found).append(f"{name} {part}: {str(old[name][part])[:300]!r} "
                                                                f"!= {str(new[name][part])[:300]!r}")
    files = sorted({p.relative_to(before) for pattern in COMPARED for p in before.glob(pattern)} |
                   {p.relative_to(after) for pattern in COMPARED for p in after.glob(pattern)})
    for rel in files:
        a, b = before / rel, after / rel
        if not (a.is_file() and b.is_file()):
            found.append(f"{rel}: only {'before' if a.is_file() else 'after'}")
        elif blanked(a.read_bytes()) != blanked(b.read_bytes()):
            keys = moved(str(rel), blanked(a.read_bytes()), blanked(b.read_bytes()))
            (allowed if keys else found).append(f"{rel}: {'moved ' + ', '.join(keys) if keys else 'differs'}")
    return found, allowed, len(files)


@click.command()
@click.argument("export", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--before", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True)
@click.option("--after", type=click.Path(exists=True, file_okay=False, path_type=Path), default=REPO)
@click.option("--expect-different", multiple=True, help="A command whose output may differ (e.g. error:bad-meta-shape).")
@click.option("--keep", type=click.Path(file_okay=False, path_type=Path), default=None, help="Keep the folders here.")
def main(export: Path, before: Path, after: Path, expect_different: tuple[str, ...], keep: Path | None) -> None:
    """Run every command under both checkouts against one stand-in and compare what they wrote and said."""
    from openai_server import running_server

    rows = rows_of(export)
    state = scripted_state(rows)
    work = Path(tempfile.mkdtemp(prefix="run-unchanged-")) if keep is None else keep
    with running_server(state) as server:
        said = {}
        for name, code in (("before", before), ("after", after)):
            (work / name).mkdir(parents=True, exist_ok=True)
            said[name] = session(code.resolve(), work / name, str(export.resolve()), server.base_url, state, rows)
    found, allowed, files = compare(work / "before", work / "after", said["before"], said["after"], set(expect_different))
    print(json.dumps({"rows": len(rows), "commands": len(said["before"]), "files": files, "differences": found,
                      "expected_differences": allowed, "folders": str(work)}, indent=1))
    if keep is None:
        shutil.rmtree(work)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
