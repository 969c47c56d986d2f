"""The exact cluster sign-flip test of a paired difference (docs/scoring.md, "Paired comparison").

Two models scored the same rows; rows that share an example ``index`` are not independent, so the
unit of the test is the index (the cluster), as in the cluster bootstrap. Per cluster i, ``D_i`` is
the number of its rows only model A passed minus those only B passed; the statistic is ``T = Σ D_i``
(the paired difference in passes). Under "no difference" the two models' outcomes are exchangeable
within a cluster, so each ``D_i`` is as likely to have either sign: the null distribution of ``T``
is that of ``Σ ±|D_i|`` over all ``2^n`` sign vectors, computed here exactly (a convolution over
the clusters, no resampling), and the two-sided p is ``P(|T| ≥ |T_obs|)``.

This is the paired permutation test (Fisher 1935, Pitman 1937) with the cluster as its unit; ``T``
is the numerator of the clustered McNemar statistic of Durkalski et al. (2003), and with one row
per cluster (one config) the test is exactly McNemar's exact test. With ``n`` clusters that differ
the smallest possible p is ``2^(1-n)``: one example index flipped across every config is one
cluster, p = 1.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

MAX_SCALE = 1_000  # graded scores finer than a thousandth are tested on their nearest thousandth


def sign_flip_p(differences: np.ndarray) -> float:
    """Two-sided exact p of the sign-flip test of per-cluster paired differences (integers: passes of A − passes of B)."""
    values = np.rint(np.asarray(differences, dtype=np.float64)).astype(np.int64)
    observed = abs(int(values.sum()))
    if observed == 0:
        return 1.0
    sizes = np.abs(values[values != 0])
    total = int(sizes.sum())
    pmf = np.zeros(2 * total + 1)  # P(T = t) at position t + total
    pmf[total] = 1.0
    reach = 0  # the support so far is [-reach, reach]: only that slice is shifted
    for size in sizes.tolist():
        low, high = total - reach, total + reach + 1
        part = pmf[low:high].copy()
        pmf[low:high] = 0.0
        pmf[low - size:high - size] += 0.5 * part
        pmf[low + size:high + size] += 0.5 * part
        reach += size
    outcomes = np.abs(np.arange(-total, total + 1))
    return min(1.0, float(pmf[outcomes >= observed].sum()))


def score_scale(scores: np.ndarray) -> int:
    """The unit that makes every score a whole number: 1 for passes (0/1), the least common multiple of graded
    credits' denominators (``k / n``, n ≤ ``MAX_SCALE``), at most ``MAX_SCALE``."""
    scale = 1
    for value in np.unique(np.asarray(scores, dtype=np.float64)).tolist():
        scale = math.lcm(scale, Fraction(value).limit_denominator(MAX_SCALE).denominator)
        if scale > MAX_SCALE:
            return MAX_SCALE
    return scale


def sign_flip_p_values(differences: np.ndarray) -> list[float]:
    """``sign_flip_p`` of each row of a cells × clusters matrix of paired differences."""
    return [sign_flip_p(row) for row in np.atleast_2d(differences)]


def smallest_p(clusters: int) -> float:
    """The smallest two-sided p the test can give with this many clusters (all differing, one sign): 2^(1-n)."""
    return 1.0 if clusters <= 1 else float(2.0 ** (1 - clusters))
