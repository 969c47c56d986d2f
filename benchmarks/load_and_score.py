"""Loading one config and scoring a whole export, against reading the Parquet shards directly.

    python benchmarks/load_and_score.py EXPORT [--config pl_s_niah_128k] [--repeats 3]

Every measurement is a fresh Python process timed from the outside (interpreter start, imports,
the call), run interleaved so that the ratios compare processes that shared the machine's load:

- ``export``:  ``datasets.load_dataset(EXPORT, CONFIG, split="test")``
- ``direct``:  ``datasets.load_dataset("parquet", data_files={"test": <that config's shard>})``
- ``score``:   ``oneruler score PREDS --dataset EXPORT`` with one prediction per row of the export
- ``direct-all``: ``load_dataset("parquet", data_files=<every shard>, columns=<the columns scoring reads>)``

- ``score-before`` (with ``--before CHECKOUT``): the same ``oneruler score`` run by another checkout (its
  ``PYTHONPATH``), so that a change's before and after are ratios of one run

One warm-up round fills the ``datasets`` cache (reported as ``cold``); the figures are medians of
``--repeats`` rounds. Goals (issue 13): export/direct <= 1.5, score/direct <= 4 (issue 36: again).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

LOAD_EXPORT = """
import sys, datasets
datasets.disable_progress_bars()
ds = datasets.load_dataset(sys.argv[1], sys.argv[2], split="test", cache_dir=sys.argv[3])
assert len(ds) > 0
"""
LOAD_DIRECT = """
import sys, datasets
datasets.disable_progress_bars()
ds = datasets.load_dataset("parquet", data_files={"test": sys.argv[1]}, split="test", cache_dir=sys.argv[2])
assert len(ds) > 0
"""
LOAD_ALL = """
import json, sys, datasets
datasets.disable_progress_bars()
files = json.load(open(sys.argv[1]))
columns = json.loads(sys.argv[3])
ds = datasets.load_dataset("parquet", data_files={"test": files}, split="test", cache_dir=sys.argv[2], columns=columns)
rows = ds.to_list()
assert rows
"""


def write_predictions(export: Path, path: Path) -> tuple[int, list[str]]:
    """One prediction per row of the export (the gold answers, so every row scores); returns (rows, shards)."""
    import pyarrow.parquet as pq

    manifest = json.loads((export / "manifest.json").read_text(encoding="utf-8"))
    shards = [str(export / e["file"]) for _, e in sorted(manifest["configs"].items())]
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for shard in shards:
            table = pq.read_table(shard, columns=["id", "answers"])
            for ident, answers in zip(table.column("id").to_pylist(), table.column("answers").to_pylist()):
                fh.write(json.dumps({"id": ident, "prediction": " ".join(answers)}) + "\n")
                n += 1
    return n, shards


def timed(cmd: list[str], env: dict) -> float:
    """Wall seconds of one fresh process (fails loudly)."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:4])}… failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return seconds


@click.command()
@click.argument("export", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--config", "config", default="pl_s_niah_128k", show_default=True, help="The config to load.")
@click.option("--repeats", default=3, show_default=True, help="Measured rounds (after one warm-up round).")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--before", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Another checkout whose `oneruler score` is timed in the same rounds (score-before).")
def main(export: Path, config: str, repeats: int, as_json: bool, before: Path | None) -> None:
    """Time loading CONFIG of EXPORT and scoring every row, against direct Parquet reads."""
    from builders.report.score.rows import ROW_COLUMNS

    export = export.resolve()
    manifest = json.loads((export / "manifest.json").read_text(encoding="utf-8"))
    shard = str(export / manifest["configs"][config]["file"])
    work = Path(tempfile.mkdtemp(prefix="oneruler-loadbench-"))
    n_rows, shards = write_predictions(export, work / "preds.jsonl")
    (work / "shards.json").write_text(json.dumps(shards), encoding="utf-8")
    cache = str(work / "datasets-cache")
    env = dict(os.environ, PYTHONPATH=str(REPO), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    py = sys.executable
    commands = {
        "export": [py, "-c", LOAD_EXPORT, str(export), config, cache],
        "direct": [py, "-c", LOAD_DIRECT, shard, cache],
        "score": [py, "-m", "builders.cli", "score", str(work / "preds.jsonl"), "--dataset", str(export),
                  "--datasets-cache", cache, "--out", str(work / "report")],
        "direct-all": [py, "-c", LOAD_ALL, str(work / "shards.json"), cache, json.dumps(list(ROW_COLUMNS))],
    }
    envs = {name: env for name in commands}
    if before is not None:
        commands["score-before"] = [*commands["score"][:-1], str(work / "report-before")]
        envs["score-before"] = dict(env, PYTHONPATH=str(before.resolve()))
    times: dict[str, list[float]] = {k: [] for k in commands}
    cold = {name: timed(cmd, envs[name]) for name, cmd in commands.items()}
    for _ in range(repeats):
        for name, cmd in commands.items():
            times[name].append(timed(cmd, envs[name]))
    med = {k: statistics.median(v) for k, v in times.items()}
    figures = {
        "export": str(export), "configs": len(manifest["configs"]), "rows": n_rows, "config": config,
        "readme_kb": round((export / "README.md").stat().st_size / 1024), "repeats": repeats,
        "cold_s": {k: round(v, 2) for k, v in cold.items()},
        "median_s": {k: round(v, 2) for k, v in med.items()},
        "all_s": {k: [round(x, 2) for x in v] for k, v in times.items()},
        "export_over_direct": round(med["export"] / med["direct"], 2),
        "score_over_direct": round(med["score"] / med["direct"], 2),
        "score_over_direct_all": round(med["score"] / med["direct-all"], 2),
    }
    if before is not None:
        figures["score_before_over_direct"] = round(med["score-before"] / med["direct"], 2)
    if as_json:
        click.echo(json.dumps(figures, indent=1))
        return
    for key, value in figures.items():
        click.echo(f"{key:22s} {value}")


if __name__ == "__main__":
    main()
