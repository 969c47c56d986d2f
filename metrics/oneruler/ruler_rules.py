"""RULER's metric (Hsieh et al., 2024; ``scripts/eval/synthetic/constants.py`` of NVIDIA/RULER): partial credit
by case-insensitive substring, ``string_match_all`` (NIAH, VT, CWE, FWE) and ``string_match_part`` (QA).

RULER first cleans an output (``postprocess_pred`` of its ``eval/evaluate.py``: strip, every control character
U+0000–U+001F turned into a newline, strip again), then, per row, ``string_match_all`` is the share of the
references found in it (``r.lower() in pred.lower()``) and ``string_match_part`` is 1 when any one is;
a task's score is the mean over its rows. Here each is a rule of the scoring package: its partial credit is
the row's ``recall`` and the rule is ``graded`` (the row's score is that credit, not pass/fail); ``passed`` is
True when the credit is whole. RULER scores every output as written — it generates up to its
``tokens_to_generate`` and reads what came — so a length-cut answer is scored as written under the default
truncation policy (``cut_scored``), and a null one counts 0 (RULER has no "no response"). Strict mode
(opt-in, not RULER's) matches each reference as a whole token.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable, Sequence

from .answer_text import TokenTerm, token_pattern, token_search

_CONTROL = re.compile(r"[\x00-\x1f]")


def ruler_postprocess(text: str) -> str:
    """RULER's ``postprocess_pred``: strip, control characters to newlines, strip."""
    return _CONTROL.sub("\n", text.strip()).strip()


@functools.lru_cache(maxsize=4096)
def _reference_pattern(reference: str) -> TokenTerm:
    return token_pattern([reference])


def references_found(text: str, answers: Sequence[str], strict: bool = False) -> list[bool]:
    """Per reference, whether RULER's rule finds it in an output: a lower-cased substring of the lower-cased,
    cleaned output (strict: as a whole token)."""
    pred = ruler_postprocess(text).lower()
    refs = [str(a).lower() for a in answers]
    if not strict:
        return [r in pred for r in refs]
    return [token_search(_reference_pattern(r), pred) if r else True for r in refs]


def _category(text: str, hits: int, total: int) -> str:
    if hits == total:
        return "correct"
    if not ruler_postprocess(text):
        return "no_answer"
    return "partial" if hits else "wrong"


def score_match_all(text: str, answers: Sequence[str], language: str | None, needles: Iterable[Any] | None,
                    strict: bool) -> tuple[bool, float, str]:
    """RULER's ``string_match_all``: credit = share of the references found; passed when all are."""
    if not answers:
        raise ValueError("a RULER string_match_all task needs its references")
    found = references_found(text, answers, strict)
    hits = sum(found)
    return hits == len(found), hits / len(found), _category(text, hits, len(found))


def score_match_part(text: str, answers: Sequence[str], language: str | None, needles: Iterable[Any] | None,
                     strict: bool) -> tuple[bool, float, str]:
    """RULER's ``string_match_part``: credit 1 when any reference is found (QA: any of the gold answers)."""
    if not answers:
        raise ValueError("a RULER string_match_part task needs its references")
    hit = any(references_found(text, answers, strict))
    return hit, float(hit), _category(text, len(answers) if hit else 0, len(answers))


def found_references(text: str, answers: Sequence[Any]) -> list[bool]:
    """Per reference, whether an output holds it (RULER's rule): each queried needle retrieved or not."""
    return references_found(text, [str(a) for a in answers])
