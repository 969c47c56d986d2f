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


def test_a_finite_source_caps_the_haystack_and_a_large_first_bound_needs_no_doubling():
    spec = ConfigSpec("en", "ruler_qa_xquad", 4096)
    capped = fit_tight(spec, 50, lambda k: 10 * k, lambda k: (10 * k, None), 1, 100, "document", limit=240)
    assert capped.units == 240  # the whole source, short of the budget: no unit beyond it
    free = fit_tight(spec, 50, lambda k: 10 * k, lambda k: (10 * k + (k % 3), None), 1, 100, "word")
    assert free.tokens <= 4046 < 10 * (free.units + 1) + (free.units + 1) % 3  # grown past the first bound
    wide = fit_tight(spec, 50, lambda k: 10 * k, lambda k: (10 * k + (k % 3), None), 1, 10_000, "word")
    assert wide.units == free.units
