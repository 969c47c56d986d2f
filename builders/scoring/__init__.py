"""The scoring package: the paper's metric (SPEC §5), standard library only and self-contained.

Paper mode (the default) reproduces upstream ``eval/evaluate.py`` exactly; strict mode (opt-in) matches
none words and CWE words as whole tokens (docs/scoring.md). Each rule is a function chosen by name
(``rule_registry.RULES``: ``numbers``, ``none``, ``words``, RULER's graded ``string_match_all`` and
``string_match_part``); a task family's record in ``spec/`` names the rule of its tasks. Every module here is copied byte for byte into the ``evaluate`` metric folder
(metrics/oneruler/, ``builders/export/metric.py``), so lm-eval, Inspect, ``score`` and the metric all
call the same functions. Modules import only the standard library and each other, relatively.
"""

from .answer_text import as_text, clean, extract_answer, normalize, split_reasoning
from .digit_runs import values_found
from .example_score import (CATEGORIES, MISSING_POLICIES, TRUNCATION_POLICIES, ExampleScore, MissingPolicy,
                            ScoreStatus, TruncationPolicy, check_policies, mean_score, score_example, summarize)
from .none_words import NONE_WORDS, mentions_none, none_words
from .rule_registry import RULES, Rule, get_rule, register_rule

__all__ = [
    "CATEGORIES", "MISSING_POLICIES", "NONE_WORDS", "RULES", "TRUNCATION_POLICIES", "ExampleScore", "MissingPolicy",
    "Rule", "ScoreStatus", "TruncationPolicy", "as_text", "check_policies", "clean", "extract_answer", "get_rule",
    "mean_score", "mentions_none", "none_words", "normalize", "register_rule", "score_example", "split_reasoning",
    "summarize", "values_found",
]
