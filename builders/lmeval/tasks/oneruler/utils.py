"""The functions the ONERULER task YAMLs name with ``!function utils.…`` (lm-eval loads this file by path).

Kept thin: rows come from ``builders.taskrows`` (shared with the Inspect task), scoring from ``builders.lmeval.metric``.
"""

from __future__ import annotations

import logging

from builders.lmeval.metric import SCORING_COLUMN, counted_mean, options_json, score_doc
from builders.lmeval.options import scoring_options
from builders.taskrows.loaded import task_rows
from builders.taskrows.source import row_source

logger = logging.getLogger("lm_eval.tasks.oneruler")


def custom_dataset(oneruler_config: str, **metadata) -> dict:
    """``{"test": rows}`` of one task: from ``dataset`` / ``$ONERULER_DATASET`` or generated on the fly."""
    source = row_source(metadata)
    options = options_json(scoring_options(metadata))
    logger.info("oneruler %s: %s", oneruler_config, source.describe())
    rows = task_rows(oneruler_config, source)
    return {"test": rows.add_column(SCORING_COLUMN, [options] * len(rows))}


def process_results(doc: dict, results: list) -> dict:
    """``{"acc": 1.0 | 0.0 | None}`` for one row (a RULER task's row: its credit, 0–1; None: left out of the accuracy,
    as the paper does)."""
    return {"acc": score_doc(doc, results[0] if results else None)}


def accuracy(values: list) -> float:
    """lm-eval's aggregation of ``acc``: passed / counted (RULER's tasks: the mean credit of the counted rows)."""
    return counted_mean(values)
