"""Every file of ``oneruler score`` and ``oneruler compare`` under two checkouts: byte for byte the same.

    python benchmarks/report_unchanged.py EXPORT --before /path/to/old/checkout [--after .] [--no-meta] [--keep DIR]

Writes three deterministic predictions files for every row of EXPORT (choices by a sha256 of the id):

- ``mixed``: ``score_unchanged.py``'s file (the whole answer, the first value, a wrong sentence, null,
  the answer cut at ``length``, "none");
- ``reasoning``: answers behind ``<think>`` blocks and in ``<Answer>`` tags, words with a plural "s"
  (strict and paper mode disagree), lines without ``finish_reason``;
- ``partial``: the mixed file with a fifth of its lines left out and some recorded as ``failed`` or
  ``skipped`` the way ``oneruler run`` writes them.

Each file (with a run meta naming a model, unless ``--no-meta``) is scored by each checkout's
``python -m builders.cli score`` under several settings (default, ``--strict``, ``--depth-bins 11``,
``--threshold 50``, the ``--truncated`` and ``--missing-policy`` policies, ``--keep-think
--answer-tag``; the partial file with ``--allow-partial``, and once without it: exit code 1); then
the report folders are compared (``oneruler compare``) in groups, with the same settings. Every file
each command writes (CSV, JSON, JSONL, Markdown, PNG), its printed output and its exit code must be
byte-identical between the checkouts (commands run in a folder per checkout with relative paths, so
the printed paths agree), and every command must end as expected (exit code 0; the refused partial
run 1). Prints one JSON line (and exits 1 on a difference or an unexpected exit code): the commands
and outputs compared, the differences, and each checkout's total time in the commands.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click
import pyarrow.parquet as pq

from schema_moves import moved
from score_unchanged import write_predictions

REPO = Path(__file__).resolve().parents[1]
SCORE_SETTINGS: dict[str, list[str]] = {
    "default": [], "strict": ["--strict"], "depth-bins-11": ["--depth-bins", "11"], "threshold-50": ["--threshold", "50"],
    "truncated-score": ["--truncated", "score"], "truncated-wrong": ["--truncated", "wrong"],
    "upstream": ["--missing-policy", "upstream"], "keep-think-answer-tag": ["--keep-think", "--answer-tag"],
}
# comparison -> (the (predictions, score setting) folders it compares, its own flags)
COMPARISONS: dict[str, tuple[list[tuple[str, str]], list[str]]] = {
    "default": ([("mixed", "default"), ("reasoning", "default"), ("partial", "default")], []),
    "strict": ([("mixed", "strict"), ("reasoning", "strict"), ("partial", "strict")], []),
    "depth-bins-11": ([(p, "depth-bins-11") for p in ("mixed", "reasoning", "partial")], ["--depth-bins", "11"]),
    "threshold-50": ([(p, "threshold-50") for p in ("mixed", "reasoning", "partial")], ["--threshold", "50"]),
    "mixed-settings": ([("mixed", "default"), ("reasoning", "strict"), ("partial", "upstream"),
                        ("reasoning", "keep-think-answer-tag")], []),
    "one-report": ([("reasoning", "truncated-score")], []),
}


def pick(ident: str, n: int) -> int:
    """A deterministic choice among ``n`` for a row id."""
    return int(hashlib.sha256(ident.encode()).hexdigest(), 16) % n


def reasoning_line(ident: str, answers: list[str]) -> dict:
    """A reasoning model's line: think blocks, answer tags, plural words, no finish_reason."""
    text = ", ".join(answers)
    kind = pick(ident, 8)
    line: dict = {"id": ident, "finish_reason": "stop"}
    line["prediction"] = [f"<think>maybe {answers[-1]}, or none</think> {text}",
                          f"<think>none of them</think><Answer>{text}</Answer>",
                          f"<Answer>not sure</Answer> on reflection: {text}",
                          " ".join(a + "s" for a in answers), text, "none", text, answers[0]][kind]
    if kind == 4:
        del line["finish_reason"]
    if kind == 6:
        line["finish_reason"] = "length"
    return line


def write_reasoning(export: Path, out: Path) -> int:
    """The ``reasoning`` file; returns its number of lines."""
    lines = [reasoning_line(row["id"], row["answers"]) for shard in sorted(export.glob("data/*/*.parquet"))
             for row in pq.read_table(shard, columns=["id", "answers"]).to_pylist()]
    out.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def write_partial(mixed: Path, out: Path) -> int:
    """The ``partial`` file from the mixed one: lines left out, others failed or skipped; returns its lines."""
    kept = []
    for text in mixed.read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        kind = pick(line["id"], 10)
        if kind < 2:
            continue
        if kind == 2:
            line.update(prediction=None, finish_reason=None, error="HTTP 500", status="failed")
        elif kind == 3 and pick(line["id"] + "/skip", 3) == 0:
            line.update(prediction=None, finish_reason=None, error="prompt over the window", status="skipped")
        else:
            line["status"] = "ok"
        kept.append(json.dumps(line) + "\n")
    out.write_text("".join(kept), encoding="utf-8")
    return len(kept)


