"""A RULER row's haystack fitted to its budget (generate/ruler/fit.py): the most units that fit, one more never."""

from __future__ import annotations

import pytest

from builders.generate.budget import BudgetError
from builders.generate.ruler.fit import fit_tight
from builders.spec.configs import ConfigSpec


def test_one_unit_more_never_fits_even_when_the_estimate_is_off():
    spec = ConfigSpec("en", "ruler_vt", 1000)
    exact = [0, *[10 + (k % 7) for k in range(1, 400)]]
    totals = [sum(exact[:k + 1]) for k in range(400)]
    for bias in (-3, 0, 5):
        fit = fit_tight(spec, 30, lambda k: totals[k] + bias * k, lambda k: (totals[k], k), 1, 20, "unit")
        assert totals[fit.units] <= 970 < totals[fit.units + 1] and fit.payload == fit.units


def test_too_short_names_the_shortest_length():
    spec = ConfigSpec("en", "ruler_vt", 1000)
    with pytest.raises(BudgetError, match=r"^config 'en_ruler_vt_1k': 1,000 tokens cannot hold this task by "
                                          r"RULER's rules: with its smallest haystack \(5 units\) the prompt takes "
                                          r"1,200 tokens and the answer 30; the shortest length is 1,230$"):
        fit_tight(spec, 30, lambda k: 1000 + 40 * k, lambda k: (1000 + 40 * k, None), 5, 50, "unit")
