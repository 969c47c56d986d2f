"""The Inspect scorer on the scoring core's own corpus (tests/scoring/test_scoring.py), called as Inspect calls it.

Each answer is put in a ``TaskState`` (its output: the text and a stop reason, as Inspect's
``openai-api`` provider records them) and scored by the scorer object the task uses; the
categories and recalls expected are the corpus's hand-worked ones, and the property tests
compare the pass/fail with the corpus's transcription of the upstream rules. The run against a
server, the metrics and the dropped rows: test_inspect_task.py.
"""

from __future__ import annotations

import asyncio
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import Score, Target
from inspect_ai.solver import TaskState

from scoring_corpus import (CATEGORY_CASES, GOLD_SETS, LANGS, NEEDLES, OUTPUTS, WORDS, oracle_cwe, oracle_none,
                            oracle_numbers)

from builders.inspect_eval.scorer import oneruler_scorer
from builders.scoring import CATEGORIES, NONE_WORDS
from builders.spec.tasks import TASKS

NUMBER_TASKS = tuple(t for t in TASKS if TASKS[t].scoring_rule == "numbers")


def scored(text: str, gold: list[str], task: str, language: str | None = "en", stop_reason: str = "stop",
           **options) -> Score:
    """The score Inspect records for ``text`` answering a row of ``task`` (needles: the corpus's)."""
    output = ModelOutput.from_content("test-model", text, stop_reason=stop_reason)
    state = TaskState(ModelName("openai-api/standin/test-model"), "en_s_niah_8k/0", 1, "prompt", [], output=output,
                      metadata={"task": task, "instruction_language": language, "needles": NEEDLES})
    return asyncio.run(oneruler_scorer(**options)(state, Target(gold)))


@pytest.mark.parametrize("task, gold, text, category, recall", CATEGORY_CASES)
def test_each_answer_gets_the_corpus_category_and_recall(task, gold, text, category, recall):
    score = scored(text, gold, task)
    assert (score.metadata["category"], score.metadata["recall"]) == (category, recall)
    assert score.value == (1.0 if category == "correct" else 0.0)
    assert score.metadata["counted"] is True and score.metadata["finish_reason"] == "stop"


def test_cwe_categories():
    assert scored(" ".join(WORDS), WORDS, "cwe_easy", None).metadata["category"] == "correct"
    partial = scored(" ".join(WORDS[:4]), WORDS, "cwe_hard", None)
    assert (partial.value, partial.metadata["category"], partial.metadata["recall"]) == (0.0, "partial", 0.4)


@pytest.mark.parametrize("stop_reason", ["max_tokens", "model_length"])
def test_a_cut_niah_answer_is_left_out_and_a_cut_cwe_answer_counts_wrong(stop_reason):
    niah = scored("2222222", ["2222222"], "mk_niah", stop_reason=stop_reason)
    assert math.isnan(niah.value)  # Inspect's metrics skip NaN: not in the accuracy
    assert (niah.metadata["counted"], niah.metadata["status"], niah.metadata["finish_reason"]) == \
        (False, "truncated", "length")
    cwe = scored(" ".join(WORDS), WORDS, "cwe_easy", None, stop_reason=stop_reason)
    assert (cwe.value, cwe.metadata["counted"], cwe.metadata["category"]) == (0.0, True, "no_answer")


def test_the_truncation_and_missing_policies_are_oneruler_scores():
    assert scored("2222222", ["2222222"], "mk_niah", stop_reason="max_tokens", truncation="score").value == 1.0
    assert scored("2222222", ["2222222"], "mk_niah", stop_reason="max_tokens", truncation="wrong").value == 0.0
    cut_cwe = scored(" ".join(WORDS), WORDS, "cwe_easy", None, stop_reason="max_tokens", missing_policy="upstream")
    assert math.isnan(cut_cwe.value)
    assert scored(" ".join(WORDS), WORDS, "cwe_easy", None, stop_reason="unknown").value == 1.0


def test_think_blocks_are_stripped_unless_kept():
    text = "<think>2222222</think> 9999999"
    assert (scored(text, ["2222222"], "mk_niah").value, scored(text, ["2222222"], "mk_niah").answer) == \
        (0.0, " 9999999")
    assert scored("<think>the value is 2222222", ["2222222"], "mk_niah").metadata["category"] == "no_answer"
    both = "<think>1111111</think> 2222222"
    assert scored(both, ["2222222"], "mk_niah").value == 1.0
    assert scored(both, ["2222222"], "mk_niah", keep_think=True).value == 0.0  # two values where one is asked


def test_strict_mode_scores_whole_tokens_and_keeps_the_paper_verdict():
    paper = scored("nonexistent", ["none"], "none_niah")
    strict = scored("nonexistent", ["none"], "none_niah", strict=True)
    assert paper.value == 1.0 and "paper_passed" not in paper.metadata
    assert (strict.value, strict.metadata["paper_passed"]) == (0.0, True)


def test_answer_tag_scores_the_last_answer_block():
    text = "<Answer>1111111</Answer> no: <answer>2222222</answer>"
    assert scored(text, ["2222222"], "mk_niah", answer_tag=True).value == 1.0
    assert scored(text, ["2222222"], "mk_niah").value == 0.0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(output=OUTPUTS, lang=LANGS, gold=GOLD_SETS, task=st.sampled_from(NUMBER_TASKS))
def test_number_answers_agree_with_the_upstream_oracle(output, lang, gold, task):
    score = scored(output, gold, task, lang)
    assert score.value == float(oracle_numbers(output, gold, lang))
    assert score.metadata["category"] in CATEGORIES


@settings(max_examples=150, deadline=None)
@given(output=OUTPUTS, lang=LANGS)
def test_none_answers_agree_with_the_upstream_oracle(output, lang):
    assert scored(output, [NONE_WORDS[lang][0]], "none_niah", lang).value == float(oracle_none(output, lang))


@settings(max_examples=100, deadline=None)
@given(words=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=10), extra=st.text(max_size=20))
def test_cwe_answers_agree_with_the_oracle(words, extra):
    output = " ".join(words[::2]) + extra
    assert scored(output, words, "cwe_easy", None).value == float(oracle_cwe(output, words))


def test_a_ruler_rows_value_is_its_credit():
    """RULER's tasks are graded: the Score's value is the credit (0–1), so Inspect's ``accuracy`` is RULER's mean."""
    score = scored("the values are 1234567 and 2222222", ["1234567", "2222222", "3333333", "4444444"],
                   "ruler_niah_multivalue")
    assert score.value == 0.5 and score.metadata["category"] == "partial"
    assert scored("Nothing here", ["1234567"], "ruler_niah_single_1").value == 0.0
    assert scored("PARIS.", ["Lyon", "Paris"], "ruler_qa_1").value == 1.0
