"""What an lm-eval run asks of a ONERULER task's scoring: ``strict``, ``keep_think``, ``answer_tag`` as the
``oneruler score`` flags (where its rows come from: ``taskrows/source.py:row_source``, shared with Inspect).
"""

from __future__ import annotations

from typing import Any

from ..base.errors import OneRulerError
from ..report.score.options import ScoringOptions
from ..taskrows.source import LMEVAL_METADATA

BOOL_KEYS = ("strict", "keep_think", "answer_tag")


def scoring_options(meta: dict[str, Any]) -> ScoringOptions:
    """The scoring options (paper mode, think blocks stripped, unless the metadata says otherwise)."""
    flags = {}
    for key in BOOL_KEYS:
        value = meta.get(key, False)
        if not isinstance(value, bool):
            raise OneRulerError(f"{LMEVAL_METADATA}: {key!r} must be true or false, got {value!r}")
        flags[key] = value
    return ScoringOptions(strict=flags["strict"], strip_think=not flags["keep_think"], answer_tag=flags["answer_tag"])
