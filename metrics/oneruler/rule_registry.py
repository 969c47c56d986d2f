"""The scoring rules by name: what a task family's record names (``spec/``) and the metric's task table maps to.

A rule is a function ``(text, answers, language, needles, strict) -> (passed, recall, category)`` with
facts about it: whether the paper leaves a row without an answer out of the accuracy
(``null_dropped``: NIAH) or counts it wrong (CWE), whether the instruction language decides what
passes (``needs_language``: the none words), how to tell which of several gold values an answer
holds (``found``: each queried needle retrieved or not, the report's accuracy by depth), whether a row's
score is its partial credit (``graded``: RULER's rules) and whether the default policy scores a length-cut
answer as written (``cut_scored``: RULER reads whatever its generation budget produced). A new rule is a new function and one ``Rule`` in
``RULES`` (or ``register_rule`` from outside the package); nothing here branches on a task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from .digit_runs import values_found
from .niah_rules import score_numbers, score_none
from .ruler_rules import found_references, score_match_all, score_match_part
from .word_rules import score_words

# (text, answers, instruction language or None, the row's needles or None, strict) -> (passed, recall, category)
RuleFunction = Callable[[str, Sequence[str], Any, Iterable[Any] | None, bool], tuple[bool, float, str]]
# (answer text, gold values) -> per value, whether the answer holds it
ValuesFound = Callable[[str, Sequence[Any]], list[bool]]


@dataclass(frozen=True)
class Rule:
    """A scoring rule: its name, its function, and how it treats rows without an answer and languages."""

    name: str
    score: RuleFunction
    null_dropped: bool  # paper policy: a null (or, truncation "paper", cut) answer leaves the accuracy; else wrong
    needs_language: bool  # the instruction language is required (it selects the none words)
    summary: str = ""  # one line for the metric card and the docs
    found: ValuesFound | None = None  # per gold value, whether an answer holds it (None: no per-needle hits)
    graded: bool = False  # the row's score is its partial credit (``recall``: RULER's), not pass/fail
    cut_scored: bool = False  # under the default truncation policy a length-cut answer is scored as written (RULER)


RULES: dict[str, Rule] = {rule.name: rule for rule in (
    Rule("numbers", score_numbers, null_dropped=True, needs_language=True,
         summary="no none word, and the numbers of two or more digits are exactly the gold values",
         found=values_found),
    Rule("none", score_none, null_dropped=True, needs_language=True,
         summary="the instruction language's none word (stray single digits allowed)"),
    Rule("words", score_words, null_dropped=False, needs_language=False,
         summary="every gold word, as a lower-cased substring"),
    Rule("string_match_all", score_match_all, null_dropped=False, needs_language=False,
         summary="RULER's string_match_all: the share of the references found, case-insensitive substrings",
         found=found_references, graded=True, cut_scored=True),
    Rule("string_match_part", score_match_part, null_dropped=False, needs_language=False,
         summary="RULER's string_match_part: 1 when any reference is found, case-insensitive substring",
         graded=True, cut_scored=True),
)}


def get_rule(name: str) -> Rule:
    """The rule called ``name``; ValueError naming the valid rules."""
    rule = RULES.get(name) if isinstance(name, str) else None
    if rule is None:
        raise ValueError(f"unknown scoring rule {name!r}; valid: {', '.join(RULES)}")
    return rule


def register_rule(rule: Rule) -> Rule:
    """Add a rule (a name already taken is a ValueError); returns it."""
    if rule.name in RULES:
        raise ValueError(f"scoring rule {rule.name!r} exists already")
    RULES[rule.name] = rule
    return rule
