"""Scores of one fixed predictions file under two checkouts: every field the older one wrote, unchanged.

    python benchmarks/score_unchanged.py EXPORT --before /path/to/old/checkout [--after .]

Makes a deterministic predictions file for every row of EXPORT (by a sha256 of the id: the whole
answer, the first value only, a wrong sentence, null, the answer cut at ``length``, or "none"),
scores it with each checkout's ``python -m builders.cli score`` and compares ``scores.json``,
``scores.csv``, ``examples.jsonl`` and ``errors.csv``: every key, column and field of the
"before" files must hold the same value "after" (new ones may be added). Prints one JSON line.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import click
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]


def write_predictions(export: Path, out: Path) -> int:
    """One line per row of every shard of ``export``; returns the number of lines."""
    n = 0
    with out.open("w", encoding="utf-8") as fh:
        for shard in sorted(export.glob("data/*/*.parquet")):
            for row in pq.read_table(shard, columns=["id", "answers"]).to_pylist():
                kind = int(hashlib.sha256(row["id"].encode()).hexdigest(), 16) % 6
                answers = row["answers"]
                text = [", ".join(answers), answers[0], "I cannot find it.", None, " ".join(answers), "none"][kind]
                line = {"id": row["id"], "prediction": text, "finish_reason": "length" if kind == 4 else "stop"}
                fh.write(json.dumps(line) + "\n")
                n += 1
    return n


def differences(before, after, path: str = "") -> list[str]:
    """Where ``after`` lacks or changes a value ``before`` holds (added keys are fine)."""
    if isinstance(before, dict) and isinstance(after, dict):
        return [d for k in before for d in (differences(before[k], after[k], f"{path}.{k}") if k in after
                                              else [f"{path}.{k}: absent after"])]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [d for i, (b, a) in enumerate(zip(before, after)) for d in differences(b, a, f"{path}[{i}]")]
    return [] if before == after else [f"{path}: {str(before)[:60]} != {str(after)[:60]}"]


def score(code: Path, predictions: Path, export: Path, out: Path) -> None:
    """``oneruler score`` with the code of checkout ``code``."""
    env = dict(os.environ, PYTHONPATH=str(code))
    subprocess.run([sys.executable, "-m", "builders.cli", "score", str(predictions), "--dataset", str(export),
                    "--out", str(out)], env=env, check=True, stdout=subprocess.DEVNULL)


def read_reports(folder: Path) -> dict:
    """The comparable files of a report folder."""
    return {"scores.json": json.loads((folder / "scores.json").read_text()),
            "scores.csv": list(csv.DictReader((folder / "scores.csv").open())),
            "examples.jsonl": [json.loads(line) for line in (folder / "examples.jsonl").open()],
            "errors.csv": list(csv.DictReader((folder / "errors.csv").open()))}


@click.command()
@click.argument("export", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--before", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True)
@click.option("--after", type=click.Path(exists=True, file_okay=False, path_type=Path), default=REPO)
def main(export: Path, before: Path, after: Path) -> None:
    """Compare the reports of the two checkouts on one fixed predictions file."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rows = write_predictions(export, tmp / "preds.jsonl")
        for name, code in (("before", before), ("after", after)):
            score(code.resolve(), tmp / "preds.jsonl", export, tmp / name)
        old, new = read_reports(tmp / "before"), read_reports(tmp / "after")
    found = {name: differences(old[name], new[name]) for name in old}
    print(json.dumps({"rows": rows, "identical": not any(found.values()),
                      "differences": {k: v[:10] for k, v in found.items() if v}}))


if __name__ == "__main__":
    main()