def write_meta(predictions: Path, model: str, export: Path) -> None:
    """A run meta naming the model (how ``compare`` labels a report) and the dataset scored."""
    manifest = export / "manifest.json"
    sha = hashlib.sha256(manifest.read_bytes()).hexdigest()
    meta = {"format": "oneruler-run/1", "model": model, "base_url": None, "base_urls": [], "api": "chat",
            "dataset": {"name": str(export), "revision": None, "manifest_sha256": sha}}
    predictions.with_name(predictions.stem + ".meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")


def cli(code: Path, cwd: Path, args: list[str]) -> tuple[dict[str, bytes], float]:
    """``python -m builders.cli ARGS`` with the code of checkout ``code``: its outputs and the seconds it took."""
    env = dict(os.environ, PYTHONPATH=str(code), COLUMNS="200")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "builders.cli", *args], cwd=cwd, env=env, capture_output=True)
    seconds = time.perf_counter() - start
    return {"stdout": done.stdout, "stderr": done.stderr, "exit code": str(done.returncode).encode()}, seconds


def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file of a folder, by name."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()} if folder.is_dir() else {}


def commands(export: Path) -> list[tuple[str, list[str], str]]:
    """(name, arguments, the folder it writes) of every command, in order (scores before the comparisons)."""
    out = []
    for preds in ("mixed", "reasoning", "partial"):
        for setting, flags in SCORE_SETTINGS.items():
            extra = ["--allow-partial"] if preds == "partial" else []
            folder = f"reports/{preds}-{setting}"
            out.append((f"score {preds} {setting}", ["score", f"preds/{preds}.jsonl", "--dataset", str(export),
                                                     "--out", folder, *flags, *extra], folder))
    out.append(("score partial refused", ["score", "preds/partial.jsonl", "--dataset", str(export),
                                          "--out", "reports/partial-refused"], "reports/partial-refused"))
    for name, (folders, flags) in COMPARISONS.items():
        inputs = [f"reports/{preds}-{setting}" for preds, setting in folders]
        out.append((f"compare {name}", ["compare", *inputs, "--out", f"compare/{name}", *flags], f"compare/{name}"))
    return out


def differences(before: dict[str, bytes], after: dict[str, bytes]) -> tuple[list[str], dict[str, list[str]]]:
    """(the names whose bytes differ or exist on one side only, the names that differ only by what the schema change
    moves with the keys moved: ``schema_moves.py``)."""
    found, moves = [], {}
    for name in sorted(set(before) | set(after)):
        if before.get(name) != after.get(name):
            keys = moved(name, before[name], after[name]) if name in before and name in after else []
            if keys:
                moves[name] = keys
            else:
                found.append(name)
    return found, moves


@click.command()
@click.argument("export", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--before", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True)
@click.option("--after", type=click.Path(exists=True, file_okay=False, path_type=Path), default=REPO)
@click.option("--meta/--no-meta", default=True, show_default=True, help="Write a run meta beside each predictions file.")
@click.option("--keep", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep the work folder here (predictions, every report and comparison of both checkouts).")
def main(export: Path, before: Path, after: Path, meta: bool, keep: Path | None) -> None:
    """Score and compare fixed predictions of EXPORT with both checkouts; every output byte-identical."""
    export = export.resolve()
    work = Path(tempfile.mkdtemp(prefix="oneruler-report-unchanged-"))
    preds = work / "preds"
    preds.mkdir()
    lines = {"mixed": write_predictions(export, preds / "mixed.jsonl"),
             "reasoning": write_reasoning(export, preds / "reasoning.jsonl")}
    lines["partial"] = write_partial(preds / "mixed.jsonl", preds / "partial.jsonl")
    if meta:
        for name in lines:
            write_meta(preds / f"{name}.jsonl", f"model-{name}", export)
    found, seconds, files, unexpected, moves = {}, {"before": 0.0, "after": 0.0}, 0, {}, {}
    for side in ("before", "after"):
        shutil.copytree(preds, work / side / "preds")
    for name, args, folder in commands(export):
        outputs = {}
        for side, code in (("before", before.resolve()), ("after", after.resolve())):
            printed, took = cli(code, work / side, args)
            seconds[side] += took
            outputs[side] = {**printed, **folder_files(work / side / folder)}
            if printed["exit code"] != (b"1" if name == "score partial refused" else b"0"):
                unexpected[f"{name} ({side})"] = printed["stderr"].decode()[-300:]
        files += len(outputs["before"])
        diff, moved_here = differences(outputs["before"], outputs["after"])
        if diff:
            found[name] = diff
        moves.update({f"{name}: {file}": keys for file, keys in moved_here.items()})
    if keep is not None:
        shutil.copytree(work, keep, dirs_exist_ok=True)
    shutil.rmtree(work)
    print(json.dumps({"lines": lines, "commands": len(commands(export)), "outputs_compared": files,
                      "identical": not found, "differences": found, "moved_by_the_schema": moves,
                      "unexpected_exit_codes": unexpected,
                      "seconds": {k: round(v, 1) for k, v in seconds.items()}}))
    sys.exit(1 if found or unexpected else 0)


if __name__ == "__main__":
    main()
