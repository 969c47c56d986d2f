"""The rows a run sends: configs of an export folder or a Hub dataset picked by glob (``builders/dataset``).

A run keeps only ``RowRef``s (ids, sizes, reserves: a few hundred bytes a row) for the whole
selection; the prompts are read config by config when they are about to be counted or sent
(``Selection.prompts``), so memory depends on what is in flight, not on how much is selected. The
dataset's identity (the sha256 of its ``manifest.json`` and, for a Hub repo, the commit it was read
at) goes into the run's meta. A config whose rows have an answer prefix (the column ``answer_prefix``,
``spec.family.ANSWER_PREFIX``) is named in ``prefixed``, and its prompts are read with their prefixes;
the column is read only where a config's files have it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
import asyncio
from typing import AsyncIterator, Iterator

from ...base.errors import OneRulerError, SettingError, named_setting
from ...dataset.reader import config_tables
from ...dataset.source import DatasetSource, select_configs
from ...spec.family import ANSWER_PREFIX
from ...spec.run_meta import DatasetRecord
from ..prompt import Prompt
from .shard import Shard


@dataclass(frozen=True)
class RowRef:
    """One row to send, without its prompt: id, config, task, index, size in the dataset's tokenizer, reserve."""

    id: str
    config: str
    task: str
    index: int
    num_tokens: int
    tokenizer: str
    reserve: int


@dataclass(frozen=True)
class RunRow(RowRef):
    """A row with its prompt (``input``) and answer prefix ("": none), read just before it is counted or sent."""

    input: str = ""
    answer_prefix: str = ""

    @property
    def prompt(self) -> Prompt:
        """What the row sends: its input and answer prefix."""
        return Prompt(self.input, self.answer_prefix)


REF_COLUMNS = tuple(f.name for f in fields(RowRef))  # the columns a run keeps for every selected row


def resolve_source(dataset: str, revision: str | None = None, hub_cache: str | None = None) -> DatasetSource:
    """The dataset a run reads; a Hub revision (branch, tag or None = main) is pinned to its commit sha."""
    return DatasetSource.open(dataset, revision, "revision", hub_cache=hub_cache)


def recorded_source(recorded: DatasetRecord | None, dataset: str | None, made: str) -> DatasetSource:
    """The dataset a run's meta names, at its commit, or ``dataset`` (where it is now) if given; a dataset whose
    manifest is not the recorded one is an error (``made``: what was made from it, for the message)."""
    name = dataset or (recorded.name if recorded is not None else None)
    if name is None:
        said = f"the meta does not name the dataset {made}; give that dataset with"
        raise OneRulerError(f"{said} {named_setting('dataset')}")
    source = resolve_source(name, None if dataset else recorded.revision if recorded is not None else None)
    sha = recorded.manifest_sha256 if recorded is not None else None
    if sha and source.identity().manifest_sha256 != sha:
        said = f"dataset {source.name!r} is not the one {made} (manifest sha256 differs); give that dataset with"
        raise OneRulerError(f"{said} {named_setting('dataset')}")
    return source


@dataclass
class Selection:
    """The rows a run covers (``rows``, in (config, index) order) and where their prompts are read from."""

    source: DatasetSource
    files: dict[str, list[str]]
    rows: list[RowRef]
    prefixed: frozenset[str] = frozenset()  # configs whose rows carry an answer prefix

    @classmethod
    def read(cls, source: DatasetSource, patterns: list[str], limit: int | None = None,
             shard: Shard | None = None) -> "Selection":
        """The configs the globs pick (all if none), the first ``limit`` rows of each, then this shard's share."""
        if limit is not None and limit < 1:
            raise SettingError("limit", f"must be at least 1 (got {limit})")
        files = source.configs()
        configs = select_configs(sorted(files), patterns)
        rows: list[RowRef] = []
        prefixed: set[str] = set()
        for config, table in config_tables(source, configs, files, REF_COLUMNS, optional=(ANSWER_PREFIX,)):
            data = table.to_pydict()
            refs = sorted((RowRef(*values) for values in zip(*(data[c] for c in REF_COLUMNS))), key=lambda r: r.index)
            rows += refs[:limit] if limit is not None else refs
            if any(data.get(ANSWER_PREFIX) or ()):
                prefixed.add(config)
        if shard is not None:
            rows = shard.share(rows)
        return cls(source, files, rows, frozenset(prefixed))

    def prompts(self, refs: list[RowRef]) -> Iterator[list[RunRow]]:
        """The rows of ``refs`` with their prompts, one list per config, configs in the order ``refs`` first names them."""
        wanted: dict[str, dict[str, RowRef]] = {}
        for ref in refs:
            wanted.setdefault(ref.config, {})[ref.id] = ref
        for config, table in config_tables(self.source, list(wanted), self.files, ("id", "input"),
                                           optional=(ANSWER_PREFIX,) if self.prefixed else ()):
            data = table.to_pydict()
            mine = wanted[config]
            prefixes = data.get(ANSWER_PREFIX) or [""] * len(data["id"])
            texts = {i: (text, prefix or "") for i, text, prefix in zip(data["id"], data["input"], prefixes) if i in mine}
            yield [RunRow(**vars(mine[i]), input=texts[i][0], answer_prefix=texts[i][1]) for i in mine if i in texts]


def longest_first(refs: list[RowRef]) -> list[RowRef]:
    """Configs with the longest prompts first (ties by name), rows in index order within each.

    With many requests in flight the longest ones finish last anyway; starting them first leaves
    short ones to fill the tail instead of one 128k prompt running alone at the end.
    """
    size: dict[str, int] = {}
    for ref in refs:
        size[ref.config] = max(size.get(ref.config, 0), ref.num_tokens)
    return sorted(refs, key=lambda r: (-size[r.config], r.config, r.index))


async def async_batches(batches: Iterator[list[RunRow]]) -> AsyncIterator[list[RunRow]]:
    """The batches of ``Selection.prompts``, each read in a thread so the event loop keeps serving requests."""
    try:
        while True:
            batch = await asyncio.to_thread(next, batches, None)
            if batch is None:
                return
            yield batch
    finally:
        batches.close()  # type: ignore[attr-defined]
