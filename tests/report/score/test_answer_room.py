"""Rows whose gold answer cannot fit the run's limit of new tokens (report/score/answer_room.py, issue 36): counted
per config in the tokenizer said, shown beside the accuracy in the console, scores.csv, scores.json and the Hub
notes, against the limit the run's meta records (``run --max-tokens cwe=200``), else the row's reserve."""

from __future__ import annotations

import csv
import json
from dataclasses import replace

import tiktoken
from report_fixtures import make_row, run_cli, write_export, write_jsonl

from builders.report.hub_results.notes import ceiling_note
from builders.report.score.answer_room import answer_room, row_limit
from builders.spec.run_meta import RunMeta

TAMIL = ["அம்மா", "தண்ணீர்", "புத்தகம்", "மரங்கள்", "பள்ளிக்கூடம்", "கடற்கரை", "வானம்", "நட்சத்திரம்", "மழைக்காலம்",
         "கண்ணாடி"]
LATIN = [f"word{i}" for i in range(10)]


def rows() -> dict[str, list[dict]]:
    cwe = [make_row("ta_cwe_easy_8k", i, "cwe_easy", "ta", "ta", 8000, TAMIL if i < 3 else LATIN) for i in range(4)]
    niah = [make_row("ta_s_niah_8k", i, "s_niah", "ta", "ta", 8000, ["4817290"], [("k", "4817290", 50, 50.0)])
            for i in range(2)]
    return {"ta_cwe_easy_8k": cwe, "ta_s_niah_8k": niah}


def test_the_fixture_is_what_it_claims():
    tokens = len(tiktoken.get_encoding("cl100k_base").encode(", ".join(TAMIL)))
    assert tokens > 50 and len(", ".join(LATIN)) <= 200  # over the CWE reserve; under a 200-token limit


def test_rows_that_cannot_fit_are_counted_against_the_runs_limit():
    by_id = {r["id"]: r for config in rows().values() for r in config}
    room = answer_room(by_id, None)
    assert (room.tokenizer, room.over, room.limits["ta_cwe_easy_8k"]) == (
        "cl100k_base", {"ta_cwe_easy_8k": 3, "ta_s_niah_8k": 0}, [50, 50])
    meta = RunMeta.of(sampling={"max_tokens": 300, "max_tokens_by_task": {"cwe": 400}})
    assert answer_room(by_id, meta).over == {"ta_cwe_easy_8k": 0, "ta_s_niah_8k": 0}
    assert row_limit(by_id["ta_s_niah_8k/0"], meta.sampling) == 300 and row_limit(by_id["ta_s_niah_8k/0"], None) == 30
    assert row_limit(by_id["ta_cwe_easy_8k/0"], {"max_tokens_by_task": {"cwe_easy": 60, "cwe": 400}}) == 60


def test_the_limit_is_found_by_the_rows_task_id_then_its_family():
    # a family's name reaches every task of it, the ids its forms make on demand included (mv16_niah is a NIAH task)
    multi = make_row("en_mv16_niah_8k", 0, "mv16_niah", "en", "en", 8000, [str(1_000_000 + i) for i in range(16)])
    assert row_limit(multi, None) == 30
    assert row_limit(multi, {"max_tokens": 300, "max_tokens_by_task": {"niah": 64, "cwe": 400}}) == 64
    assert row_limit(multi, {"max_tokens_by_task": {"niah": 64, "mv16_niah": 200}}) == 200
    assert answer_room({multi["id"]: multi}, None).over == {"en_mv16_niah_8k": 1}  # 16 seven-digit values: > 30 tokens
    stranger = {**multi, "task": "a_task_of_a_later_version", "config": "x"}  # its own id only; else for all
    assert row_limit(stranger, {"max_tokens": 300, "max_tokens_by_task": {"niah": 64}}) == 300


