"""The queried needles of a scored row: where each sits and whether the answer retrieved it (docs/scoring.md,
"Accuracy by depth"); ``views/depth.py`` pools them into depth bins.

Each counted NIAH row with needles yields one ``NeedleHit`` per *queried* needle: s_niah,
s_niah_nonone and mk_niah the row's pass at the queried needle; mq_niah, mv_niah and
``mv{K}[e]_niah`` each queried value separately, retrieved when it appears in the answer
(Counting-Stars' per-value recall). Each hit carries the needle's depth in both units the dataset
records (docs/generation.md, "Depth in tokens"): in sentences, where the needle really landed
(``actual_depth``) when recorded, else the nominal depth (``depth``); in tokens, ``token_depth``
(None in exports built before it was recorded). none_niah and CWE have no queried needle.
"""

from __future__ import annotations

from typing import Any, Callable, Literal, NamedTuple, Sequence

from ...base.errors import OneRulerError, named_setting
from ... import scoring

DepthUnit = Literal["tokens", "sentences"]
DEPTH_UNITS: tuple[DepthUnit, ...] = ("tokens", "sentences")


class NeedleHit(NamedTuple):
    """One queried needle of a scored row: its depth in sentence units (percent), whether the answer retrieved
    it, and its depth in percent of the haystack's tokens (None: not recorded)."""

    depth: float
    retrieved: bool
    token_depth: float | None = None

    def at(self, unit: DepthUnit) -> float:
        """The depth in ``unit`` (tokens: ``token_depth``, which must be recorded)."""
        return self.depth if unit == "sentences" else float(self.token_depth)


def needle_depth(needle: dict[str, Any]) -> float:
    """Where a needle sits in sentence units, percent of the haystack: ``actual_depth`` when recorded, else ``depth``."""
    actual = needle.get("actual_depth")
    return float(actual if actual is not None else needle["depth"])


def _hit(needle: dict[str, Any], retrieved: bool) -> NeedleHit:
    tokens = needle.get("token_depth")
    return NeedleHit(needle_depth(needle), bool(retrieved), None if tokens is None else float(tokens))


def needle_hits(row: dict[str, Any], score: scoring.ExampleScore, rule: scoring.Rule,
                answer_text: Callable[[], str | None]) -> tuple[NeedleHit, ...]:
    """One hit per queried needle of a counted row with needles whose rule tells values apart (``Rule.found``:
    the number-NIAH tasks); () for every other row.

    ``answer_text`` gives the scored text (None: not scored as text); it is called only for rows with
    several gold values, where each value is looked for separately.
    """
    needles = row.get("needles")
    if not score.counted or not needles or rule.found is None:
        return ()
    gold = {str(value) for value in row["answers"]}
    queried = [n for n in needles if str(n["value"]) in gold]
    if len(gold) == 1:
        return tuple(_hit(n, score.passed) for n in queried)
    if score.recall in (0.0, 1.0):  # recall is the share of gold values found: all or none, no need to look
        return tuple(_hit(n, score.recall == 1.0) for n in queried)
    text = answer_text()
    found = rule.found(text, [n["value"] for n in queried]) if text else [False] * len(queried)
    return tuple(_hit(n, hit) for n, hit in zip(queried, found))


def depth_unit_of(hits: Sequence[tuple[str, NeedleHit]], requested: DepthUnit | None) -> DepthUnit:
    """The unit the depth view bins by: ``requested``, or (None) tokens when every hit records its token depth and
    sentences otherwise. ``hits``: (config, hit) pairs. Tokens requested where a needle lacks them is an error."""
    lacking = next((config for config, hit in hits if hit.token_depth is None), None)
    if requested is not None:
        if requested == "tokens" and lacking is not None:
            raise OneRulerError(f"config {lacking!r} records no token depth of its needles (built before "
                                f"needles[].token_depth, issue 27): rebuild it, or pass {named_setting('depth_unit')} "
                                f"sentences for the depth view in sentence units")
        return requested
    return "sentences" if lacking is not None else "tokens"
