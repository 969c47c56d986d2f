"""The rows of one evaluation task (lm-eval's, Inspect's): read from an export (folder or Hub repo) or generated on
the fly.

Generated rows come from ``export/inputs.py:BuildInputs`` (the builder the export uses), so they
are byte-identical to the exported ones; the sources are found through ``$ONERULER_MIRROR`` and
``$ONERULER_CACHE`` as by every command. What is loaded to give the rows is kept in one
``LoadedRows`` for the life of the process (``LOADED``): lm-eval (and Inspect) build every task of a
run in one process, so the builders load once, and every task reads a Hub dataset at the same commit
even if the repository moves on meanwhile.
"""

from __future__ import annotations

from ..base.errors import OneRulerError
from ..dataset.reader import config_tables
from ..dataset.source import DatasetSource
from ..export.inputs import BuildInputs
from ..spec.configs import parse_config_name
from ..spec.schema import features_of
from ..spec.tasks import get_task
from .source import RowSource

# What a task reads from each row (the rest is carried along into lm-eval's logged samples).
TASK_COLUMNS = ("id", "config", "task", "instruction_language", "input", "answers", "needles", "reserve")


class LoadedRows:
    """What a process has loaded to give lm-eval its rows, each thing loaded on first use and kept with this
    object: the builders (``BuildInputs``, one per tokenizer set; a run has one), and each dataset named,
    pinned (a Hub repo to main's head when first asked) with its configs' data files read from its card."""

    def __init__(self) -> None:
        self._inputs: dict[tuple[tuple[str, str], ...], BuildInputs] = {}
        self._sources: dict[str, DatasetSource] = {}
        self._configs: dict[str, dict[str, list[str]]] = {}

    def inputs(self, tokenizers: tuple[tuple[str, str], ...]) -> BuildInputs:
        """Sources, tokenizers and a row generator for the tokenizer set ``(alias, location), ...``."""
        if tokenizers not in self._inputs:
            self._inputs[tokenizers] = BuildInputs(tokenizer_locations=dict(tokenizers))
        return self._inputs[tokenizers]

    def source(self, dataset: str) -> DatasetSource:
        """The dataset every task of this process reads, a Hub repo pinned to main's head when first asked."""
        if dataset not in self._sources:
            try:
                self._sources[dataset] = DatasetSource.open(dataset)
            except OneRulerError as exc:
                raise OneRulerError(f"{exc} (from --metadata 'dataset' or $ONERULER_DATASET)") from None
        return self._sources[dataset]

    def configs(self, dataset: str) -> dict[str, list[str]]:
        """Config → data files of ``dataset``, from its card (or the export layout)."""
        if dataset not in self._configs:
            self._configs[dataset] = self.source(dataset).configs()
        return self._configs[dataset]


# lm-eval calls the task functions without an object of ours to keep things in: the process owns them.
LOADED = LoadedRows()


def generated_rows(config: str, source: RowSource):
    """A config's rows generated with the builder, as a ``datasets.Dataset`` with the export's features."""
    import datasets

    aliases = [source.alias] if source.token_control else []
    spec = parse_config_name(source.config_name(config), aliases)
    inputs = LOADED.inputs(((source.alias, source.tokenizer_location),) if source.token_control else ())
    rows = list(inputs.rows(spec, source.samples, source.seed))
    return datasets.Dataset.from_list(rows, features=features_of(spec.task))


def dataset_rows(config: str, source: RowSource):
    """A config's rows from the export named by ``source.dataset``, as a ``datasets.Dataset`` (every column)."""
    from datasets import Dataset
    from datasets.table import InMemoryTable

    name, dataset = source.config_name(config), source.dataset
    mapping = LOADED.configs(dataset)
    if name not in mapping:
        raise OneRulerError(f"dataset {dataset!r} has no config {name!r}; build it with `oneruler build {name} "
                            f"--out DIR`, or unset ONERULER_DATASET to generate the rows on the fly")
    _, table = next(config_tables(LOADED.source(dataset), [name], mapping, TASK_COLUMNS, optional=None))
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
