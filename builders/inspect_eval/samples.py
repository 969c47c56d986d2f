"""ONERULER rows as Inspect samples: one per row, its id the row id, its prompt the single user message.

The rows are those the lm-eval tasks read too (``taskrows/loaded.py:task_rows``): read from an export or a Hub
repo, or generated on the fly byte for byte as the export has them. Each sample carries what the
scorer needs (gold answers as the target; task, instruction language and needles as metadata)
and what the metrics group by: ``config``, ``language`` (``pl``, or ``ko-en`` for a cross-lingual
pair), ``task``, ``length`` (``8k``), ``tokenizer`` (the alias that measured the length,
``cl100k`` = text-control) and ``index`` (the example index: rows of one index share their draws
across configs, the cluster of the standard error). ``depths`` lists the needles' nominal depths
in percent (empty for CWE); ``reserve`` is the row's answer budget, its ``max_tokens``.
"""

from __future__ import annotations

from typing import Any, Iterator

from inspect_ai.dataset import MemoryDataset, Sample

from ..taskrows.loaded import TASK_COLUMNS, task_rows
from ..taskrows.source import RowSource
from ..spec.configs import parse_config_name, render_length
from ..spec.ids import id_order

def sample_metadata(row: dict, config: str, alias: str) -> dict[str, Any]:
    """The metadata of one row's sample (``config``: its text-control name, ``alias``: the measuring tokenizer)."""
    spec = parse_config_name(config)
    needles = [dict(n) for n in row["needles"] or ()]
    return {"config": row["config"], "language": spec.languages, "context_language": spec.context_language,
            "instruction_language": row["instruction_language"], "task": row["task"],
            "length": render_length(spec.length), "tokenizer": alias, "index": id_order(row["id"])[1],
            "depths": [n["depth"] for n in needles], "needles": needles, "reserve": row["reserve"]}


def config_samples(config: str, source: RowSource, limit: int | None = None) -> Iterator[Sample]:
    """The samples of one config, in index order (``limit``: the first rows only)."""
    rows = task_rows(config, source).select_columns(list(TASK_COLUMNS)).to_list()
    rows.sort(key=lambda row: id_order(row["id"]))
    for row in rows[:limit]:
        yield Sample(id=row["id"], input=row["input"], target=list(row["answers"]),
                     metadata=sample_metadata(row, config, source.alias))


def oneruler_dataset(configs: list[str], source: RowSource, limit: int | None = None) -> MemoryDataset:
    """Every sample of the configs, config after config."""
    samples = [sample for config in configs for sample in config_samples(config, source, limit)]
    # Inspect's header shows the name: the dataset the rows were read from, as given, or that they were generated
    name = source.dataset or "oneruler (generated on the fly)"
    return MemoryDataset(samples, name=name, location=source.dataset or "generated")
