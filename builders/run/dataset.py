"""The rows a run sends: configs of an export folder or a Hub dataset picked by glob (``builders/dataset``).

Only the columns a run needs are read (``input`` is the prompt). The dataset's identity (the sha256
of its ``manifest.json`` and, for a Hub repo, the commit it was read at) goes into the run's meta.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..base.errors import OneRulerError
from ..dataset.reader import read_rows
from ..dataset.source import DatasetSource, select_configs  # noqa: F401 - the run's names for them


@dataclass(frozen=True)
class RunRow:
    """One prompt to send: its id, config, task, text, size in the dataset's tokenizer and answer reserve."""

    id: str
    config: str
    task: str
    index: int
    input: str
    num_tokens: int
    tokenizer: str
    reserve: int


RUN_COLUMNS = tuple(f.name for f in fields(RunRow))  # the dataset columns a run reads


def resolve_source(dataset: str, revision: str | None = None, hub_cache: str | None = None) -> DatasetSource:
    """The dataset a run reads; a Hub revision (branch, tag or None = main) is pinned to its commit sha."""
    return DatasetSource.open(dataset, revision, "--revision", hub_cache=hub_cache)


def load_run_rows(source: DatasetSource, configs: list[str], files: dict[str, list[str]],
                  limit: int | None = None) -> list[RunRow]:
    """The rows of ``configs`` (the first ``limit`` of each by index), in (config, index) order."""
    if limit is not None and limit < 1:
        raise OneRulerError(f"--limit must be at least 1 (got {limit})")
    rows = sorted((RunRow(**row) for row in read_rows(source, configs, files, RUN_COLUMNS)),
                  key=lambda r: (r.config, r.index))
    if limit is not None:
        rows = _first_per_config(rows, limit)
    return rows


def _first_per_config(rows: list[RunRow], limit: int) -> list[RunRow]:
    count: dict[str, int] = {}
    out = []
    for r in rows:
        count[r.config] = count.get(r.config, 0) + 1
        if count[r.config] <= limit:
            out.append(r)
    return out
