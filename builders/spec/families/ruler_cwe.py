"""RULER's common-words-extraction family (RULER §3.3): ``ruler_cwe``, English only: a numbered list of words in
which 10 appear most often (30 against 3 times; RULER's short variant below 4096 tokens), after one in-context
example; the answer is those 10 words. Scored by RULER's ``string_match_all``."""

from __future__ import annotations

from .ruler import ENGLISH_ONLY, RulerTask, ruler_family

CWE_RESERVE = 120  # RULER's tokens_to_generate for common_words_extraction

TASKS: tuple[RulerTask, ...] = (
    RulerTask("ruler_cwe", "ruler_cwe", "cwe", "RULER CWE", "10 words ×30, others ×3; one in-context example", "—",
              "the 10 common words", CWE_RESERVE, "string_match_all"),
)

RULER_CWE = ruler_family(
    name="ruler_cwe", label="RULER CWE",
    summary="RULER's common words (English): a numbered list of words after one in-context example; the answer is "
            "the 10 most frequent",
    unit="words", reserve=CWE_RESERVE,
    count_margin=0.45,  # numbered word lists, as ONERULER's CWE
    needles=False, cross_lingual=False, scoring_rule="string_match_all", tasks=TASKS, languages=ENGLISH_ONLY,
)
