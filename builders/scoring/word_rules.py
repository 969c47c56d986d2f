"""The paper's rule for word answers (SPEC §5, CWE): every gold word in the output, lower-cased; strict mode
matches each as a whole word."""

from __future__ import annotations

import functools
from typing import Any, Iterable, Sequence

from .answer_text import TokenTerm, token_pattern, token_search


@functools.lru_cache(maxsize=4096)
def _word_pattern(word: str) -> TokenTerm:
    return token_pattern([word])


def _words_found(text: str, answers: Sequence[str], strict: bool) -> list[bool]:
    out = text.strip().lower()
    words = [str(a).strip().lower() for a in answers]
    if not strict:
        return [w in out for w in words]
    return [(not w) or token_search(_word_pattern(w), out) for w in words]


def score_words(text: str, answers: Sequence[str], language: str | None, needles: Iterable[Any] | None,
                strict: bool) -> tuple[bool, float, str]:
    """Pass iff every gold word occurs; recall = share of gold words found (``language``, ``needles`` unused)."""
    if not answers:
        raise ValueError("a CWE task needs its gold words")
    found = _words_found(text, answers, strict)
    passed, hits = all(found), sum(found)
    category = "correct" if passed else "no_answer" if not text.strip() else "partial" if hits else "wrong"
    return passed, hits / len(found), category
