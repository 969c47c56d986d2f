"""A hand-written export of the main grid at some lengths, for tests of leaderboards (which pool 182 configs a length).

Real Parquet in the exporter's layout (``data/<config>/test-<hex>.parquet``, the row schema of
``spec/schema.py``), a card whose front matter lists the configs, an ``eval.yaml`` as ``oneruler
build`` writes it, and a ``manifest.json`` whose bytes are the dataset's identity: what
``oneruler score`` reads, built in a second instead of generated. The rows are not ONERULER's
prompts; their answers and needles are made so that a test knows what each prediction scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pyarrow as pa
import pyarrow.parquet as pq

from builders.export.eval_yaml import render_eval_yaml
from builders.export.frontmatter import dump_front_matter
from builders.scoring import NONE_WORDS
from builders.spec.configs import ConfigSpec
from builders.spec.languages import LANGUAGE_CODES
from builders.spec.schema import features_of
from builders.spec.tasks import MAIN_TASKS, TASKS

VALUES = {"s_niah": 1, "mk_niah": 1, "mv_niah": 4, "mq_niah": 2}


def gold(spec: ConfigSpec, index: int) -> list[str]:
    """The gold answers of a row: 7-digit values, the instruction language's none word, or ten words."""
    if spec.task == "none_niah":
        return [NONE_WORDS[spec.instruction_language][0]]
    if spec.task.startswith("cwe"):
        return [f"word{index}x{k}" for k in range(10)]
    return [str(1_000_000 + 10 * index + k) for k in range(VALUES[spec.task])]


def grid_row(spec: ConfigSpec, index: int) -> dict:
    """One row with every column; NIAH needles carry depth, actual_depth and token_depth."""
    answers = gold(spec, index)
    numbers = spec.task in VALUES
    needles = [{"key": f"key{k}", "value": v, "depth": 20 * k, "actual_depth": 20.0 * k + 0.5,
                "token_depth": 20.0 * k + 0.25} for k, v in enumerate(answers)] if numbers else []
    return {"id": f"{spec.name}/{index}", "config": spec.name, "task": spec.task,
            "context_language": spec.context_language, "instruction_language": spec.instruction_language,
            "length": spec.length, "tokenizer": "cl100k_base", "input": f"row {spec.name}/{index}: which?",
            "answers": answers, "num_tokens": 10, "needles": needles, "queries": ["key0"], "context_span": [0, 5],
            "index": index, "seed": 42, "reserve": TASKS[spec.task].reserve, "budget": spec.length - 30,
            "num_units": 3, **({"cwe_freq_common": 0, "cwe_freq_uncommon": 0, "cwe_pool_size": 0,
                                "cwe_pool_exhausted": False} if spec.task.startswith("cwe") else {})}


def main_grid_specs(lengths: tuple[int, ...] = (8_000,)) -> list[ConfigSpec]:
    """26 languages × the seven main tasks × ``lengths``."""
    return [ConfigSpec(lang, task, n) for lang in LANGUAGE_CODES for task in MAIN_TASKS for n in lengths]


def write_grid_export(root: Path, specs: list[ConfigSpec], rows: int = 2, manifest: str = "grid-v1",
                      row_of: Callable[[ConfigSpec, int], dict] = grid_row) -> dict[str, dict]:
    """The export of ``specs`` with ``rows`` rows each (made by ``row_of``) into ``root``; every row by id."""
    made, listed = {}, []
    for n, spec in enumerate(specs):
        table = [row_of(spec, i) for i in range(rows)]
        made.update({r["id"]: r for r in table})
        rel = f"data/{spec.name}/test-{n:016x}.parquet"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(table, schema=features_of(spec.task).arrow_schema), root / rel)
        listed.append({"config_name": spec.name, "data_files": [{"split": "test", "path": rel}]})
    (root / "README.md").write_text(f"---\n{dump_front_matter({'configs': listed})}---\n\n# grid\n", encoding="utf-8")
    benchmark = render_eval_yaml([s.name for s in specs])
    if benchmark is not None:
        (root / "eval.yaml").write_text(benchmark, encoding="utf-8")
    (root / "manifest.json").write_text(json.dumps({"version": manifest, "configs": len(specs)}), encoding="utf-8")
    return made


def answer(row: dict, right: bool) -> str:
    """A prediction that passes the paper's metric (``right``) or fails it."""
    if right:
        return " ".join(row["answers"])
    if row["task"] == "none_niah":
        return "7654321"
    return " ".join(row["answers"][:9]) if row["task"].startswith("cwe") else "1000001 maybe"
