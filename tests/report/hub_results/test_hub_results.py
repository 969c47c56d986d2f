"""What ``oneruler score`` writes for the Hub (report/hub_results/): each leaderboard's value, the
``.eval_results/oneruler.yaml`` file (read back with huggingface_hub's own parser) and ``details.parquet``.

The export is hand-written (tests/grid_export.py): the 182 main configs at 8k, 2 rows each, whose
answers the predictions below get right (index 0) or wrong (index 1), so every number is known.
"""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest
import yaml
from grid_export import answer, main_grid_specs, write_grid_export
from huggingface_hub import parse_eval_result_entries
from report_fixtures import run_cli, write_jsonl

from builders.base.errors import OneRulerError
from builders.dataset.source import DatasetIdentity
from builders.report.hub_results.eval_results import HubIdentity
from builders.report.hub_results.report_files import hub_identity

COMMIT = "0123456789abcdef0123456789abcdef01234567"
DATASET_ID = f"my-org/oneruler@{COMMIT}"
NULL_NIAH, NULL_CWE = "en_s_niah_8k/1", "en_cwe_easy_8k/1"


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    root = tmp_path_factory.mktemp("grid")
    rows = write_grid_export(root / "export", main_grid_specs(), rows=2)
    return root / "export", rows


def predictions(rows: dict, skip: tuple[str, ...] = ()) -> list[dict]:
    """Index 0 right, index 1 wrong; one NIAH and one CWE row without a response; reasoning and usage on index 0."""
    out = []
    for ident, row in sorted(rows.items()):
        if ident in skip:
            continue
        right = row["index"] == 0
        line = {"id": ident, "prediction": None if ident in (NULL_NIAH, NULL_CWE) else answer(row, right),
                "finish_reason": "stop", "reasoning": "let me think" if right else None,
                "usage": {"prompt_tokens": 17, "completion_tokens": 5, "reasoning_tokens": 3 if right else None},
                "status": "ok"}
        out.append(line)
    return out