def test_rows_of_a_graded_rule_are_left_out(monkeypatch):
    # a graded rule (RULER's string_match_*) gives a cut answer part of its credit: a long gold answer puts no ceiling
    # on such a row's score. CWE's rule made graded for this test: its rows leave the count, NIAH's stay.
    from builders.scoring import RULES

    by_id = {r["id"]: r for config in rows().values() for r in config}
    assert answer_room(by_id, None).over == {"ta_cwe_easy_8k": 3, "ta_s_niah_8k": 0}
    monkeypatch.setitem(RULES, "words", replace(RULES["words"], graded=True))
    room = answer_room(by_id, None)
    assert (room.over, room.rows) == ({"ta_s_niah_8k": 0}, {"ta_s_niah_8k": 2})
    assert "ta_cwe_easy_8k" not in room.to_json()["limits"]


def test_score_shows_the_ceiling_in_the_console_csv_and_json(tmp_path):
    export = write_export(tmp_path / "export", rows())
    predictions = [{"id": r["id"], "prediction": ", ".join(r["answers"]), "finish_reason": "stop"}
                   for config in rows().values() for r in config]
    preds = write_jsonl(tmp_path / "preds.jsonl", predictions)
    result = run_cli(["score", preds, "--dataset", export, "--out", tmp_path / "report"])
    assert result.exit_code == 0, result.output
    assert "answer room: 3 rows in 1 config have a gold answer longer than the run's limit of new tokens (counted in " \
           "cl100k_base tokens)" in result.output
    assert "  ta_cwe_easy_8k: 3 of 4 rows over 50 tokens, so at most 25.0 % can be right" in result.output
    with (tmp_path / "report" / "scores.csv").open(encoding="utf-8") as handle:
        table = {r["config"]: r for r in csv.DictReader(handle)}
    assert (table["ta_cwe_easy_8k"]["over_limit"], table["ta_s_niah_8k"]["over_limit"]) == ("3", "0")
    scores = json.loads((tmp_path / "report" / "scores.json").read_text(encoding="utf-8"))
    assert scores["answer_room"]["over_limit"] == {"ta_cwe_easy_8k": 3, "ta_s_niah_8k": 0}
    assert [g["over_limit"] for g in scores["groups"]] == [0, 3] or [g["over_limit"] for g in scores["groups"]] == [3, 0]
    (tmp_path / "roomy.meta.json").write_text(json.dumps({"format": "oneruler-run/1", "model": "m", "sampling": {
        "max_tokens": None, "max_tokens_by_task": {"cwe": 200}}}), encoding="utf-8")
    roomy = write_jsonl(tmp_path / "roomy.jsonl", predictions)
    again = run_cli(["score", roomy, "--dataset", export, "--out", tmp_path / "roomy"])
    assert again.exit_code == 0 and "answer room" not in again.output
    scores = json.loads((tmp_path / "roomy" / "scores.json").read_text(encoding="utf-8"))
    assert scores["answer_room"]["limits"]["ta_cwe_easy_8k"] == [200, 200]


def test_the_hub_notes_state_the_ceiling():
    from builders.report.hub_results.values import LeaderboardValue
    from builders.report.report_data import Report
    from builders.report.score.options import ScoringOptions
    from builders.report.stats.cells import Cell
    from builders.spec.leaderboards import LEADERBOARDS, ServedLeaderboard

    board = ServedLeaderboard(LEADERBOARDS[1], None)
    configs = list(board.config_names)
    cell = Cell(passed=150, counted=182, lines=182, rows=182, truncated=0, no_response=0, configs=182, interval=None)
    report = Report(ScoringOptions(), (), extra={"answer_room": {"tokenizer": "cl100k_base",
                                                                 "over_limit": {configs[0]: 7, "elsewhere": 9}}})
    assert ceiling_note(report, LeaderboardValue(board, 182, cell)) == (
        "7 rows of the pool have a gold answer longer than the run's limit of new tokens (counted in cl100k_base "
        "tokens), so the value can be at most 96.15 %")
    assert ceiling_note(Report(ScoringOptions(), ()), LeaderboardValue(board, 182, cell)) == ""
