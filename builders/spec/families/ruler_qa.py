"""RULER's question-answering family (RULER §3.4): ``ruler_qa_1`` (SQuAD v2.0 dev), ``ruler_qa_2`` (HotpotQA dev
distractor), English, and ``ruler_qa_xquad`` (RULER's QA rule over XQuAD's native paragraphs and questions in the
XQuAD languages that are ONERULER languages, with RULER's English instructions: ``de-en_ruler_qa_xquad_8192``):
the gold paragraphs among distracting ones; scored by RULER's ``string_match_part``. ``needles`` record where the
gold documents sit."""

from __future__ import annotations

from functools import partial

from ..family import LanguageRule, PoolFields, RowField
from .ruler import ENGLISH_ONLY, RulerTask, ruler_family

QA_RESERVE = 32  # RULER's tokens_to_generate for qa
# XQuAD's languages that are ONERULER languages, and English (XQuAD has 12: ar, el, ro, th, tr are not ONERULER's).
XQUAD_LANGUAGES: tuple[str, ...] = ("de", "es", "hi", "ru", "vi", "zh", "en")
XQUAD_RULE = LanguageRule(XQUAD_LANGUAGES, ("en",),
                          "XQuAD's languages that are ONERULER's; RULER's English instructions", translated="qa")


def qa_lines(row: dict) -> list[str]:
    """``show``'s line about a QA row: the documents against the source's, an exhausted pool."""
    return [f"documents: {row['num_units']:,} of a source of {row['qa_pool_size']:,}"
            + ("; POOL EXHAUSTED before the budget" if row["qa_pool_exhausted"] else "")]


_task = partial(RulerTask, "ruler_qa", reserve=QA_RESERVE, scoring_rule="string_match_part")
TASKS: tuple[RulerTask, ...] = (
    _task("ruler_qa_1", "qa_1", "RULER QA 1 (SQuAD)", "SQuAD v2.0 dev paragraphs, answerable questions",
          "gold paragraph(s)", "any of the question's answers"),
    _task("ruler_qa_2", "qa_2", "RULER QA 2 (HotpotQA)", "HotpotQA dev distractor documents", "gold documents",
          "any of the question's answers"),
    _task("ruler_qa_xquad", None, "RULER's QA over XQuAD", "XQuAD paragraphs and questions in the context language",
          "gold paragraph(s)", "any of the question's answers"),
)

RULER_QA = ruler_family(
    name="ruler_qa", label="RULER QA",
    summary="RULER's question answering: the gold paragraphs of a question among distracting ones (SQuAD, HotpotQA; "
            "XQuAD in its languages); the answer is any of the question's answers",
    unit="documents", reserve=QA_RESERVE,
    count_margin=0.1,
    needles=True, cross_lingual=True, scoring_rule="string_match_part", tasks=TASKS, languages=ENGLISH_ONLY,
    task_languages=(("ruler_qa_xquad", XQUAD_RULE),),
    task_upstreams=(("ruler_qa_1", ("ruler", "squad")), ("ruler_qa_2", ("ruler", "hotpotqa")),
                    ("ruler_qa_xquad", ("ruler", "xquad"))),
    more_fields=(RowField("qa_pool_size", "int32", "documents in the source the context draws from (XQuAD: the "
                                                    "language's 240 paragraphs)"),
                 RowField("qa_pool_exhausted", "bool", "True: every document of the source is in the context once and "
                                                         "the budget is not reached (XQuAD; see the shortfalls)")),
    more_lines=qa_lines, pool=PoolFields("qa_pool_size", "qa_pool_exhausted", "document pool", "documents"),
)
