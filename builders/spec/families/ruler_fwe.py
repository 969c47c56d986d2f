"""RULER's frequent-words-extraction family (RULER §3.3): ``ruler_fwe``, English only: coded words drawn from a
Zeta distribution (α = 2), the most frequent one shown as ``....`` noise; the answer is the three most frequent
coded words. Scored by RULER's ``string_match_all``."""

from __future__ import annotations

from dataclasses import dataclass

from ..family import TaskFamily
from .ruler import ANSWER_PREFIX, ENGLISH_ONLY, RulerTask, answer_prefix_line

FWE_RESERVE = 50  # RULER's tokens_to_generate for freq_words_extraction


@dataclass(frozen=True)
class RulerFweTask(RulerTask):
    """RULER's frequent-words-extraction task."""

    @property
    def family(self) -> TaskFamily:
        """The RULER FWE family."""
        return RULER_FWE


TASKS: tuple[RulerFweTask, ...] = (
    RulerFweTask("ruler_fwe", "fwe", "RULER FWE", "coded words, Zeta α = 2", "—", "the 3 most frequent coded words",
                 FWE_RESERVE, "string_match_all"),
)

RULER_FWE = TaskFamily(
    name="ruler_fwe", label="RULER FWE",
    summary="RULER's frequent words (English): coded words drawn from a Zeta distribution; the answer is the three "
            "most frequent",
    unit="coded words", reserve=FWE_RESERVE,
    count_margin=0.5,  # random letter strings: tokenizers differ most on them
    needles=False, cross_lingual=False, depth_sweeps=False, scoring_rule="string_match_all", tasks=TASKS,
    row_fields=(ANSWER_PREFIX,), show_lines=answer_prefix_line, languages=ENGLISH_ONLY,
)
