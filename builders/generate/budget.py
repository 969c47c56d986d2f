"""Fit the most filling units (sentences, words) under a token budget with few exact tokenisations.

Per-unit token costs are summed into a monotone estimate; bisection over it gives a first guess;
each guess is assembled and tokenised exactly once, and a bracket [largest fitting, smallest
overflowing] shrinks until adding one more unit would not fit. Tokenisers are not additive at the
joins, so the estimate only steers; the exact count decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

from ..base.errors import OneRulerError

T = TypeVar("T")


class BudgetError(OneRulerError):
    """The fixed parts of an example alone exceed the budget."""


@dataclass(frozen=True)
class Fit(Generic[T]):
    """The result of a fit: how many units, their exact token count, and what was measured."""

    units: int
    tokens: int
    payload: T


def last_true(lo: int, hi: int, pred: Callable[[int], bool]) -> int:
    """Largest k in [lo, hi] with pred(k), assuming pred is monotone (True then False); lo-1 if none."""
    ans = lo - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if pred(mid):
            ans, lo = mid, mid + 1
        else:
            hi = mid - 1
    return ans


def fit_units(
    *,
    budget: int,
    estimate: Callable[[int], int],
    unit_cost: Callable[[int], int],
    measure: Callable[[int], tuple[int, T]],
    k_min: int,
    k_max: int,
    what: str,
) -> Fit[T]:
    """Largest k in [k_min, k_max] whose exact token count fits ``budget``, tight to one unit.

    On return either k == k_max, or ``budget - tokens < unit_cost(k)`` (the next unit's own cost),
    or k+1 units were measured and did not fit.
    """
    k = max(k_min, last_true(k_min, k_max, lambda x: estimate(x) <= budget))
    best: Fit[T] | None = None
    hi_bad = k_max + 1
    while True:
        tokens, payload = measure(k)
        if tokens <= budget:
            best = Fit(k, tokens, payload)
            slack = budget - tokens
            if k >= k_max or k + 1 >= hi_bad or slack < unit_cost(k):
                return best
            base = estimate(k)
            nxt = last_true(k + 1, hi_bad - 1, lambda x: estimate(x) - base <= slack)
            k = max(k + 1, nxt)
        else:
            hi_bad = k
            floor = best.units if best is not None else k_min - 1
            if k <= k_min:
                raise BudgetError(
                    f"{what}: the budget of {budget} tokens is too small: even {k_min} units take {tokens} tokens"
                )
            if best is not None and best.units + 1 >= hi_bad:
                return best
            over = tokens - budget
            base = estimate(k)
            # fewest units to drop so that the estimate falls by at least the overshoot
            cand = last_true(floor + 1, k - 1, lambda x: base - estimate(x) >= over)
            k = cand if cand > floor else floor + 1
            k = min(k, hi_bad - 1)
