"""Shard size and write time per zstd level, on real rows; the figures behind ``export/shard.py:ZSTD_LEVEL``.

    python benchmarks/zstd_levels.py [--configs en_s_niah_128k,en_cwe_hard_128k,...] [--levels 3,6,9,12,15]

Rows are generated once; each config's shard is then written with the exporter's own Parquet
settings at every level, interleaved (level order rotates each repeat), and the CPU time of the
write and the file size are reported, split into NIAH and CWE configs (their text compresses very
differently: NIAH rows share one haystack, CWE lists share little).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from builders.export import shard  # noqa: E402
from builders.generate.rows import RowGenerator  # noqa: E402
from builders.sources.store import load_sources  # noqa: E402
from builders.spec.configs import parse_config_name  # noqa: E402
from builders.spec.schema import FEATURES  # noqa: E402

DEFAULT_CONFIGS = ("en_s_niah_128k,en_cwe_hard_128k,ru_mk_niah_32k,ko_cwe_easy_32k,zh_mv_niah_32k,"
                   "pl_cwe_hard_8k,hi_none_niah_8k,ja_cwe_easy_128k")


def write(rows: list[dict], path: Path, level: int) -> float:
    """CPU seconds to build the Arrow table and write it as the exporter does, at ``level``."""
    t0 = time.process_time()
    table = pa.Table.from_pylist(rows, schema=FEATURES.arrow_schema)
    with pq.ParquetWriter(path, FEATURES.arrow_schema, compression="zstd", compression_level=level,
                          use_dictionary=shard.DICTIONARY_COLUMNS, write_statistics=shard.STATISTICS_COLUMNS,
                          data_page_size=shard.DATA_PAGE_SIZE, version="2.6") as writer:
        writer.write_table(table, row_group_size=len(rows))
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=DEFAULT_CONFIGS)
    ap.add_argument("--levels", default="3,6,9,12,15")
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    generator = RowGenerator(load_sources())
    data = {name: list(generator.rows(parse_config_name(name), args.samples)) for name in args.configs.split(",")}
    tmp = Path(tempfile.mkdtemp(prefix="oneruler-zstd-"))
    times: dict[tuple[str, int], list[float]] = {}
    sizes: dict[tuple[str, int], int] = {}
    for rep in range(args.repeats):
        order = levels[rep % len(levels):] + levels[: rep % len(levels)]
        for name, rows in data.items():
            for level in order:
                path = tmp / f"{name}-{level}.parquet"
                times.setdefault((name, level), []).append(write(rows, path, level))
                sizes[(name, level)] = path.stat().st_size
                os.unlink(path)
    print(f"{'config':22} " + " ".join(f"{'L' + str(lv) + ' MB':>9} {'s':>6}" for lv in levels))
    for name in data:
        cells = [f"{sizes[(name, lv)] / 1e6:9.2f} {statistics.median(times[(name, lv)]):6.2f}" for lv in levels]
        print(f"{name:22} " + " ".join(cells))
    for family in ("niah", "cwe"):
        names = [n for n in data if ("cwe" in n) == (family == "cwe")]
        if not names:
            continue
        base = levels.index(12) if 12 in levels else -1
        total = {lv: (sum(sizes[(n, lv)] for n in names), sum(statistics.median(times[(n, lv)]) for n in names))
                 for lv in levels}
        ref_size, ref_time = total[levels[base]]
        print(f"{family}: " + "; ".join(f"L{lv} {s / 1e6:.2f} MB ({s / ref_size:.3f}x), {t:.2f} s ({t / ref_time:.2f}x)"
                                       for lv, (s, t) in total.items()) + f"  [relative to L{levels[base]}]")


if __name__ == "__main__":
    main()
