"""The paper's rules for needle answers (SPEC §5): ``numbers`` (the gold values, nothing else) and ``none``
(the instruction language's none word), each with RULER-style recall and the paper's error categories."""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

from .answer_text import clean, normalize
from .digit_runs import NUMBER, found_values, gold_keys, needle_values, numbers_pass
from .none_words import mentions_none, none_words

_SINGLE_DIGIT = re.compile(r"\b\d\b")


def score_numbers(text: str, answers: Sequence[str], language: str, needles: Iterable[Any] | None,
                  strict: bool) -> tuple[bool, float, str]:
    """Pass iff no none word and exactly the gold numbers; recall = share of gold values found; distractors named."""
    gold = gold_keys(answers, "gold answer")
    if not gold:
        raise ValueError("a NIAH number task needs at least one gold value")
    out = normalize(text)
    none = bool(text) and mentions_none(text, language, strict)
    passed = bool(text) and not none and numbers_pass(out, gold)
    distractors = set(needle_values(needles)) - set(gold)
    found = found_values(out, set(gold) | distractors) if text else set()
    recall = len(found & set(gold)) / len(set(gold))
    if passed:
        category = "correct"
    elif not text.strip():
        category = "no_answer"
    elif none:
        category = "none_when_present"
    elif NUMBER.search(out) is None:
        category = "no_answer"
    elif found & distractors:
        category = "distractor"
    elif 0 < len(found & set(gold)) < len(set(gold)):
        category = "partial"
    else:
        category = "wrong"
    return passed, recall, category


def _none_niah_pass(text: str, language: str, strict: bool) -> bool:
    if strict:
        return mentions_none(text, language, strict=True)
    cleaned = _SINGLE_DIGIT.sub("", clean(normalize(text)))
    return any(clean(w) in cleaned for w in none_words(language))


def score_none(text: str, answers: Sequence[str], language: str, needles: Iterable[Any] | None,
               strict: bool) -> tuple[bool, float, str]:
    """Pass iff the output holds a none word of the instruction language (numbers beside it allowed)."""
    none_words(language)  # validate even for empty outputs
    passed = bool(text) and _none_niah_pass(text, language, strict)
    out = normalize(text)
    if passed:
        category = "correct"
    elif not text.strip():
        category = "no_answer"
    elif found_values(out, needle_values(needles)):
        category = "distractor"
    elif NUMBER.search(out) is None:
        category = "no_answer"
    else:
        category = "wrong"
    return passed, float(passed), category
