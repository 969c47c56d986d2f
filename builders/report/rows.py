"""Dataset rows for scoring: only the columns scoring needs, from an export folder or a Hub repo."""

from __future__ import annotations

from pathlib import Path

from ..base.errors import OneRulerError, one_line, problems_error
from ..export.frontmatter import configs_data_files, parse_front_matter
from ..export.layout import README_NAME
from ..spec.defaults import SPLIT
from .predictions import Prediction

ROW_COLUMNS = ("id", "config", "task", "context_language", "instruction_language", "length", "tokenizer",
               "answers", "needles")


def local_folder(dataset: str) -> Path | None:
    """The export folder ``dataset`` names (None: a Hub repo id); a path-like name that is no folder is an error."""
    path = Path(dataset).expanduser()
    if path.is_dir():
        return path
    if path.is_absolute() or dataset.startswith((".", "~")) or dataset.count("/") > 1:
        raise OneRulerError(f"dataset folder not found: {dataset}")
    return None


def pin_revision(dataset: str, revision: str | None, option: str = "a revision") -> tuple[Path | None, str | None]:
    """(folder, None) for a local export, else (None, the commit sha ``revision`` points at; None: main's head)."""
    folder = local_folder(dataset)
    if folder is None:
        return None, hub_commit(dataset, revision)
    if revision is not None:
        raise OneRulerError(f"{option} applies to Hub datasets; {dataset} is a local folder")
    return folder, None


def hub_commit(dataset: str, revision: str | None = None) -> str:
    """The commit sha a Hub dataset's revision (branch, tag or sha; None: main) points at now."""
    from huggingface_hub import HfApi

    try:
        return HfApi().dataset_info(dataset, revision=revision).sha
    except Exception as exc:  # noqa: BLE001 - unknown repo, revision, no network: bad input
        raise OneRulerError(f"cannot open dataset {dataset!r} at revision {revision or 'main'}: {one_line(exc)}") from None


def read_card(dataset: str, revision: str | None = None) -> str | None:
    """The README text of a dataset folder or Hub repo at ``revision`` (None: a folder without one)."""
    path = Path(dataset).expanduser()
    if path.is_dir():
        readme = path / README_NAME
        return readme.read_text(encoding="utf-8") if readme.is_file() else None
    from huggingface_hub import hf_hub_download

    try:
        return Path(hf_hub_download(dataset, README_NAME, repo_type="dataset", revision=revision)).read_text(encoding="utf-8")
    except Exception as exc:  # noqa: BLE001 - any failure to reach the card is bad input
        raise OneRulerError(f"cannot open dataset {dataset!r}: {one_line(exc)}") from None


def card_configs(dataset: str, revision: str | None = None) -> dict[str, list[str]] | None:
    """Config name -> test-split data files, from the dataset card's YAML `configs` (None: no such list)."""
    text = read_card(dataset, revision)
    if text is None:
        return None
    try:
        meta = parse_front_matter(text)
    except Exception as exc:  # noqa: BLE001 - yaml errors and an unterminated block alike
        raise OneRulerError(f"dataset card of {dataset!r} has invalid YAML: {one_line(exc)}") from None
    return configs_data_files(meta)


