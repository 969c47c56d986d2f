"""Compare two exports column by column: the proof that a change left existing rows alone.

    python benchmarks/compare_exports.py BEFORE_DIR AFTER_DIR [--ignore-needle-field actual_depth]
        [--removed-column cwe_pool_size ...] [--columns input,answers,needles,queries,context_span,num_tokens]

Reads every config's shards (``data/<config>/*.parquet``) of both folders with pyarrow and compares
each column's values row by row (``--columns``: only these; default: every column of BEFORE); needle
records are compared field by field, leaving out the fields named by ``--ignore-needle-field`` (fields
the AFTER export adds). A column of BEFORE that AFTER's config lacks is a difference unless named by
``--removed-column`` (a schema change that moves it: 0.3.0 gives the CWE fields to CWE rows only).
Prints one line per differing column, then a summary: rows compared, differences, the columns added
and removed (with how many configs each), and the needle fields left out; exit 1 if any config is
missing or any value differs.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
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


class Comparison:
    """What a comparison found: differences (printed as they come, up to MAX_LINES), rows, columns moved."""

    def __init__(self) -> None:
        self.problems = self.rows = 0
        self.added: Counter[str] = Counter()
        self.removed: Counter[str] = Counter()

    def problem(self, line: str) -> None:
        """Count a difference; print it while fewer than MAX_LINES were."""
        self.problems += 1
        if self.problems <= MAX_LINES:
            print(line)


def compare_config(before: Path, after: Path, config: str, found: Comparison, ignore: set[str],
                   removable: set[str], columns: list[str] | None) -> None:
    """Compare one config's columns (``columns``: only these), noting the columns added and removed."""
    a, b = config_table(before, config), config_table(after, config)
    found.added.update(set(b.column_names) - set(a.column_names))
    found.rows += a.num_rows
    for name in columns or a.column_names:
        if name not in b.column_names:
            if name in removable:
                found.removed[name] += 1
            else:
                found.problem(f"{config}: column {name!r} missing in {after}")
        elif name not in a.column_names or column_values(a, name, ignore) != column_values(b, name, ignore):
            found.problem(f"{config}: column {name!r} differs")


def compare(before: Path, after: Path, ignore: set[str], removable: set[str] = frozenset(),
            columns: list[str] | None = None) -> int:
    """Print the differences; the number of differing (config, column) pairs plus missing configs."""
    configs = sorted(p.name for p in (before / "data").iterdir() if p.is_dir())
    found = Comparison()
    for config in configs:
        if not (after / "data" / config).is_dir():
            found.problem(f"{config}: missing in {after}")
            continue
        compare_config(before, after, config, found, ignore, removable, columns)

    def moved(counts: Counter) -> str:
        return ", ".join(f"{name} ({counts[name]} configs)" for name in sorted(counts)) or "none"

    print(f"{len(configs)} configs, {found.rows} rows compared ({', '.join(columns) if columns else 'every column'}); "
          f"{found.problems} difference(s); columns added: {moved(found.added)}; columns removed: "
          f"{moved(found.removed)}; needle fields left out: {sorted(ignore) or 'none'}")
    return found.problems


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--ignore-needle-field", action="append", default=[])
    parser.add_argument("--removed-column", action="append", default=[],
                        help="a column AFTER may lack (moved by a schema change); repeat for several")
    parser.add_argument("--columns", default=None, help="comma-separated columns to compare (default: all of BEFORE)")
    args = parser.parse_args()
    columns = [c for c in args.columns.split(",") if c] if args.columns else None
    return 1 if compare(args.before, args.after, set(args.ignore_needle_field), set(args.removed_column), columns) else 0


if __name__ == "__main__":
    sys.exit(main())
