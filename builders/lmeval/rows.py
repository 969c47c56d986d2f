"""The rows of one lm-eval task: read from an export (folder or Hub repo) or generated on the fly.

Generated rows come from ``export/inputs.py:BuildInputs`` (the builder the export uses), so they
are byte-identical to the exported ones; the sources are found through ``$ONERULER_MIRROR`` and
``$ONERULER_CACHE`` as by every command. The loaded builders, the dataset cards and a Hub
dataset's commit are cached per process: lm-eval builds every task of a run in one process, and
all of them read the same commit even if the repository moves on meanwhile.
"""

from __future__ import annotations

import functools

from ..base.errors import OneRulerError
from ..dataset.reader import config_tables
from ..dataset.source import DatasetSource
from ..export.inputs import BuildInputs
from ..spec.configs import parse_config_name
from ..spec.schema import FEATURES
from ..spec.tasks import get_task
from .options import RowSource

# What a task reads from each row (the rest is carried along into lm-eval's logged samples).
TASK_COLUMNS = ("id", "config", "task", "instruction_language", "input", "answers", "needles", "reserve")


@functools.lru_cache(maxsize=4)
def build_inputs(tokenizers: tuple[tuple[str, str], ...]) -> BuildInputs:
    """Sources, tokenizers and a row generator, loaded once per process and tokenizer set."""
    return BuildInputs(tokenizer_locations=dict(tokenizers))


@functools.lru_cache(maxsize=8)
def dataset_source(dataset: str) -> DatasetSource:
    """The dataset every task of this process reads, a Hub repo pinned to main's head when first asked."""
    try:
        return DatasetSource.open(dataset)
    except OneRulerError as exc:
        raise OneRulerError(f"{exc} (from --metadata 'dataset' or $ONERULER_DATASET)") from None


@functools.lru_cache(maxsize=8)
def dataset_configs(dataset: str) -> dict[str, list[str]]:
    """Config → data files, from the dataset card (or the export layout), read once per process."""
    return dataset_source(dataset).configs()


def generated_rows(config: str, source: RowSource):
    """A config's rows generated with the builder, as a ``datasets.Dataset`` with the export's features."""
    import datasets

    aliases = [source.alias] if source.token_control else []
    spec = parse_config_name(source.config_name(config), aliases)
    inputs = build_inputs(((source.alias, source.tokenizer_location),) if source.token_control else ())
    rows = list(inputs.rows(spec, source.samples, source.seed))
    return datasets.Dataset.from_list(rows, features=FEATURES)


def dataset_rows(config: str, source: RowSource):
    """A config's rows from the export named by ``source.dataset``, as a ``datasets.Dataset`` (every column)."""
    from datasets import Dataset
    from datasets.table import InMemoryTable

    name, dataset = source.config_name(config), source.dataset
    mapping = dataset_configs(dataset)
    if name not in mapping:
        raise OneRulerError(f"dataset {dataset!r} has no config {name!r}; build it with `oneruler build {name} "
                            f"--out DIR`, or unset ONERULER_DATASET to generate the rows on the fly")
    _, table = next(config_tables(dataset_source(dataset), [name], mapping, TASK_COLUMNS, optional=None))
    return Dataset(InMemoryTable(table))


def task_rows(config: str, source: RowSource):
    """The rows of the task for ``config`` (a text-control name), checked against the task table."""
    ds = dataset_rows(config, source) if source.dataset else generated_rows(config, source)
    name, task = source.config_name(config), parse_config_name(config).task
    reserve = get_task(task).reserve
    for row in ds.select_columns(["id", "config", "reserve"]).to_list():
        if row["config"] != name or row["reserve"] != reserve:
            raise OneRulerError(f"row {row['id']!r} (config {row['config']!r}, reserve {row['reserve']}) does not "
                                f"belong to task config {name!r} (reserve {reserve})")
    if len(ds) == 0:
        raise OneRulerError(f"config {name!r} has no rows")
    return ds