def load_rows(dataset: str, configs: dict[str, Prediction], cache_dir: str | None = None,
              revision: str | None = None) -> dict[str, dict]:
    """Rows (only the columns scoring needs) of the given configs, keyed by id.

    `configs` maps each config name to the first prediction that refers to it (for messages).
    The card's `configs` list gives each config's Parquet files. In an export folder they are read
    directly with pyarrow (the card was parsed once above, with libyaml; `datasets` would parse it
    again with its pure-Python loader and cache an Arrow copy of the rows). On the Hub they are read
    with a single `load_dataset(dataset, data_files=...)`: one call per config costs seconds each
    on a card that declares hundreds of configs. Without such a card, each config is loaded by name.
    A Hub repo is read at one commit: `revision` (None: main) is pinned to its sha first, so the
    card and the rows cannot come from two commits.
    """
    folder, revision = pin_revision(dataset, revision)
    mapping = card_configs(dataset, revision)
    if mapping is None:
        mapping = _config_names(dataset, revision)
    unknown = [f"config {c!r} (line {p.line}, id {p.id!r})" for c, p in configs.items() if c not in mapping]
    if unknown:
        raise problems_error(unknown, f"unknown config(s) in dataset {dataset!r}")
    wanted = sorted(configs)
    if all(mapping[c] for c in wanted):
        files = sorted({f for c in wanted for f in mapping[c]})
        if folder is not None:
            tables = read_shards([folder / f for f in files], dataset)
        else:
            tables = [_load(dataset, dict(data_files={SPLIT: files}, revision=revision), cache_dir,
                            f"{len(wanted)} config(s) of {dataset!r}")]
    else:
        tables = [_load(dataset, dict(name=c, revision=revision), cache_dir, f"config {c!r} of {dataset!r}") for c in wanted]
    rows: dict[str, dict] = {}
    for table in tables:
        missing = [c for c in ROW_COLUMNS if c not in table.column_names]
        if missing:
            raise OneRulerError(f"dataset {dataset!r} lacks column(s) {', '.join(missing)}")
        columns = table.select(list(ROW_COLUMNS)).to_pydict()  # columnwise: cheaper than to_pylist
        for values in zip(*columns.values()):
            row = dict(zip(ROW_COLUMNS, values))
            if row["config"] in configs:
                rows[row["id"]] = row
    return rows


def read_shards(files: list[Path], dataset: str, columns: tuple[str, ...] = ROW_COLUMNS) -> list:
    """The ``columns`` (those present) of several shards of an export folder as pyarrow Tables, in order, read by a
    few threads (pyarrow releases the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    if len(files) < 8:
        return [_read_shard(f, dataset, columns) for f in files]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda f: _read_shard(f, dataset, columns), files))


def _read_shard(file: Path, dataset: str, columns: tuple[str, ...]):
    import pyarrow.parquet as pq

    try:
        shard = pq.ParquetFile(file)  # one footer read; read_table would build a dataset per file
        names = shard.schema_arrow.names
        return shard.read(columns=[c for c in columns if c in names])
    except (OSError, ValueError) as exc:  # missing or not Parquet (pyarrow raises ArrowInvalid, a ValueError)
        raise OneRulerError(f"cannot read {file} of dataset {dataset!r}: {one_line(exc)}") from None


def _config_names(dataset: str, revision: str | None) -> dict[str, list[str]]:
    datasets = quiet_datasets()
    try:
        return {name: [] for name in datasets.get_dataset_config_names(dataset, revision=revision)}
    except Exception as exc:  # noqa: BLE001 - any failure to open the dataset is bad input
        raise OneRulerError(f"cannot open dataset {dataset!r}: {one_line(exc)}") from None


def quiet_datasets():
    """`datasets`, imported only when needed, without progress bars or card warnings in the report."""
    import datasets

    datasets.logging.set_verbosity_error()
    datasets.disable_progress_bars()
    return datasets


def _load(dataset: str, how: dict, cache_dir: str | None, what: str):
    """One `load_dataset` call, as a pyarrow Table of the scoring columns (every column if it must)."""
    datasets = quiet_datasets()
    try:
        ds = datasets.load_dataset(dataset, split=SPLIT, cache_dir=cache_dir, columns=list(ROW_COLUMNS), **how)
    except Exception:  # noqa: BLE001 - e.g. a loader without column selection: read every column
        try:
            ds = datasets.load_dataset(dataset, split=SPLIT, cache_dir=cache_dir, **how)
        except Exception as exc:  # noqa: BLE001
            raise OneRulerError(f"cannot load {what}: {one_line(exc)}") from None
    return ds.data.table
