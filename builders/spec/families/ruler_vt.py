"""RULER's multi-hop tracing family (RULER §3.2): variable tracking, ``ruler_vt`` (``generate/ruler/vt.py``): a
chain of ``VAR X = N`` assignments in repeated noise sentences, after RULER's in-context example; the answer is
every variable of the chain. Scored by RULER's ``string_match_all``. Context in any of the 26 languages with
RULER's English instructions (``pl-en_ruler_vt_32768``; English contexts only until that generator exists)."""

from __future__ import annotations

from .ruler import ENGLISH_INSTRUCTIONS, RulerTask, ruler_family

VT_RESERVE = 30  # RULER's tokens_to_generate for variable_tracking

TASKS: tuple[RulerTask, ...] = (
    RulerTask("ruler_vt", "ruler_vt", "vt", "RULER VT", "noise haystack; 1 chain of 4 hops, after one in-context "
              "example", "5 statements", "the 5 variables of the chain", VT_RESERVE, "string_match_all"),
)

RULER_VT = ruler_family(
    name="ruler_vt", label="RULER VT",
    summary="RULER's variable tracking: a chain of `VAR X = N` assignments in repeated noise sentences, after an "
            "in-context example; the answer is every variable that holds the value",
    unit="noise lines", reserve=VT_RESERVE,
    count_margin=0.1,
    needles=True, cross_lingual=True, scoring_rule="string_match_all", tasks=TASKS, languages=ENGLISH_INSTRUCTIONS,
)
