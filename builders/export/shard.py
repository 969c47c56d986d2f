"""One config's rows as one zstd Parquet shard, written atomically under its content-addressed name."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from ..base.errors import OneRulerError
from ..base.files import new_temp_file, sha256_file
from .layout import DATA_DIR, shard_relpath
from .records import ShardStats

# Parquet layout (measured in docs/export.md): one zstd page per column chunk, so the 50 rows of a
# config, which share their haystack, compress together (zstd's window spans several rows); row
# groups capped far below the Hub viewer's 286 MiB read limit so it can show the first rows.
# Level 9 (benchmarks/zstd_levels.py): NIAH shards as small as at 12, CWE shards 1.9 % larger, CWE
# writes 2.6x faster; level 6 makes NIAH shards 1.6x larger, level 15 costs 8-19x the time.
ZSTD_LEVEL = 9
ROW_GROUP_MAX_BYTES = 64 * 1024 * 1024
DATA_PAGE_SIZE = 256 * 1024 * 1024
DICTIONARY_COLUMNS = ["config", "task", "context_language", "instruction_language", "tokenizer"]
STATISTICS_COLUMNS = ["index", "length", "num_tokens", "budget", "seed"]


@dataclass
class ShardInfo:
    """What writing one config's shard produced."""

    config: str
    file: str
    sha256: str
    size: int
    num_rows: int
    stats: ShardStats


def _row_bytes(row: dict) -> int:
    return len(row["input"].encode("utf-8")) + 512


def _write_parquet(rows: Iterable[dict], path: Path, config: str, schema: pa.Schema,
                   progress: Callable[[int], None] | None) -> tuple[list[dict], int]:
    """Write the rows to ``path`` with ``schema``; return (their light fields, Arrow bytes written)."""
    light: list[dict] = []
    arrow_bytes = 0
    with pq.ParquetWriter(
        path, schema, compression="zstd", compression_level=ZSTD_LEVEL, use_dictionary=DICTIONARY_COLUMNS,
        write_statistics=STATISTICS_COLUMNS, data_page_size=DATA_PAGE_SIZE, version="2.6",
    ) as writer:
        batch: list[dict] = []
        batch_bytes = 0
        for row in rows:
            if row.get("config") != config:
                raise OneRulerError(f"config {config}: generator yielded a row of config {row.get('config')!r}")
            batch.append(row)
            batch_bytes += _row_bytes(row)
            light.append({k: v for k, v in row.items() if k not in ("input", "needles", "queries", "answers")})
            if batch_bytes >= ROW_GROUP_MAX_BYTES:
                table = pa.Table.from_pylist(batch, schema=schema)
                arrow_bytes += table.nbytes
                writer.write_table(table, row_group_size=len(batch))
                batch, batch_bytes = [], 0
            if progress:
                progress(1)
        if batch or not light:
            table = pa.Table.from_pylist(batch, schema=schema)
            arrow_bytes += table.nbytes
            writer.write_table(table, row_group_size=max(len(batch), 1))
    return light, arrow_bytes


def write_shard(rows: Iterable[dict], out_dir: str | os.PathLike, config: str, schema: pa.Schema,
                progress: Callable[[int], None] | None = None) -> ShardInfo:
    """Write ``rows`` (dicts of the config's family's features, ``schema`` their Arrow schema: ``spec/schema.py``) as
    ``data/<config>/test-<hash>.parquet`` in ``out_dir``.

    The shard goes to a hidden temp file, is hashed, then renamed to its content-addressed name.
    Byte-identical for identical rows. ``progress(n)`` is called after every row.
    """
    out_dir = Path(out_dir)
    fd, tmp = new_temp_file(out_dir / DATA_DIR / config, suffix=".parquet")
    os.close(fd)
    try:
        light, arrow_bytes = _write_parquet(rows, tmp, config, schema, progress)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        digest = sha256_file(tmp)
        rel = shard_relpath(config, digest)
        os.replace(tmp, out_dir / rel)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return ShardInfo(config, rel, digest, (out_dir / rel).stat().st_size, len(light),
                     ShardStats.of_rows(light, arrow_bytes))
