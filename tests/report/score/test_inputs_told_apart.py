"""Wrong inputs to `score` and `show`, each told apart in one line naming what the file is and what was expected;
a long list of row problems capped with a count; a report written whole when stdout's reader has gone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from report_fixtures import make_row, write_export, write_jsonl

REPO = Path(__file__).resolve().parents[3]
NAME = "pl_s_niah_8k"


@pytest.fixture()
def export(tmp_path) -> Path:
    rows = [make_row(NAME, i, "s_niah", "pl", "pl", 8000, [f"{1_000_000 + i}"]) for i in range(3)]
    folder = write_export(tmp_path / "export", {NAME: rows})
    manifest = {"books": {}, "configs": {NAME: {}}, "draws": {}, "fixes": [], "format": "oneruler-export/1"}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))  # as export/manifest.py lays it out
    return folder


def cli(args: list[str], cwd: Path, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "builders.cli", *args], cwd=cwd, env=env, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=300)


def wrong_inputs(tmp_path: Path, export: Path) -> dict[str, tuple[Path, str]]:
    """name → (the file given as predictions, what the one error line must call it)."""
    meta = tmp_path / "preds.meta.json"
    meta.write_text(json.dumps({"format": "oneruler-run/1", "model": "m", "runs": []}, indent=2))
    one_line_meta = tmp_path / "one-line.meta.json"
    one_line_meta.write_text(json.dumps({"format": "oneruler-run/1", "model": "m", "runs": []}) + "\n")
    shard = tmp_path / "shard.parquet"
    pq.write_table(pa.table({"id": [f"{NAME}/0"]}), shard)
    notes = tmp_path / "notes.txt"
    notes.write_text("".join(f"note {i}\n" for i in range(40)))
    document = tmp_path / "other.json"
    document.write_text(json.dumps({"alpha": 1, "beta": [1, 2]}, indent=2))
    return {
        "manifest": (export / "manifest.json", "is the manifest.json of an export (the dataset, not answers): give its "
                                               "folder to --dataset"),
        "card": (export / "README.md", "is a dataset card (README.md of an export): give its folder to --dataset"),
        "meta": (meta, "is the meta of a run (PREDS.meta.json), not its predictions: score the PREDS.jsonl beside it"),
        "one-line meta": (one_line_meta, "is the meta of a run (PREDS.meta.json)"),
        "parquet": (shard, "is a Parquet file (an export's data shard?), not predictions"),
        "text": (notes, "is not a predictions file: none of its 40 non-empty line(s) is one (line 1: not valid JSON"),
        "json document": (document, "is a JSON document (alpha, beta), not one JSON object per line"),
    }


def test_each_wrong_input_to_score_is_one_line_naming_it_and_what_was_expected(tmp_path, export):
    for name, (given, said) in wrong_inputs(tmp_path, export).items():
        done = cli(["score", str(given), "--dataset", str(export), "--out", str(tmp_path / "report")], tmp_path)
        assert done.returncode == 2, (name, done.stderr)
        assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {given} {said}"), (name, done.stderr)
        assert "expected a predictions file: one JSON object per line with 'id' and 'prediction'" in done.stderr
        assert not (tmp_path / "report").exists()


def test_a_long_list_of_row_problems_is_capped_with_a_count(tmp_path, export):
    lines = [{"id": f"{NAME}/0", "prediction": "1"}] + [{"id": "not an id", "prediction": "x"} for _ in range(30)]
    preds = write_jsonl(tmp_path / "preds.jsonl", lines)
    done = cli(["score", str(preds), "--dataset", str(export)], tmp_path)
    assert done.returncode == 2
    err = done.stderr.splitlines()
    assert err[0] == f"error: 30 problem(s) in {preds}:" and err[-1] == "  ... and 10 more" and len(err) == 22


def test_a_report_is_written_whole_when_stdouts_reader_has_gone(tmp_path, export):
    """`score ... | head`: the reader gone before the first line; the report folder is still written, exit 141."""
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"id": f"{NAME}/{i}", "prediction": "1000000"} for i in range(3)])
    read, write = os.pipe()
    os.close(read)  # every write to stdout now fails: EPIPE
    try:
        done = cli(["score", str(preds), "--dataset", str(tmp_path / "export"), "--out", str(tmp_path / "r")],
                   tmp_path, stdout=write)
    finally:
        os.close(write)
    assert done.returncode == 141 and done.stderr == ""
    whole = cli(["score", str(preds), "--dataset", str(tmp_path / "export"), "--out", str(tmp_path / "w")], tmp_path)
    assert whole.returncode == 0 and whole.stdout.startswith("ONERULER accuracy")
    written = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert written == sorted(p.name for p in (tmp_path / "w").iterdir()) and "scores.json" in written
    assert (tmp_path / "r" / "examples.jsonl").read_bytes() == (tmp_path / "w" / "examples.jsonl").read_bytes()


def test_show_with_a_dataset_that_is_no_folder_says_so_first(tmp_path):
    done = cli(["show", NAME, "--dataset", "nosuchdir"], tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"error: dataset 'nosuchdir': no such folder in {tmp_path}, and ")
    assert "give an export folder (`oneruler build --out DIR`) or a Hub dataset ORG/NAME" in done.stderr
