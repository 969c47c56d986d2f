"""RULER's rules (builders/scoring/ruler_rules.py) against RULER's own metric functions, compiled from the pinned
mirror's ``scripts/eval/synthetic/constants.py`` and run on the same outputs (the package never executes them)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import scoring
from builders.scoring.ruler_rules import references_found, ruler_postprocess

METRIC_FILE = Path("scripts/eval/synthetic/constants.py")
REFS = (["7042291"], ["alpha", "Beta", "gamma"], ["VAR ABC", "DEF"], ["Paris", "paris, france"], ["ünïcode", "ΣΊΣΥΦΟΣ"])
OUTPUTS = ("", "  ", "7042291", "The special magic number is 7042291.", "ALPHA beta", "alphabet gamma",
           "abc def", "\x00var abc\tDEF\x1f", "Paris", "PARIS, FRANCE.", "ÜNÏCODE σίσυφος", "none", "\n\n42\n")


@pytest.fixture(scope="module")
def ruler_metric(ruler_mirror):
    """RULER's ``string_match_all`` and ``string_match_part``, compiled from the mirror's file alone."""
    source = (ruler_mirror / METRIC_FILE).read_text(encoding="utf-8")
    wanted = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
    namespace: dict = {}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), str(METRIC_FILE), "exec"), namespace)  # noqa: S102 (oracle)
    return namespace["string_match_all"], namespace["string_match_part"]


def ruler_clean(text: str) -> str:
    """RULER's ``postprocess_pred`` (eval/evaluate.py, not in the mirror), written from its definition."""
    return re.sub(r"[\x00-\x1f]", "\n", text.strip()).strip()


def credit(prediction, refs, rule, **kw) -> float:
    return scoring.score_example(prediction, refs, rule, None, **kw).recall


@pytest.mark.parametrize("refs", REFS)
@pytest.mark.parametrize("output", OUTPUTS)
def test_each_row_gets_rulers_credit(ruler_metric, output, refs):
    match_all, match_part = ruler_metric
    cleaned = ruler_clean(output)
    assert round(credit(output, refs, "string_match_all") * 100, 2) == match_all([cleaned], [refs])
    assert round(credit(output, refs, "string_match_part") * 100, 2) == match_part([cleaned], [refs])


@settings(max_examples=200, deadline=None)
@given(outputs=st.lists(st.text(max_size=40), min_size=1, max_size=8),
       refs=st.lists(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=4), min_size=8, max_size=8))
def test_task_score_is_rulers_mean(ruler_metric, outputs, refs):
    """A task's RULER score (rounded to 2 places as RULER prints it) is the mean of the rows' credit."""
    match_all, match_part = ruler_metric
    refs = refs[:len(outputs)]
    cleaned = [ruler_clean(o) for o in outputs]
    for rule, oracle in (("string_match_all", match_all), ("string_match_part", match_part)):
        mean = sum(credit(o, r, rule) for o, r in zip(outputs, refs)) / len(outputs) * 100
        assert round(mean, 2) == pytest.approx(oracle(cleaned, refs), abs=0.011)  # summation order may differ by 1 ulp


def test_graded_rows_score_their_credit_and_pass_only_when_whole():
    some = scoring.score_example("alpha and gamma", ["alpha", "beta", "gamma"], "string_match_all")
    assert (some.passed, some.graded, some.category) == (False, True, "partial")
    assert some.score == pytest.approx(2 / 3)
    whole = scoring.score_example("Alpha, BETA, gamma", ["alpha", "beta", "gamma"], "string_match_all")
    assert (whole.passed, whole.score, whole.category) == (True, 1.0, "correct")
    assert scoring.score_example("beta", ["alpha", "beta"], "string_match_part").score == 1.0
    paper = scoring.score_example("7042291", ["7042291", "1234567"], "numbers", "en")
    assert (paper.graded, paper.score, paper.recall) == (False, 0.0, 0.5)  # pass/fail, not credit
    assert "graded" not in paper.to_dict() and some.to_dict()["graded"] is True


def test_rulers_rows_are_scored_as_written_when_cut_and_count_zero_when_null():
    cut = scoring.score_example("The numbers are 7042291 and 12", ["7042291"], "string_match_all",
                                finish_reason="length")
    assert (cut.score, cut.status, cut.counted) == (1.0, "truncated", True)
    wrong = scoring.score_example("7042291", ["7042291"], "string_match_all", finish_reason="length",
                                  truncation="wrong")
    assert (wrong.score, wrong.counted) == (0.0, True)
    null = scoring.score_example(None, ["7042291"], "string_match_part")
    assert (null.score, null.counted, null.status) == (0.0, True, "no_response")
    assert scoring.score_example(None, ["x"], "string_match_all", missing_policy="upstream").counted is False
    niah = scoring.score_example("7042291", ["7042291"], "numbers", "en", finish_reason="length")
    assert niah.counted is False  # the paper's rule for its own rows is unchanged


def test_strict_mode_matches_whole_tokens_only():
    assert references_found("alphabet", ["alpha"]) == [True]
    assert references_found("alphabet", ["alpha"], strict=True) == [False]
    assert references_found("(alpha).", ["alpha"], strict=True) == [True]


def test_postprocess_is_rulers():
    assert ruler_postprocess("  a\x00b\tc\x1fd  \n") == "a\nb\nc\nd"
    assert ruler_postprocess("\x01\x02") == ""
