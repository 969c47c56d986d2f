"""RULER's retrieval family (RULER §3.1): its eight needle-in-a-haystack tasks ``ruler_niah_single_1`` …
``ruler_niah_multiquery``, English only, as RULER makes them (``generate/ruler/niah.py``): key-value needles in
a haystack of repeated noise sentences, Paul Graham's essays or distractor needles; scored by RULER's
``string_match_all``."""

from __future__ import annotations

from .ruler import ENGLISH_ONLY, ESSAY_UPSTREAMS, RulerTask, ruler_family

NIAH_RESERVE = 128  # RULER's tokens_to_generate for niah (constants.py)


def _task(ruler_name: str, paper_name: str, setup: str, needles: str, gold: str) -> RulerTask:
    return RulerTask("ruler_niah", f"ruler_{ruler_name}", ruler_name, paper_name, setup, needles, gold, NIAH_RESERVE,
                     "string_match_all")


# In RULER's order (synthetic.yaml); the setups say what its settings are (a test reads them from the file).
TASKS: tuple[RulerTask, ...] = (
    _task("niah_single_1", "RULER S-NIAH 1", "noise haystack; word key, number value", "1", "the value"),
    _task("niah_single_2", "RULER S-NIAH 2", "essay haystack; word key, number value", "1", "the value"),
    _task("niah_single_3", "RULER S-NIAH 3", "essay haystack; word key, UUID value", "1", "the value"),
    _task("niah_multikey_1", "RULER MK-NIAH 1", "essay haystack; word keys, number values; 1 of 4 keys queried",
          "4 keys × 1 value", "the queried key's value"),
    _task("niah_multikey_2", "RULER MK-NIAH 2", "distractor-needle haystack; word keys, number values",
          "1 + distractors", "the value"),
    _task("niah_multikey_3", "RULER MK-NIAH 3", "distractor-needle haystack; UUID keys, UUID values",
          "1 + distractors", "the value"),
    _task("niah_multivalue", "RULER MV-NIAH", "essay haystack; word key, number values", "1 key × 4 values",
          "all 4 values"),
    _task("niah_multiquery", "RULER MQ-NIAH", "essay haystack; word keys, number values; 4 keys queried",
          "4 keys × 1 value", "all 4 values"),
)

RULER_NIAH = ruler_family(
    name="ruler_niah", label="RULER NIAH",
    summary="RULER's retrieval tasks (English): key-value needles (words, 7-digit numbers, UUIDs) in repeated noise "
            "sentences, Paul Graham's essays or distractor needles; the answer is the queried values",
    unit="haystack units (noise lines, essay words or distractor needles, by the task's haystack)",
    reserve=NIAH_RESERVE,
    # UUIDs and 7-digit numbers cost tokenizers that split digits singly far more than cl100k
    count_margin=0.35,
    needles=True, cross_lingual=False, scoring_rule="string_match_all", tasks=TASKS, languages=ENGLISH_ONLY,
    task_upstreams=tuple((f"ruler_{name}", ESSAY_UPSTREAMS) for name in (
        "niah_single_2", "niah_single_3", "niah_multikey_1", "niah_multivalue", "niah_multiquery")),  # essay haystack
)
