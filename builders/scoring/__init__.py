"""Scoring layer: the paper's metric, standard library only (``builders.scoring.core``)."""

from .core import (  # noqa: F401
    CATEGORIES,
    CWE_TASKS,
    NIAH_TASKS,
    NONE_TASKS,
    NONE_WORDS,
    NUMBER_TASKS,
    TASK_IDS,
    TRUNCATION_POLICIES,
    ExampleScore,
    as_text,
    clean,
    mentions_none,
    none_words,
    normalize,
    score_example,
    summarize,
)
