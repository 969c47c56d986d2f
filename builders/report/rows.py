"""Dataset rows for scoring: only the columns scoring needs, read through the dataset layer."""

from __future__ import annotations

from ..base.errors import problems_error
from ..dataset.reader import read_rows
from ..dataset.source import DatasetSource
from .predictions import Prediction

ROW_COLUMNS = ("id", "config", "task", "context_language", "instruction_language", "length", "tokenizer",
               "answers", "needles")


def load_rows(dataset: str, configs: dict[str, Prediction], cache_dir: str | None = None,
              revision: str | None = None) -> dict[str, dict]:
    """Rows (only the columns scoring needs) of the given configs, keyed by id.

    ``configs`` maps each config name to the first prediction that refers to it (for messages).
    A Hub repo is read at one commit: ``revision`` (None: main) is pinned to its sha first, so the
    card and the rows cannot come from two commits; ``cache_dir`` is where Hub files are downloaded.
    """
    source = DatasetSource.open(dataset, revision, "a revision", hub_cache=cache_dir)
    mapping = source.configs()
    unknown = [f"config {c!r} (line {p.line}, id {p.id!r})" for c, p in configs.items() if c not in mapping]
    if unknown:
        raise problems_error(unknown, f"unknown config(s) in dataset {dataset!r}")
    return {row["id"]: row for row in read_rows(source, sorted(configs), mapping, ROW_COLUMNS)}
