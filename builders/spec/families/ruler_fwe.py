"""RULER's frequent-words-extraction family (RULER §3.3): ``ruler_fwe``, English only: coded words drawn from a
Zeta distribution (α = 2), the most frequent one shown as ``....`` noise; the answer is the three most frequent
coded words. Scored by RULER's ``string_match_all``."""

from __future__ import annotations

from .ruler import ENGLISH_ONLY, RulerTask, ruler_family

FWE_RESERVE = 50  # RULER's tokens_to_generate for freq_words_extraction

TASKS: tuple[RulerTask, ...] = (
    RulerTask("ruler_fwe", "ruler_fwe", "fwe", "RULER FWE", "coded words, Zeta α = 2", "—",
              "the 3 most frequent coded words", FWE_RESERVE, "string_match_all"),
)

RULER_FWE = ruler_family(
    name="ruler_fwe", label="RULER FWE",
    summary="RULER's frequent words (English): coded words drawn from a Zeta distribution; the answer is the three "
            "most frequent",
    unit="coded words", reserve=FWE_RESERVE,
    count_margin=0.5,  # random letter strings: tokenizers differ most on them
    needles=False, cross_lingual=False, scoring_rule="string_match_all", tasks=TASKS, languages=ENGLISH_ONLY,
)
