"""What a schema change moves in the files two checkouts write, told apart from a difference.

0.3.0 keys scores.json's null and length-cut counts by task family: ``null_predictions`` and
``finish_reason_length`` held ``"niah": n, "cwe": m`` and hold ``"by_family": {"niah": n, "cwe": m}`` (the
families of the scored rows; a family without rows is not listed). ``moved(name, before, after)``
says whether two files differ only by that move, with the same counts; the benchmarks that compare
checkouts (``run_unchanged.py``, ``report_unchanged.py``) list such files as moved, not as differences.
"""

from __future__ import annotations

import json
from typing import Any

MOVED_KEYS = ("null_predictions", "finish_reason_length")


def _new_shape(value: dict[str, Any], families: set[str]) -> dict[str, Any]:
    """A count object of 0.2.0 (``niah``, ``cwe`` keys) as 0.3.0 writes it, for the families present."""
    if "by_family" in value:
        return value
    out = {k: v for k, v in value.items() if k not in ("niah", "cwe")}
    by_family = {f: value[f] for f in ("niah", "cwe") if f in families}
    return {"count": out.pop("count"), "by_family": by_family, **out} if "count" in out else {"by_family": by_family,
                                                                                              **out}


def moved(name: str, before: bytes, after: bytes) -> list[str]:
    """The keys of a scores.json that moved (and only moved: same counts, same order of everything else); [] when the
    files differ otherwise, or are no scores.json."""
    if not name.endswith("scores.json"):
        return []
    try:
        old, new = json.loads(before), json.loads(after)
    except ValueError:
        return []
    keys = [k for k in MOVED_KEYS if k in old and k in new and old[k] != new[k]]
    families = set(new.get("null_predictions", {}).get("by_family", {}))
    for key in keys:
        old[key] = _new_shape(old[key], families)
    return keys if keys and old == new and list(old) == list(new) else []
