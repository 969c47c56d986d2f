"""The queried needles of a scored row: where each sits (depth %) and whether the answer retrieved it
(docs/scoring.md, "Accuracy by depth"); ``views/depth.py`` pools them into depth bins.

Each counted NIAH row with needles yields one ``(depth %, retrieved)`` per *queried* needle: s_niah,
s_niah_nonone and mk_niah the row's pass at the queried needle's depth; mq_niah, mv_niah and
``mv{K}[e]_niah`` each queried value separately, retrieved when it appears in the answer
(Counting-Stars' per-value recall). The depth is where the needle really landed (``actual_depth``)
when the dataset records it, else the nominal grid depth (``depth``). none_niah and CWE have no
queried needle.
"""

from __future__ import annotations

from typing import Any, Callable

from ...scoring import core as scoring


def needle_depth(needle: dict[str, Any]) -> float:
    """Where a needle sits, in percent of the haystack: ``actual_depth`` when recorded, else ``depth``."""
    actual = needle.get("actual_depth")
    return float(actual if actual is not None else needle["depth"])


def needle_hits(row: dict[str, Any], score: scoring.ExampleScore,
                answer_text: Callable[[], str | None]) -> tuple[tuple[float, bool], ...]:
    """(depth, retrieved) per queried needle of a counted number-NIAH row; () for every other row.

    ``answer_text`` gives the scored text (None: not scored as text); it is called only for rows with
    several gold values, where each value is looked for separately.
    """
    needles = row.get("needles")
    if not score.counted or not needles or scoring.task_kind(row["task"]) != "number":
        return ()
    gold = {str(value) for value in row["answers"]}
    queried = [n for n in needles if str(n["value"]) in gold]
    if len(gold) == 1:
        return tuple((needle_depth(n), score.passed) for n in queried)
    if score.recall in (0.0, 1.0):  # recall is the share of gold values found: all or none, no need to look
        return tuple((needle_depth(n), score.recall == 1.0) for n in queried)
    text = answer_text()
    found = scoring.values_found(text, [n["value"] for n in queried]) if text else [False] * len(queried)
    return tuple((needle_depth(n), hit) for n, hit in zip(queried, found))
