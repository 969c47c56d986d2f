"""lm-eval metadata → how a task's answers are scored (where its rows come from: tests/taskrows)."""

from __future__ import annotations

import pytest

from builders.base.errors import OneRulerError
from builders.lmeval.options import scoring_options
from builders.report.score.options import ScoringOptions


def test_scoring_options():
    assert scoring_options({}) == ScoringOptions()
    assert scoring_options({"strict": True, "keep_think": True, "answer_tag": True}) == ScoringOptions(
        strict=True, strip_think=False, answer_tag=True)
    with pytest.raises(OneRulerError, match="'strict' must be true or false"):
        scoring_options({"strict": "yes"})
