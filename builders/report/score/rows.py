"""Dataset rows for scoring: only the columns scoring needs, read through the dataset layer."""

from __future__ import annotations

from ...base.errors import problems_error
from ...dataset.reader import read_rows
from ...dataset.source import DatasetSource
from .predictions import Prediction

ROW_COLUMNS = ("id", "config", "task", "context_language", "instruction_language", "length", "tokenizer",
               "answers", "needles", "reserve")


def load_rows(source: DatasetSource, configs: dict[str, Prediction],
              mapping: dict[str, list[str]] | None = None) -> dict[str, dict]:
    """Rows (only the columns scoring needs) of the given configs, keyed by id.

    ``configs`` maps each config name to the first prediction that refers to it (for messages).
    ``source`` is opened once by the caller (a Hub repo pinned to one commit), so the card, the
    rows and the identity recorded in the report come from one commit. ``mapping``: its configs, when the caller
    has read them already (``source.configs()``).
    """
    dataset = source.name
    mapping = mapping if mapping is not None else source.configs()
    unknown = [f"config {c!r} (line {p.line}, id {p.id!r})" for c, p in configs.items() if c not in mapping]
    if unknown:
        raise problems_error(unknown, f"unknown config(s) in dataset {dataset!r}")
    return {row["id"]: row for row in read_rows(source, sorted(configs), mapping, ROW_COLUMNS)}