def score(grid, tmp_path, *extra, preds=None, meta=None, out="report"):
    export, rows = grid
    path = write_jsonl(tmp_path / "preds.jsonl", preds if preds is not None else predictions(rows))
    if meta is not None:
        (tmp_path / "preds.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    result = run_cli(["score", path, "--dataset", export, "--out", tmp_path / out, *extra])
    return result, tmp_path / out


def read_entries(folder) -> list:
    return parse_eval_result_entries(yaml.safe_load((folder / ".eval_results" / "oneruler.yaml").read_text("utf-8")))


def test_the_results_file_parses_back_into_the_reports_numbers(grid, tmp_path):
    meta = {"format": "oneruler-run/1", "model": "m", "preset": None, "ended_at": "2026-03-01T10:00:00+00:00",
            "sampling": {"temperature": 0.0, "max_tokens": None, "top_p": None, "stop": [], "extra_body": {}}}
    result, report = score(grid, tmp_path, "--dataset-id", DATASET_ID, meta=meta)
    assert result.exit_code == 0, result.output
    (entry,) = read_entries(report)
    # 364 rows: 182 right (index 0); the null NIAH row leaves the denominator, the null CWE row counts wrong
    assert (entry.dataset_id, entry.task_id, entry.dataset_revision) == ("my-org/oneruler", "oneruler_8k", COMMIT)
    assert entry.value == round(100 * 182 / 363, 2) and entry.date == "2026-03-01T10:00:00+00:00"
    scores = json.loads((report / "scores.json").read_text(encoding="utf-8"))
    assert (scores["overall"]["passed"], scores["overall"]["counted"]) == (182, 363)
    low, high = scores["overall"]["ci"]  # the pool is every config here: the same cluster-bootstrap interval
    assert f"95 % CI {100 * low:.2f}–{100 * high:.2f}" in entry.notes and low < entry.value / 100 < high
    assert "363 of 364 rows counted, 182 passed" in entry.notes and "2 examples per config" in entry.notes
    assert "text-control" in entry.notes and "greedy, at most the row's reserve of new tokens (the paper's)" in entry.notes
    assert f"  oneruler_8k: {entry.value:.2f} % [{100 * low:.2f}, {100 * high:.2f}]" in result.output
    assert "wrote " in result.output and ".eval_results/oneruler.yaml" in result.output


def test_details_hold_one_row_per_prediction(grid, tmp_path):
    _, rows = grid
    result, report = score(grid, tmp_path)
    assert result.exit_code == 0, result.output
    details = {r["id"]: r for r in pq.read_table(report / "details.parquet").to_pylist()}
    assert sorted(details) == sorted(rows)  # every line, none twice
    null_niah, null_cwe, mv = details[NULL_NIAH], details[NULL_CWE], details["pl_mv_niah_8k/0"]
    assert (null_niah["prediction"], null_niah["counted"], null_niah["correct"]) == (None, False, False)
    assert (null_cwe["counted"], null_cwe["correct"], null_cwe["error_category"]) == (True, False, "no_answer")
    assert mv["gold"] == rows["pl_mv_niah_8k/0"]["answers"] and mv["correct"] and mv["error_category"] == "correct"
    assert mv["needle_depth"] == [0.0, 20.0, 40.0, 60.0] and mv["needle_token_depth"] == [0.25, 20.25, 40.25, 60.25]
    assert (mv["reasoning_chars"], mv["reasoning_tokens"], mv["prompt_tokens"], mv["completion_tokens"]) == (12, 3, 17, 5)
    wrong = details["pl_mv_niah_8k/1"]
    assert not wrong["correct"] and wrong["reasoning_chars"] is None and wrong["prediction"] == "1000001 maybe"
    assert details["pl_cwe_hard_8k/0"]["needle_depth"] == [] and details["pl_cwe_hard_8k/0"]["length"] == 8000
    assert sum(d["correct"] for d in details.values()) == 182
    # score: a pass/fail row's credit is 1 or 0 (nine of CWE's ten words: recall 0.9, score 0), null when not counted
    nine = details["pl_cwe_hard_8k/1"]
    assert (nine["recall"], nine["score"], mv["score"], wrong["score"]) == (0.9, 0.0, 1.0, 0.0)
    assert (null_niah["score"], null_cwe["score"]) == (None, 0.0)
    assert all(d["score"] == float(d["correct"]) for d in details.values() if d["counted"])


def test_without_hub_identity_no_results_file_and_a_stale_one_goes(grid, tmp_path):
    first, report = score(grid, tmp_path, "--dataset-id", DATASET_ID)
    assert first.exit_code == 0 and (report / ".eval_results" / "oneruler.yaml").is_file()
    again, report = score(grid, tmp_path)
    assert again.exit_code == 0, again.output
    assert "no Hub identity: the rows come from a local export" in again.output
    assert not (report / ".eval_results" / "oneruler.yaml").exists() and (report / "details.parquet").is_file()


def test_a_report_missing_a_row_lists_the_leaderboard_as_incomplete(grid, tmp_path):
    _, rows = grid
    result, report = score(grid, tmp_path, "--dataset-id", DATASET_ID, "--allow-partial",
                           preds=predictions(rows, skip=("ko_mq_niah_8k/1",)))
    assert result.exit_code == 0, result.output
    assert "  oneruler_8k: incomplete, 181 of 182 configs of its pool complete" in result.output
    assert "no leaderboard of my-org/oneruler is covered in full; no .eval_results file" in result.output
    assert not (report / ".eval_results").exists()


def test_a_strict_report_publishes_the_paper_mode_value(grid, tmp_path):
    _, rows = grid
    preds = predictions(rows)
    for line in preds:  # the none word inside a longer word: passes the paper's substring rule, not strict mode
        if line["id"].split("/")[0].endswith("none_niah_8k") and line["id"].endswith("/0"):
            line["prediction"] += "zz"
    paper, paper_report = score(grid, tmp_path, "--dataset-id", DATASET_ID, preds=preds, out="paper")
    strict, strict_report = score(grid, tmp_path, "--dataset-id", DATASET_ID, "--strict", preds=preds, out="strict")
    assert paper.exit_code == strict.exit_code == 0, strict.output
    overall = [json.loads((r / "scores.json").read_text("utf-8"))["overall"]["passed"] for r in (paper_report, strict_report)]
    assert overall == [182, 182 - 26]  # strict fails the 26 none_niah rows ...
    assert [e.value for e in read_entries(strict_report)] == [e.value for e in read_entries(paper_report)]  # ... not here


def test_dataset_id_must_name_a_commit_and_only_for_a_local_export(grid, tmp_path):
    result, _ = score(grid, tmp_path, "--dataset-id", "my-org/oneruler@main")
    assert result.exit_code == 2
    assert re.fullmatch(r"error: --dataset-id 'my-org/oneruler@main': expected ORG/NAME@COMMIT, .*\n", result.output)
    hub = DatasetIdentity("my-org/oneruler", COMMIT, None)
    assert hub_identity(hub, None) == HubIdentity("my-org/oneruler", COMMIT)
    with pytest.raises(OneRulerError, match="applies to a local export; my-org/oneruler is a Hub dataset") as caught:
        hub_identity(hub, HubIdentity("my-org/other", COMMIT))
    assert caught.value.settings == ("dataset_id",)


def test_the_interval_written_into_the_notes_reads_back():
    from builders.report.hub_results.notes import noted_interval

    written = "95 % CI 61.20–65.60 (cluster bootstrap over example indices); 9,050 of 9,100 rows counted, 5,700 passed"
    assert noted_interval(written) == (61.2, 65.6)
    assert noted_interval("no interval (nothing counted)") is None and noted_interval(None) is None


def test_the_ruler_board_is_valued_by_rulers_average_with_its_interval(tmp_path):
    """A report of the whole ruler grid publishes the ``ruler`` task: RULER's Avg. of its table row (not the micro
    accuracy of its rows), the Avg.'s interval in the notes, and RULER's 500 examples as the reference count."""
    from ruler_export import answer_with, credit, ruler_specs, write_ruler_export

    rows = write_ruler_export(tmp_path / "export", ruler_specs(), rows=2)
    # index 0 finds every reference, index 1 the first one only: credit 1 / (1 or 1/n) per row
    preds = [{"id": i, "prediction": answer_with(r, len(r["answers"]) if r["index"] == 0 else 1)}
             for i, r in rows.items()]
    path = write_jsonl(tmp_path / "preds.jsonl", preds)
    result = run_cli(["score", path, "--dataset", tmp_path / "export", "--out", tmp_path / "report",
                      "--dataset-id", DATASET_ID])
    assert result.exit_code == 0, result.output
    (entry,) = read_entries(tmp_path / "report")
    scores = json.loads((tmp_path / "report" / "scores.json").read_text(encoding="utf-8"))
    avg = next(c for c in scores["ruler_table"][0]["columns"] if c["column"] == "Avg.")
    assert entry.task_id == "ruler" and entry.value == round(100 * avg["value"], 2)
    assert entry.value != round(100 * scores["overall"]["passed"] / scores["overall"]["counted"], 2)  # not micro
    assert f"95 % CI {100 * avg['ci'][0]:.2f}–{100 * avg['ci'][1]:.2f}" in entry.notes
    assert "RULER's Avg." in entry.notes and "2 examples per config (RULER's paper: 500)" in entry.notes
    details = pq.read_table(tmp_path / "report" / "details.parquet").to_pylist()
    # each row's credit in RULER's rule (index 1: one of multivalue's four values, 0.25), correct only at full credit
    assert [(d["score"], d["correct"]) for d in details] == [
        (float(credit(rows[d["id"]], len(rows[d["id"]]["answers"]) if d["id"].endswith("/0") else 1)),
         d["id"].endswith("/0") or rows[d["id"]]["task"].startswith("ruler_qa") or len(rows[d["id"]]["answers"]) == 1)
        for d in details]
    assert {d["score"] for d in details if d["task"] == "ruler_niah_multivalue"} == {1.0, 0.25}
