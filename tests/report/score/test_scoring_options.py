"""``ScoringOptions`` has one writer (``as_json``, scores.json's ``options``) and one reader (``from_json``):
every combination reads back to itself, and what the command line asked for is what a compared report reads."""

from __future__ import annotations

import itertools
import json

import pytest
from report_fixtures import make_row, run_cli, score_folder, write_export, write_jsonl

from builders.base.errors import SettingError
from builders.report.documents.scores_json import read_scores
from builders.report.score.options import ScoringOptions
from builders.scoring import MISSING_POLICIES, TRUNCATION_POLICIES

# every valid combination: the upstream missing policy drops cut outputs, so only the paper truncation goes with it
EVERY = [ScoringOptions(*values) for values in itertools.product(
    (False, True), TRUNCATION_POLICIES, MISSING_POLICIES, (True, False), (False, True))
    if values[2] == "paper" or values[1] == "paper"]


@pytest.mark.parametrize("options", EVERY, ids=lambda o: "-".join(map(str, vars(o).values())))
def test_every_combination_reads_back_to_itself(options):
    written = json.loads(json.dumps(options.as_json()))
    assert ScoringOptions.from_json(written) == options


def test_the_written_keys_are_those_of_scores_json():
    assert ScoringOptions(True, "paper", "upstream", False, True).as_json() == {
        "strict": True, "truncation": "paper", "missing": "upstream", "strip_think": False, "answer_tag": True}


@pytest.mark.parametrize("values, setting, message", [
    (("score", "upstream"), "truncation", "truncation score has no effect with missing_policy upstream"),
    (("wrong", "upstream"), "truncation", "truncation wrong has no effect with missing_policy upstream"),
    (("cut", "paper"), "truncation", "truncation must be one of paper, score, wrong, got 'cut'"),
    (("paper", "mine"), "missing_policy", "missing_policy must be one of paper, upstream, got 'mine'"),
])
def test_options_check_themselves_whoever_makes_them(values, setting, message):
    # the CLI, lm-eval, Inspect and a scores.json read back all make their options here: one rule for all
    with pytest.raises(SettingError, match=message) as caught:
        ScoringOptions(False, *values)
    assert caught.value.setting == setting


def test_keys_an_older_report_lacks_take_their_defaults():
    assert ScoringOptions.from_json({}) == ScoringOptions()
    assert ScoringOptions.from_json({"strict": True, "truncation": "wrong"}) == ScoringOptions(True, "wrong")


def test_the_options_of_a_scored_folder_read_back_as_given(tmp_path):
    name = "pl_s_niah_8k"
    export = write_export(tmp_path / "export", {name: [make_row(name, 0, "s_niah", "pl", "pl", 8000, ["1234567"])]})
    preds = [{"id": f"{name}/0", "prediction": "<think>x</think><Answer>1234567</Answer>", "finish_reason": "stop"}]
    folder = score_folder(export, preds, tmp_path / "report", "--strict", "--truncated", "score", "--keep-think",
                          "--answer-tag")
    assert read_scores(folder).options == ScoringOptions(True, "score", "paper", False, True)


def test_the_command_line_words_the_refusal_as_its_flags(tmp_path):
    name = "pl_s_niah_8k"
    export = write_export(tmp_path / "export", {name: [make_row(name, 0, "s_niah", "pl", "pl", 8000, ["1234567"])]})
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": f"{name}/0", "prediction": "1234567"}])
    result = run_cli(["score", preds, "--dataset", export, "--truncated", "score", "--missing-policy", "upstream"])
    assert result.exit_code == 2 and not (tmp_path / "p-report").exists()
    assert result.output.strip().splitlines()[-1] == (
        "error: --truncated score has no effect with --missing-policy upstream (truncated outputs are dropped)")
