"""Small exports for the run tests: hand-written rows in the exporter's layout (real Parquet, real card).

Each prompt carries ``row <id>`` so the stand-in server knows which row it is answering, and a
haystack long enough to give the preflight something to count. ``num_tokens`` is exact (cl100k).
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import tiktoken
import yaml

from builders.spec.schema import features_of

CL100K = tiktoken.get_encoding("cl100k_base")
HAYSTACK = "The river ran past the mill and the old bridge. "


def make_row(config: str, index: int, words: int = 40) -> dict:
    """One row of ``config`` (``{lang}_{task}_{length}``) with a ``words``-sentence haystack."""
    lang, rest = config.split("_", 1)
    task, _, length = rest.rpartition("_")
    value = str(1_000_000 + 7919 * (index + 1) + 104_729 * len(config))
    text = f"Some text. row {config}/{index} " + HAYSTACK * words + " What is the special number? Answer:"
    cwe = task.startswith("cwe")
    return {
        "id": f"{config}/{index}", "config": config, "task": task, "context_language": lang,
        "instruction_language": lang, "length": int(length[:-1]) * 1000, "tokenizer": "cl100k_base",
        "input": text, "answers": [f"word{i}" for i in range(10)] if cwe else [value],
        "num_tokens": len(CL100K.encode(text)), "needles": [] if cwe else [{"key": "river", "value": value, "depth": 50}],
        "queries": ["river"], "context_span": [0, len(text)], "index": index, "seed": 42,
        "reserve": 50 if cwe else 30, "budget": 8000 - 30, "num_units": words,
        **({"cwe_freq_common": 0, "cwe_freq_uncommon": 0, "cwe_pool_size": 0, "cwe_pool_exhausted": False} if cwe else {}),
    }


def write_export(root: Path, configs: dict[str, list[dict]]) -> Path:
    """README.md with configs, data/<name>/test-<16 hex>.parquet (the export's features), and a manifest.json."""
    root.mkdir(parents=True, exist_ok=True)
    meta = {"configs": []}  # as the exporter writes it: configs and their files, no dataset_info
    for n, (name, rows) in enumerate(sorted(configs.items())):
        rel = f"data/{name}/test-{n:016x}.parquet"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        features = features_of(rows[0]["task"])  # the config's family's columns, as the exporter writes them
        pq.write_table(datasets.Dataset.from_list(rows, features=features).data.table, root / rel, compression="zstd")
        meta["configs"].append({"config_name": name, "data_files": [{"split": "test", "path": rel}]})
    text = "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n\n# test export\n"
    (root / "README.md").write_text(text, encoding="utf-8")
    (root / "manifest.json").write_text(json.dumps({"format": "oneruler-export/1", "configs": sorted(configs)}) + "\n")
    return root


def small_export(root: Path, names: list[str], rows_per_config: int, words: int = 40) -> tuple[Path, dict[str, dict]]:
    """An export of ``names`` with ``rows_per_config`` rows each; returns (folder, id → row)."""
    configs = {name: [make_row(name, i, words) for i in range(rows_per_config)] for name in names}
    return write_export(root, configs), {r["id"]: r for rows in configs.values() for r in rows}
