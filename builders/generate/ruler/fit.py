"""A RULER row's haystack fitted to its budget: the most units whose prompt fits, one more never does.

RULER searches the haystack size once per config in steps of 25 lines or 500 words and keeps it for every
sample (shrinking a sample that overflows), so its rows fill 86-99.8 % of the budget. Here every row is fitted
on its own with ``generate/budget.py:fit_units`` and exact counts, and the search only stops once one unit more
was measured and did not fit (``unit_cost`` 0: the estimate never stops it early). A length RULER's rules
cannot fill is one error naming the config and the shortest length that can.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from ...base.text import plural
from ...spec.configs import ConfigSpec
from ..budget import BudgetError, Fit, fit_units

T = TypeVar("T")
MAX_DOUBLINGS = 8  # an estimate that far off is a bug, not a text


def fit_tight(spec: ConfigSpec, reserve: int, estimate: Callable[[int], int], measure: Callable[[int], tuple[int, T]],
              k_min: int, k_max: int, unit: str, limit: int | None = None) -> Fit[T]:
    """The largest haystack of at least ``k_min`` units whose prompt takes at most ``spec.length - reserve`` tokens,
    one unit more measured and over (``k_max``: a first upper bound, doubled while it still fits, never past
    ``limit``: the most units a finite source holds; ``unit``: a unit's name, singular)."""
    budget = spec.length - reserve
    k_max = k_max if limit is None else min(k_max, limit)
    for _ in range(MAX_DOUBLINGS):
        try:
            fit = fit_units(budget=budget, estimate=estimate, unit_cost=lambda k: 0, measure=measure,
                            k_min=k_min, k_max=k_max, what=spec.name)
        except BudgetError:
            tokens = measure(k_min)[0]
            raise BudgetError(
                f"config {spec.name!r}: {spec.length:,} tokens cannot hold this task by RULER's rules: with its smallest "
                f"haystack ({plural(k_min, unit)}) the prompt takes {tokens:,} tokens and the answer {reserve}; the "
                f"shortest length is {tokens + reserve:,}") from None
        if fit.units < k_max or k_max == limit:
            return fit
        k_max = 2 * k_max if limit is None else min(2 * k_max, limit)
    raise BudgetError(f"config {spec.name!r}: the haystack estimate never reached the budget ({plural(k_max, unit)})")
