"""The cluster bootstrap (builders/report/stats/bootstrap.py): deterministic, resamples example indices, vectorised."""

from __future__ import annotations

import numpy as np
import pytest

from builders.report.stats.bootstrap import RESAMPLES, ClusterBootstrap
from builders.report.stats.closed_form import wilson


def _pooled_interval(indices, passed, seed=None):
    kwargs = {} if seed is None else {"seed": seed}
    boot = ClusterBootstrap(np.array(indices), **kwargs)
    passed = np.array(passed, dtype=float)
    sums = boot.sums(np.zeros(len(passed), dtype=np.int64), 1, passed, np.ones_like(passed))
    return boot.intervals(sums)[0]


def test_resamples_draw_every_index_as_often_as_there_are_indices():
    boot = ClusterBootstrap(np.repeat(np.arange(50), 3))
    assert boot.weights.shape == (RESAMPLES, 50) and RESAMPLES >= 2000
    assert (boot.weights.sum(axis=1) == 50).all()
    assert 0.6 < (boot.weights > 0).mean() < 0.66  # 1 - (1 - 1/50)^50 = 0.636 of the indices drawn per resample


def test_same_inputs_same_intervals_whatever_the_row_order():
    rng = np.random.default_rng(5)
    indices = np.tile(np.arange(40), 5)
    passed = rng.random(200) < 0.7
    first = _pooled_interval(indices, passed)
    order = rng.permutation(200)
    again = _pooled_interval(indices[order], passed[order])
    assert first.as_list() == again.as_list()
    assert _pooled_interval(indices, passed, seed=1).as_list() != first.as_list()  # the seed is what fixes them


def test_rows_sharing_an_index_are_one_cluster():
    """26 languages that pass or fail together on each index carry the information of one language: the interval
    must not shrink by sqrt(26) as it would if the rows were independent."""
    outcome = np.random.default_rng(3).random(50) < 0.6
    one = _pooled_interval(np.arange(50), outcome)
    languages = _pooled_interval(np.tile(np.arange(50), 26), np.tile(outcome, 26))
    assert languages.width == pytest.approx(one.width, rel=0.02)
    naive = wilson(int(np.tile(outcome, 26).sum()), 26 * 50)
    assert languages.width > 3 * naive.width


def test_interval_of_a_known_proportion_has_the_right_width():
    # 50 independent rows at 60 %: the bootstrap percentile interval is close to Wilson's (about +-13.5 points)
    outcome = np.arange(50) % 5 < 3
    interval = _pooled_interval(np.arange(50), outcome)
    assert interval.low < 0.6 < interval.high
    assert interval.width == pytest.approx(wilson(30, 50).width, abs=0.03)


def test_a_pool_without_spread_gets_wilson_for_its_distinct_indices():
    # every counted row passed: no bootstrap spread; 10 indices in 3 languages -> Wilson 10/10, not 30/30
    interval = _pooled_interval(np.tile(np.arange(10), 3), np.ones(30))
    assert interval.as_list() == wilson(10, 10).as_list()


def test_a_pool_whose_indices_all_fare_alike_is_as_uncertain_as_its_indices():
    # one index, two needles, one found: every resample draws that index, so the resampled accuracy is always 50 %;
    # the pool is one independent example, not a sure 50 %: Wilson for half of one example
    interval = _pooled_interval([7, 7], [1.0, 0.0])
    assert interval.as_list() == wilson(0.5, 1).as_list() and interval.width > 0.8
    # three indices each half found: again no spread, Wilson at 50 % of three examples
    assert _pooled_interval([1, 1, 2, 2, 3, 3], [1, 0, 0, 1, 1, 0]).as_list() == wilson(1.5, 3).as_list()


def test_many_pools_at_once_and_rows_in_no_pool():
    indices = np.tile(np.arange(50), 4)
    boot = ClusterBootstrap(indices)
    passed = np.r_[np.ones(50), np.zeros(50), (np.arange(50) % 2 == 0), (np.arange(50) % 4 == 0)].astype(float)
    pool = np.repeat([0, 1, 2, -1], 50)  # the last 50 rows belong to no pool
    intervals = boot.intervals(boot.sums(pool, 3, passed, np.ones(200)))
    assert intervals[0].as_list() == wilson(50, 50).as_list() and intervals[1].as_list() == wilson(0, 50).as_list()
    assert intervals[2].low < 0.5 < intervals[2].high
    counted_nothing = boot.sums(pool, 3, np.zeros(200), np.zeros(200))
    assert boot.intervals(counted_nothing) == [None, None, None]


def test_paired_difference_resamples_both_models_together():
    indices = np.arange(60)
    a = (np.arange(60) % 3 != 0).astype(float)  # 40 of 60
    b = a.copy()
    b[:12] = 0.0  # B also fails 8 rows A passes (rows 1, 2, 4, 5, 7, 8, 10, 11)
    boot = ClusterBootstrap(indices)
    sums = boot.sums(np.zeros(60, dtype=np.int64), 1, a, np.ones(60), passed_b=b)
    diffs = boot.difference(sums)[:, 0]
    assert (diffs >= 0).all()  # paired: B never passes where A fails, so no resample can favour B
    assert diffs.mean() == pytest.approx(8 / 60, abs=0.01)
