"""``score_and_report`` below the command line: a partial run names the setting that accepts it
(``allow_partial``; the CLI words it ``--allow-partial``, tests/report/test_report.py), after the folder is written."""

from __future__ import annotations

import pytest
from report_fixtures import make_row, write_export, write_jsonl

from builders.cli.handler import flag_of
from builders.report.pipeline import PartialRun, score_and_report


def test_a_partial_run_names_the_setting_and_still_writes_the_folder(tmp_path):
    name = "pl_s_niah_8k"
    export = write_export(tmp_path / "export", {name: [make_row(name, i, "s_niah", "pl", "pl", 8000, [f"{1_000_000 + i}"])
                                                       for i in range(3)]})
    (tmp_path / "allow_partial").mkdir()  # a folder named like the setting: only the setting is worded as a flag
    preds = write_jsonl(tmp_path / "allow_partial" / "preds.jsonl",
                        [{"id": f"{name}/0", "prediction": "1000000", "finish_reason": "stop"}])
    printed: list[str] = []
    with pytest.raises(PartialRun) as caught:
        score_and_report(preds, str(export), tmp_path / "out", echo=printed.append)
    assert str(caught.value).endswith(f"have no prediction line (e.g. {name} 1/3); the run is unfinished: finish it, "
                                      f"or pass allow_partial")
    assert caught.value.settings == ("allow_partial",) and caught.value.exit_code == 1
    worded = caught.value.worded(flag_of)
    assert worded.startswith(f"{preds}: 2 rows of 1 config have") and worded.endswith("finish it, or pass --allow-partial")
    assert (tmp_path / "out" / "scores.json").is_file() and any(line.startswith("\nwrote ") for line in printed)
    report = score_and_report(preds, str(export), tmp_path / "again", allow_partial=True, echo=printed.append)
    assert [r.no_line for r in report.records] == [False, True, True] and len(report.scored) == 1
