"""Closed-form statistics of the report: Wilson intervals, the exact McNemar test, Benjamini–Hochberg
q-values and the sample-size arithmetic of two proportions (docs/scoring.md, "Uncertainty").

Standard library only (``math``, ``statistics.NormalDist``): each is a few lines with a textbook
formula, tested against published values and against ``scipy.stats`` (a test-only oracle), so the
package does not need SciPy at run time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

CONFIDENCE = 0.95
ALPHA = 0.05  # two-sided, for tests, q-values and sample sizes
POWER = 0.8
Z95 = NormalDist().inv_cdf(1 - (1 - CONFIDENCE) / 2)  # 1.959964...
_EXACT_LIMIT = 2_000  # up to this many discordant pairs, McNemar's p is summed in exact integers


@dataclass(frozen=True)
class Interval:
    """A 95 % confidence interval of an accuracy, as fractions (0–1) like the accuracy itself."""

    low: float
    high: float

    @property
    def width(self) -> float:
        """high − low."""
        return self.high - self.low

    def as_list(self, digits: int = 6) -> list[float]:
        """[low, high], rounded (for JSON: the same figures whatever the float noise)."""
        return [round(self.low, digits), round(self.high, digits)]


def wilson(passed: float, counted: int, z: float = Z95) -> Interval | None:
    """Wilson's score interval (Wilson 1927) for ``passed`` of ``counted`` (``passed`` may be a share of ``counted``
    examples, e.g. 0.5 of one); None when nothing is counted."""
    if counted <= 0:
        return None
    p = passed / counted
    z2 = z * z
    denominator = 1 + z2 / counted
    centre = (p + z2 / (2 * counted)) / denominator
    half = z * math.sqrt(p * (1 - p) / counted + z2 / (4 * counted * counted)) / denominator
    # at 0 and n the bound is exactly 0 or 1; clamp float noise elsewhere
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == counted else min(1.0, centre + half)
    return Interval(low, high)


def binomial_tail(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2): exact integers up to a few thousand trials, log-space beyond."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if n <= _EXACT_LIMIT:
        return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(k + 1)]
    top = max(logs)
    return math.exp(top + math.log(sum(math.exp(x - top) for x in logs)) - n * math.log(2))


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs (rows only A passed, rows only B passed).

    Under no difference each discordant pair is a fair coin: p = min(1, 2 P(X <= min(b, c))),
    X ~ Binomial(b + c, 1/2) (McNemar 1947; the exact binomial form). No discordant pair: p = 1.
    """
    n = a_only + b_only
    if n == 0:
        return 1.0
    return min(1.0, 2 * binomial_tail(min(a_only, b_only), n))


def bh_qvalues(p_values: list[float]) -> list[float]:
    """Benjamini–Hochberg (1995) adjusted p-values (q-values), in the order given.

    q_(i) = min over j >= i of p_(j) * m / j, capped at 1, for the p-values sorted ascending.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    q = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        q[i] = min(1.0, running)
    return q


def _z_sum(alpha: float, power: float) -> float:
    normal = NormalDist()
    return normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)


def detectable_difference(accuracy: float, n: int, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """The smallest gap (fraction) between two models with ``n`` examples each that a two-sided test at
    ``alpha`` finds with probability ``power``, the better one at ``accuracy`` (the inverse of
    ``examples_needed``: the other model's accuracy lies ``d`` towards 50 %, solved by fixed-point iteration)."""
    if n <= 0:
        return None
    z, d = _z_sum(alpha, power), 0.5
    for _ in range(100):
        other = accuracy - d if accuracy >= 0.5 else accuracy + d
        other = min(1.0, max(0.0, other))
        step = min(1.0, z * math.sqrt((accuracy * (1 - accuracy) + other * (1 - other)) / n))
        if abs(step - d) < 1e-9:
            break
        d = step
    return d


def detectable_from_error(standard_error: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest gap between two equally precise estimates, each with this standard error, that a two-sided
    test at ``alpha`` finds with probability ``power`` (z-test of a difference: SE of the gap = sqrt(2) SE)."""
    return min(1.0, _z_sum(alpha, power) * math.sqrt(2) * standard_error)


def examples_needed(accuracy: float, difference: float, alpha: float = ALPHA, power: float = POWER) -> int:
    """Examples per config (per model) to detect ``accuracy`` versus ``accuracy - difference`` (two proportions,
    normal approximation; Fleiss, Statistical Methods for Rates and Proportions, eq. 4.14 without correction)."""
    other = accuracy - difference
    variance = accuracy * (1 - accuracy) + other * (1 - other)
    return math.ceil(_z_sum(alpha, power) ** 2 * variance / difference ** 2)
