"""Small exports for the report tests: hand-written rows in the exporter's layout (real Parquet, a real card
front matter, a manifest.json), and the real ``oneruler score`` / ``compare`` CLI run on them."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import yaml
from click.testing import CliRunner

from builders.cli import cli
from builders.spec.schema import CORE_FEATURES, features_of

CWE_FIELDS = {"cwe_freq_common": 0, "cwe_freq_uncommon": 0, "cwe_pool_size": 0, "cwe_pool_exhausted": False}


def row_features(task: str, left_out: tuple[str, ...] = ()) -> datasets.Features:
    """The features of a task's rows (the core's for a task this version does not know), without the needle fields
    ``left_out``: exports written before issue 27 lack ``token_depth``, before issue 18 ``actual_depth`` too."""
    try:
        features = features_of(task)
    except ValueError:
        features = CORE_FEATURES
    needles = {k: v for k, v in features["needles"].feature.items() if k not in left_out}
    return datasets.Features({**features, "needles": datasets.List(needles)})


BEFORE_ACTUAL_DEPTH = ("actual_depth", "token_depth")


def make_row(config: str, index: int, task: str, ctx: str, inst: str, length: int, answers, needles=()) -> dict:
    """One row with every column of the schema; ``needles`` as (key, value, depth[, actual_depth[, token_depth]])
    tuples."""
    return {
        "id": f"{config}/{index}", "config": config, "task": task, "context_language": ctx,
        "instruction_language": inst, "length": length, "tokenizer": "cl100k_base",
        "input": f"<text>haystack {index}</text> question?", "answers": list(answers), "num_tokens": 12,
        "needles": [dict(zip(("key", "value", "depth", "actual_depth", "token_depth"), n)) for n in needles],
        "queries": ["key"],
        "context_span": [6, 20], "index": index, "seed": 42, "reserve": 50 if task.startswith("cwe") else 30,
        "budget": length - 30, "num_units": 3, **(CWE_FIELDS if task.startswith("cwe") else {}),
    }


def write_export(root: Path, configs: dict[str, list[dict]], manifest: str | None = "v1") -> Path:
    """The exporter's layout: README.md whose front matter lists ``configs`` (data files only; features travel in
    the Parquet schema, as export/frontmatter.py writes it), data/<name>/test-<16 hex>.parquet, and a
    manifest.json whose bytes (``manifest``; None: no manifest) give the dataset its identity."""
    meta = {"configs": []}
    for n, (name, rows) in enumerate(configs.items()):
        rel = f"data/{name}/test-{n:016x}.parquet"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        needles = [x for r in rows for x in r["needles"]]
        left_out = (() if any("token_depth" in x for x in needles)
                    else ("token_depth",) if any("actual_depth" in x for x in needles) else BEFORE_ACTUAL_DEPTH)
        features = row_features(rows[0]["task"], left_out)
        pq.write_table(datasets.Dataset.from_list(rows, features=features).data.table, root / rel, compression="zstd")
        meta["configs"].append({"config_name": name, "data_files": [{"split": "test", "path": rel}]})
    text = "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n\n# ONERULER (test)\n"
    (root / "README.md").write_text(text, encoding="utf-8")
    if manifest is not None:
        (root / "manifest.json").write_text(json.dumps({"version": manifest, "configs": sorted(configs)}), encoding="utf-8")
    return root


def write_jsonl(path: Path, records: list[dict]) -> Path:
    """Predictions (or any records), one JSON object per line."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def run_cli(args: list[str]):
    """The real ``oneruler`` command line, in process."""
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def score_folder(export: Path, predictions: list[dict], out: Path, *extra, model: str | None = None) -> Path:
    """``oneruler score`` of ``predictions`` into ``out`` (with a run meta naming ``model``); fails on a non-zero exit."""
    preds = write_jsonl(out.with_suffix(".jsonl"), predictions)
    if model is not None:
        out.with_suffix(".meta.json").write_text(json.dumps({"format": "oneruler-run/1", "model": model}))
    result = run_cli(["score", preds, "--dataset", export, "--out", out, *extra])
    assert result.exit_code == 0, result.output
    return out
