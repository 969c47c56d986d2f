"""Scoring layer: the paper's metric, standard library only (``builders.scoring.core``)."""

from .core import (  # noqa: F401
    CATEGORIES,
    CWE_TASKS,
    MISSING_POLICIES,
    NIAH_TASKS,
    NONE_TASKS,
    NONE_WORDS,
    NUMBER_TASKS,
    TASK_IDS,
    TRUNCATION_POLICIES,
    ExampleScore,
    as_text,
    clean,
    extract_answer,
    mentions_none,
    none_words,
    normalize,
    score_example,
    split_reasoning,
    summarize,
)
