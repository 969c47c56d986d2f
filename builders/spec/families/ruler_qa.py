"""RULER's question-answering family (RULER §3.4): ``ruler_qa_1`` (SQuAD v2.0 dev), ``ruler_qa_2`` (HotpotQA dev
distractor), English, and ``ruler_qa_xquad`` (RULER's QA rule over XQuAD's native paragraphs and questions in the
XQuAD languages that are ONERULER languages, with RULER's English instructions: ``de-en_ruler_qa_xquad_8192``):
the gold paragraphs among distracting ones; scored by RULER's ``string_match_part``. ``needles`` record where the
gold documents sit."""

from __future__ import annotations

from dataclasses import dataclass

from ..family import LanguageRule, TaskFamily
from .ruler import ANSWER_PREFIX, ENGLISH_ONLY, RulerTask, answer_prefix_line

QA_RESERVE = 32  # RULER's tokens_to_generate for qa
# XQuAD's languages that are ONERULER languages, and English (XQuAD has 12: ar, el, ro, th, tr are not ONERULER's).
XQUAD_LANGUAGES: tuple[str, ...] = ("de", "es", "hi", "ru", "vi", "zh", "en")
XQUAD_RULE = LanguageRule(XQUAD_LANGUAGES, ("en",),
                          "XQuAD's languages that are ONERULER's; RULER's English instructions", translated="qa")


@dataclass(frozen=True)
class RulerQaTask(RulerTask):
    """One of RULER's QA tasks."""

    @property
    def family(self) -> TaskFamily:
        """The RULER QA family."""
        return RULER_QA


TASKS: tuple[RulerQaTask, ...] = (
    RulerQaTask("ruler_qa_1", "qa_1", "RULER QA 1 (SQuAD)", "SQuAD v2.0 dev paragraphs, answerable questions",
                "gold paragraph(s)", "any of the question's answers", QA_RESERVE, "string_match_part"),
    RulerQaTask("ruler_qa_2", "qa_2", "RULER QA 2 (HotpotQA)", "HotpotQA dev distractor documents",
                "gold documents", "any of the question's answers", QA_RESERVE, "string_match_part"),
    RulerQaTask("ruler_qa_xquad", None, "RULER's QA over XQuAD", "XQuAD paragraphs and questions in the context "
                "language", "gold paragraph(s)", "any of the question's answers", QA_RESERVE, "string_match_part"),
)

RULER_QA = TaskFamily(
    name="ruler_qa", label="RULER QA",
    summary="RULER's question answering: the gold paragraphs of a question among distracting ones (SQuAD, HotpotQA; "
            "XQuAD in its languages); the answer is any of the question's answers",
    unit="documents", reserve=QA_RESERVE,
    count_margin=0.1,
    needles=True, cross_lingual=True, depth_sweeps=False, scoring_rule="string_match_part", tasks=TASKS,
    row_fields=(ANSWER_PREFIX,), show_lines=answer_prefix_line, languages=ENGLISH_ONLY,
    task_languages=(("ruler_qa_xquad", XQUAD_RULE),),
)
