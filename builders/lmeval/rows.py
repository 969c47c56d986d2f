"""The rows of one lm-eval task: read from an export (folder or Hub repo) or generated on the fly.

Generated rows come from ``export/inputs.py:BuildInputs`` (the builder the export uses), so they
are byte-identical to the exported ones; the sources are found through ``$ONERULER_MIRROR`` and
``$ONERULER_CACHE`` as by every command. The loaded builders, the dataset cards and a Hub
dataset's commit are cached per process: lm-eval builds every task of a run in one process, and
all of them read the same commit even if the repository moves on meanwhile.
"""

from __future__ import annotations

import functools
from pathlib import Path

from ..base.errors import OneRulerError, one_line
from ..export.inputs import BuildInputs
from ..report.rows import card_configs, hub_commit, local_folder
from ..spec.configs import parse_config_name
from ..spec.defaults import SPLIT
from ..spec.schema import FEATURES
from ..spec.tasks import get_task
from .options import RowSource

# What a task reads from each row (the rest is carried along into lm-eval's logged samples).
TASK_COLUMNS = ("id", "config", "task", "instruction_language", "input", "answers", "needles", "reserve")


@functools.lru_cache(maxsize=4)
def build_inputs(tokenizers: tuple[tuple[str, str], ...]) -> BuildInputs:
    """Sources, tokenizers and a row generator, loaded once per process and tokenizer set."""
    return BuildInputs(tokenizer_specs=dict(tokenizers))


@functools.lru_cache(maxsize=8)
def dataset_commit(dataset: str) -> str | None:
    """The commit every task of this process reads a Hub dataset at (main's head when first asked); None: a folder."""
    try:
        folder = local_folder(dataset)
    except OneRulerError as exc:
        raise OneRulerError(f"{exc} (from --metadata 'dataset' or $ONERULER_DATASET)") from None
    return None if folder is not None else hub_commit(dataset)


@functools.lru_cache(maxsize=8)
def dataset_configs(dataset: str) -> dict[str, list[str]] | None:
    """Config → data files from the dataset card (None: the card lists no configs)."""
    return card_configs(dataset, dataset_commit(dataset))


def generated_rows(config: str, source: RowSource):
    """A config's rows generated with the builder, as a ``datasets.Dataset`` with the export's features."""
    import datasets

    aliases = [source.alias] if source.token_control else []
    spec = parse_config_name(source.config_name(config), aliases)
    inputs = build_inputs(((source.alias, source.spec),) if source.token_control else ())
    rows = list(inputs.rows(spec, source.samples, source.seed))
    return datasets.Dataset.from_list(rows, features=FEATURES)


def shard_paths(dataset: str, files: list[str]) -> list[str]:
    """Local paths of a config's Parquet files: inside the folder, or downloaded from the Hub repo."""
    folder = Path(dataset).expanduser()
    if folder.is_dir():
        return [str((folder / f).resolve()) for f in files]
    from huggingface_hub import hf_hub_download

    return [hf_hub_download(dataset, f, repo_type="dataset", revision=dataset_commit(dataset)) for f in files]


def dataset_rows(config: str, source: RowSource):
    """A config's rows from the export named by ``source.dataset``.

    The card's ``configs`` list names each config's Parquet files, read with the ``parquet``
    loader: ``load_dataset(FOLDER, data_files=...)`` would parse the whole card again for every
    task (0.6 s each on a card of the full grid).
    """
    import datasets

    name, dataset = source.config_name(config), source.dataset
    mapping = dataset_configs(dataset)
    if mapping is not None and name not in mapping:
        raise OneRulerError(f"dataset {dataset!r} has no config {name!r}; build it with `oneruler build {name} "
                            f"--out DIR`, or unset ONERULER_DATASET to generate the rows on the fly")
    try:
        if mapping and mapping[name]:
            files = shard_paths(dataset, mapping[name])
            ds = datasets.load_dataset("parquet", data_files={SPLIT: files}, split=SPLIT)
        else:
            ds = datasets.load_dataset(dataset, name, split=SPLIT, revision=dataset_commit(dataset))
    except Exception as exc:  # noqa: BLE001 - any failure to open the dataset is bad input
        raise OneRulerError(f"cannot load config {name!r} of dataset {dataset!r}: {one_line(exc)}") from None
    missing = [c for c in TASK_COLUMNS if c not in ds.column_names]
    if missing:
        raise OneRulerError(f"dataset {dataset!r}, config {name!r}: lacks column(s) {', '.join(missing)}")
    return ds


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
