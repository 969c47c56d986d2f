"""The budget search on tiny synthetic inputs: a pure function of callables."""

from __future__ import annotations

from itertools import accumulate

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders.generate.budget import BudgetError, fit_units, last_true


def search(costs: list[int], budget: int, joins, k_min: int = 0):
    """Fit with exact counts = unit costs + a join effect joins(k); returns (fit, measured ks)."""
    prefix = [0, *accumulate(costs)]
    measured = []

    def measure(k):
        measured.append(k)
        return prefix[k] + joins(k), f"payload-{k}"

    fit = fit_units(budget=budget, estimate=lambda k: prefix[k], unit_cost=lambda k: costs[k] if k < len(costs) else 0,
                    measure=measure, k_min=k_min, k_max=len(costs), what="toy")
    return fit, measured, measure


def test_last_true_finds_the_boundary_of_a_monotone_predicate():
    assert last_true(0, 10, lambda x: x <= 6) == 6
    assert last_true(0, 10, lambda x: True) == 10
    assert last_true(3, 10, lambda x: False) == 2  # lo - 1 when nothing holds


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=200), st.integers(0, 3000),
       st.lists(st.integers(0, 3), min_size=201, max_size=201))
def test_additive_or_growing_joins_give_the_largest_fitting_count(costs, budget, extra):
    # joins that only add tokens (monotone): the answer is the largest k whose exact count fits
    growth = [0, *accumulate(extra)]
    fit, _, measure = search(costs, budget, lambda k: growth[k])
    assert fit.tokens == measure(fit.units)[0] <= budget and fit.payload == f"payload-{fit.units}"
    assert fit.units == len(costs) or measure(fit.units + 1)[0] > budget


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(2, 40), min_size=1, max_size=200), st.integers(0, 3000), st.data())
def test_merging_joins_keep_the_documented_guarantee(costs, budget, data):
    # joins that merge tokens (zh/ja): counts fall below the estimate by up to one token per unit
    merges = [0] + [data.draw(st.integers(0, 1)) for _ in costs]
    saved = list(accumulate(merges))
    fit, measured, _ = search(costs, budget, lambda k: -saved[k])
    assert fit.tokens <= budget
    slack = budget - fit.tokens
    assert fit.units == len(costs) or slack < costs[fit.units] or fit.units + 1 in measured
    assert len(measured) <= 2 + len(costs).bit_length() * 2  # a handful of exact counts, not one per unit


def test_a_budget_below_the_fixed_parts_is_a_clear_error():
    with pytest.raises(BudgetError, match="toy: the budget of 5 tokens is too small: even 2 units take 7 tokens"):
        search([3, 4, 5], 5, lambda k: 0, k_min=2)


def test_one_exact_count_when_the_estimate_is_exact():
    costs = [5] * 100
    fit, measured, _ = search(costs, 333, lambda k: 0)
    assert (fit.units, fit.tokens) == (66, 330) and measured == [66]
