"""Reading some columns of some configs: one config at a time, a few files read ahead by threads.

Only the columns asked for are read (pyarrow reads column chunks, so the prompts of a run are never
touched by ``score``). ``config_tables`` streams, so a caller that handles one config at a time holds
one config's rows (plus the bounded read-ahead) whatever the size of the selection.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Iterable, Iterator

from ..base.errors import OneRulerError, one_line
from .source import DatasetSource

READ_AHEAD = 4  # configs read ahead by as many threads (pyarrow and downloads release the GIL)


def read_file(path: Path, columns: Iterable[str] | None, dataset: str):
    """The ``columns`` (those present; None: all) of one Parquet file as a pyarrow Table."""
    import pyarrow.parquet as pq

    try:
        shard = pq.ParquetFile(path)  # one footer read; read_table would build a dataset per file
        names = shard.schema_arrow.names
        return shard.read(columns=None if columns is None else [c for c in columns if c in names])
    except (OSError, ValueError) as exc:  # missing or not Parquet (pyarrow raises ArrowInvalid, a ValueError)
        raise OneRulerError(f"cannot read {path} of dataset {dataset!r}: {one_line(exc)}") from None


def _config_table(source: DatasetSource, config: str, files: list[str], columns: tuple[str, ...],
                  optional: tuple[str, ...] | None):
    import pyarrow as pa
    import pyarrow.compute as pc

    wanted = None if optional is None else columns + tuple(c for c in optional if c not in columns)
    tables = [read_file(source.shard(f), wanted, source.name) for f in files]
    for table in tables:
        missing = [c for c in columns if c not in table.column_names]
        if missing:
            raise OneRulerError(f"dataset {source.name!r} lacks column(s) {', '.join(missing)} (config {config!r})")
    table = pa.concat_tables(tables, promote_options="default") if len(tables) > 1 else tables[0]
    if "config" in table.column_names:  # a file may hold several configs outside the export layout
        mask = pc.equal(table["config"], config)
        if not pc.all(mask).as_py():
            table = table.filter(mask)
    return table


def config_tables(source: DatasetSource, configs: list[str], files: dict[str, list[str]], columns: tuple[str, ...],
                  optional: tuple[str, ...] | None = (), read_ahead: int = READ_AHEAD) -> Iterator[tuple[str, object]]:
    """(config, pyarrow Table of its rows) for each config in order; at most ``read_ahead`` configs in memory ahead.

    ``columns`` must exist (a missing one is an error naming it); ``optional`` ones are read when present
    (None: every column of the files).
    """
    unknown = [c for c in configs if c not in files]
    if unknown:
        raise OneRulerError(f"dataset {source.name!r} has no config {unknown[0]!r}"
                            + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
    empty = [c for c in configs if not files[c]]
    if empty:
        raise OneRulerError(f"dataset {source.name!r}: the card lists no data files for config {empty[0]!r}")
    if not configs:
        return
    with ThreadPoolExecutor(max_workers=max(1, read_ahead)) as pool:
        pending: deque[tuple[str, Future]] = deque()
        queue = iter(configs)
        for config in queue:
            pending.append((config, pool.submit(_config_table, source, config, files[config], columns, optional)))
            if len(pending) >= read_ahead:
                break
        while pending:
            config, future = pending.popleft()
            table = future.result()
            nxt = next(queue, None)
            if nxt is not None:
                pending.append((nxt, pool.submit(_config_table, source, nxt, files[nxt], columns, optional)))
            yield config, table


def read_rows(source: DatasetSource, configs: list[str], files: dict[str, list[str]], columns: tuple[str, ...],
              optional: tuple[str, ...] = ()) -> Iterator[dict]:
    """Every row of ``configs`` as a dict of the columns read, config by config (columns converted once per config)."""
    for _, table in config_tables(source, configs, files, columns, optional):
        data = table.to_pydict()  # columnwise: far cheaper than to_pylist
        names = list(data)
        for values in zip(*data.values()):
            yield dict(zip(names, values))
