"""The closed-form statistics (builders/report/stats/closed_form.py) against published values, hand computations and
``scipy.stats`` (a test-only oracle: the package does not depend on SciPy)."""

from __future__ import annotations

import re
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from builders.report.stats.closed_form import (bh_qvalues, binomial_tail, detectable_difference, detectable_from_error,
                                   examples_needed, mcnemar_exact, wilson)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "scoring.md"


@pytest.mark.parametrize("passed, n, low, high", [
    # issue 17 (and any Wilson table): 25/50 -> 36.6-63.4 %, 45/50 -> 78.6-95.7 %
    (25, 50, 0.3664, 0.6336), (45, 50, 0.7864, 0.9565),
    # x = 0 and x = n have closed forms: upper = z^2 / (n + z^2) = 3.8415 / 53.8415 = 7.13 %
    (0, 50, 0.0, 0.0713), (50, 50, 0.9287, 1.0),
    # Newcombe (1998), Statistics in Medicine 17:857, Table I, method 3 (Wilson score)
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
])
def test_wilson_against_published_values(passed, n, low, high):
    interval = wilson(passed, n)
    assert (interval.low, interval.high) == pytest.approx((low, high), abs=1e-4)


def test_wilson_of_nothing_counted_is_none():
    assert wilson(0, 0) is None


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_equals_scipy(case):
    passed, n = case
    ours = wilson(passed, n)
    theirs = scipy_stats.binomtest(passed, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert (ours.low, ours.high) == pytest.approx((theirs.low, theirs.high), abs=1e-9)


@pytest.mark.parametrize("a_only, b_only, p", [
    (1, 9, Fraction(2 * (comb(10, 0) + comb(10, 1)), 2 ** 10)),  # 22/1024
    (0, 5, Fraction(2, 2 ** 5)),  # 1/16
    (9, 1, Fraction(22, 1024)),  # symmetric
    (3, 3, Fraction(1)),  # 2 P(X <= 3) > 1: capped
    (0, 0, Fraction(1)),  # no discordant pair
    (2, 10, Fraction(2 * (1 + 12 + 66), 2 ** 12)),  # 158/4096
])
def test_mcnemar_exact_p_for_hand_made_discordant_counts(a_only, b_only, p):
    assert mcnemar_exact(a_only, b_only) == pytest.approx(float(p), rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 3000))
def test_mcnemar_equals_scipys_two_sided_binomial_test(a_only, b_only):
    expected = 1.0 if a_only + b_only == 0 else scipy_stats.binomtest(a_only, a_only + b_only, 0.5).pvalue
    assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-9, abs=1e-250)  # SciPy underflows to 0 first


def test_binomial_tail_in_log_space_matches_exact_integers():
    # above 2,000 trials the sum runs in log space: compare with the exact fraction
    for n, k in ((2500, 1180), (4001, 1990), (3000, 10)):
        exact = Fraction(sum(comb(n, i) for i in range(k + 1)), 2 ** n)
        assert binomial_tail(k, n) == pytest.approx(float(exact), rel=1e-9)


# Benjamini & Hochberg (1995), J. R. Statist. Soc. B 57:289, section 4.2: 15 p-values, the first four rejected
BH_P = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528,
        0.7590, 1.000]


def test_benjamini_hochberg_worked_example():
    q = bh_qvalues(BH_P)
    assert sum(x < 0.05 for x in q) == 4  # the paper's four rejections
    # by hand: q_(4) = 0.0095 * 15/4; q_(5) = min over j >= 5 of p_(j) 15/j = 0.0201 * 3; q_(6) = q_(7) = 0.0298 * 15/7
    assert q[3] == pytest.approx(0.035625) and q[4] == pytest.approx(0.0603)
    assert q[5] == pytest.approx(0.0298 * 15 / 7) and q[6] == pytest.approx(0.0298 * 15 / 7)
    assert q[:3] == pytest.approx([0.0015, 0.003, 0.0095])  # 0.0001 * 15, 0.0004 * 15/2, 0.0019 * 5
    assert q[-1] == 1.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=60))
def test_benjamini_hochberg_equals_scipy_in_any_order(p_values):
    assert bh_qvalues(p_values) == pytest.approx(list(scipy_stats.false_discovery_control(p_values)), abs=1e-12)


@pytest.mark.parametrize("accuracy", [0.5, 0.7, 0.9, 0.95])
def test_detectable_difference_inverts_examples_needed(accuracy):
    for n in (50, 200, 1000):
        d = detectable_difference(accuracy, n)
        assert examples_needed(accuracy, d) in (n, n + 1)  # ceil
    # the rough figure: 50 per config at 50 % leaves a gap of about a quarter undetectable
    assert 0.25 < detectable_difference(0.5, 50) < 0.28
    assert detectable_from_error(0.01) == pytest.approx((1.959964 + 0.841621) * 2 ** 0.5 * 0.01, rel=1e-5)


def test_the_sample_size_table_in_the_docs_is_the_formulas():
    text = DOCS.read_text(encoding="utf-8")
    table = text[text.index("<!-- sample-size-table -->"):text.index("<!-- /sample-size-table -->")]
    rows = re.findall(r"^\| (\d+) % \| (\d[\d,]*) \| (\d[\d,]*) \| (\d[\d,]*) \|$", table, re.MULTILINE)
    assert len(rows) >= 4
    for accuracy, *needed in rows:
        for points, text_n in zip((5, 10, 15), needed):
            assert int(text_n.replace(",", "")) == examples_needed(int(accuracy) / 100, points / 100), (accuracy, points)
