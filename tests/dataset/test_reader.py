"""config_tables / read_rows: only the columns asked for, one config at a time, a bounded read-ahead."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builders.base.errors import OneRulerError
from builders.dataset import reader
from builders.dataset.reader import config_tables, read_rows
from builders.dataset.source import DatasetSource


def _export(root, n_configs=6, rows=3):
    files = {}
    for c in range(n_configs):
        name = f"c{c}"
        rel = f"data/{name}/test-0.parquet"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        table = pa.table({"id": [f"{name}/{i}" for i in range(rows)], "config": [name] * rows,
                          "input": [f"prompt {name} {i}" for i in range(rows)], "num_tokens": list(range(rows))})
        pq.write_table(table, root / rel)
        files[name] = [rel]
    return DatasetSource.open(str(root)), files


def test_only_the_asked_columns_in_config_order(tmp_path):
    source, files = _export(tmp_path)
    got = list(config_tables(source, ["c3", "c0"], files, ("id", "num_tokens")))
    assert [name for name, _ in got] == ["c3", "c0"]
    assert got[0][1].column_names == ["id", "num_tokens"]
    assert got[0][1]["id"].to_pylist() == ["c3/0", "c3/1", "c3/2"]


def test_optional_columns_are_read_when_present_and_none_means_all(tmp_path):
    source, files = _export(tmp_path)
    (_, table), = config_tables(source, ["c1"], files, ("id",), optional=("actual_depth", "input"))
    assert table.column_names == ["id", "input"]
    (_, table), = config_tables(source, ["c1"], files, ("id",), optional=None)
    assert table.column_names == ["id", "config", "input", "num_tokens"]


def test_a_missing_column_or_config_is_named(tmp_path):
    source, files = _export(tmp_path)
    with pytest.raises(OneRulerError, match=r"lacks column\(s\) reserve \(config 'c2'\)"):
        list(config_tables(source, ["c2"], files, ("id", "reserve")))
    with pytest.raises(OneRulerError, match="has no config 'c9'"):
        list(config_tables(source, ["c9"], files, ("id",)))
    with pytest.raises(OneRulerError, match="lists no data files for config 'c0'"):
        list(config_tables(source, ["c0"], dict(files, c0=[]), ("id",)))
    (tmp_path / files["c4"][0]).write_bytes(b"not parquet")
    with pytest.raises(OneRulerError, match=r"cannot read .*c4.* of dataset"):
        list(config_tables(source, ["c4"], files, ("id",)))


def test_a_file_holding_several_configs_gives_each_only_its_rows(tmp_path):
    pq.write_table(pa.table({"id": ["a/0", "b/0", "a/1"], "config": ["a", "b", "a"]}), tmp_path / "both.parquet")
    source = DatasetSource.open(str(tmp_path))
    files = {"a": ["both.parquet"], "b": ["both.parquet"]}
    assert [r["id"] for r in read_rows(source, ["a", "b"], files, ("id", "config"))] == ["a/0", "a/1", "b/0"]


def test_reading_is_bounded_ahead_of_the_consumer(tmp_path, monkeypatch):
    source, files = _export(tmp_path, n_configs=12)
    reads: list[str] = []
    real = reader.read_file
    monkeypatch.setattr(reader, "read_file", lambda path, columns, dataset: reads.append(path.parent.name) or real(path, columns, dataset))
    stream = config_tables(source, sorted(files), files, ("id",), read_ahead=3)
    first, _ = next(stream)
    import time

    time.sleep(0.2)  # give the pool every chance to run ahead
    assert first == "c0" and len(reads) <= 4  # the config handed out plus at most 3 ahead
    assert [name for name, _ in stream] == sorted(files)[1:] and sorted(reads) == sorted(files)
