"""RULER's multi-hop tracing family (RULER §3.2): variable tracking, ``ruler_vt`` (``generate/ruler/vt.py``): a
chain of ``VAR X = N`` assignments in repeated noise sentences (English) or between the sentences of the context
language's ONERULER book (``generate/ruler/vt_book.py``), after RULER's in-context example; the answer is every
variable of the chain. Scored by RULER's ``string_match_all``. Context in any of the 26 languages with RULER's
English instructions (``pl-en_ruler_vt_32768``), or a checked translation's (``pl_ruler_vt_32768``)."""

from __future__ import annotations

from ..languages import LANGUAGE_CODES
from .ruler import ENGLISH_INSTRUCTIONS, RulerTask, ruler_family

VT_RESERVE = 30  # RULER's tokens_to_generate for variable_tracking

TASKS: tuple[RulerTask, ...] = (
    RulerTask("ruler_vt", "ruler_vt", "vt", "RULER VT", "noise haystack; 1 chain of 4 hops, after one in-context "
              "example (outside English: the language's book)", "5 statements", "the 5 variables of the chain",
              VT_RESERVE, "string_match_all"),
)

RULER_VT = ruler_family(
    name="ruler_vt", label="RULER VT",
    summary="RULER's variable tracking: a chain of `VAR X = N` assignments in repeated noise sentences (English) or "
            "between the sentences of the language's book (other languages), after an in-context example; the answer "
            "is every variable that holds the value",
    unit="haystack units (noise lines in English, book sentences in other languages)", reserve=VT_RESERVE,
    count_margin=0.1,
    needles=True, cross_lingual=True, scoring_rule="string_match_all", tasks=TASKS, languages=ENGLISH_INSTRUCTIONS,
    book_haystack=tuple(code for code in LANGUAGE_CODES if code != "en"),  # English keeps RULER's noise lines
)
