"""Compare two exports column by column: the proof that a change left existing rows alone.

    python benchmarks/compare_exports.py BEFORE_DIR AFTER_DIR [--ignore-needle-field actual_depth]

Reads every config's shards (``data/<config>/*.parquet``) of both folders with pyarrow and compares
each column's values row by row; needle records are compared field by field, leaving out the
fields named by ``--ignore-needle-field`` (fields the AFTER export adds). Prints one line per
differing column and a summary; exit 1 if any config is missing or any value differs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pyarrow.parquet as pq

MAX_LINES = 20  # differences printed (all are counted)


def config_table(folder: Path, config: str):
    """The rows of one config of an export, in shard order."""
    import pyarrow as pa

    files = sorted((folder / "data" / config).glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files])


def column_values(table, name: str, ignore: set[str]) -> list:
    """A column as Python values; needle records without the ignored fields."""
    values = table.column(name).to_pylist()
    if name == "needles":
        return [[{k: v for k, v in n.items() if k not in ignore} for n in row] for row in values]
    return values


def compare(before: Path, after: Path, ignore: set[str]) -> int:
    """Print the differences; the number of differing (config, column) pairs plus missing configs."""
    configs = sorted(p.name for p in (before / "data").iterdir() if p.is_dir())
    problems = rows = 0
    added: set[str] = set()
    for config in configs:
        if not (after / "data" / config).is_dir():
            problems += 1
            if problems <= MAX_LINES:
                print(f"{config}: missing in {after}")
            continue
        a, b = config_table(before, config), config_table(after, config)
        added |= set(b.column_names) - set(a.column_names)
        rows += a.num_rows
        for name in a.column_names:
            if name not in b.column_names or column_values(a, name, ignore) != column_values(b, name, ignore):
                problems += 1
                if problems <= MAX_LINES:
                    print(f"{config}: column {name!r} differs")
    print(f"{len(configs)} configs, {rows} rows compared; {problems} difference(s); columns added: "
          f"{sorted(added) or 'none'}; needle fields left out: {sorted(ignore) or 'none'}")
    return problems


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--ignore-needle-field", action="append", default=[])
    args = parser.parse_args()
    return 1 if compare(args.before, args.after, set(args.ignore_needle_field)) else 0


if __name__ == "__main__":
    sys.exit(main())
