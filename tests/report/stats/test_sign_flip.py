"""The exact cluster sign-flip test (stats/sign_flip.py) against two independent oracles: McNemar's exact test
when every cluster holds one row, and the enumeration of every sign vector for small clusters."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from builders.report.stats.closed_form import mcnemar_exact
from builders.report.stats.sign_flip import sign_flip_p, sign_flip_p_values, smallest_p


@pytest.mark.parametrize("a_only, b_only, ties", [(30, 0, 20), (7, 2, 41), (0, 0, 50), (3, 3, 0), (120, 95, 5),
                                                  (1, 0, 0)])
def test_one_row_per_cluster_is_mcnemars_exact_test(a_only, b_only, ties):
    differences = np.array([1] * a_only + [-1] * b_only + [0] * ties)
    assert sign_flip_p(differences) == pytest.approx(mcnemar_exact(a_only, b_only), rel=1e-9)


def enumerated(differences: list[int]) -> float:
    """P(|Σ s_i |D_i|| ≥ |Σ D_i|) over every sign vector, by brute force."""
    observed = abs(sum(differences))
    hits = sum(abs(sum(s * abs(d) for s, d in zip(signs, differences))) >= observed
               for signs in itertools.product((-1, 1), repeat=len(differences)))
    return hits / 2 ** len(differences)


@pytest.mark.parametrize("seed", range(6))
def test_clusters_of_several_rows_match_every_sign_vector_enumerated(seed):
    differences = np.random.default_rng(seed).integers(-5, 8, size=11).tolist()
    assert sign_flip_p(np.array(differences)) == pytest.approx(enumerated(differences), abs=1e-12)


def test_one_index_flipped_across_every_config_is_one_cluster():
    # model B fails one example index in each of 16 configs where A passes it: 16 discordant rows, all for A.
    # As rows they look decisive (McNemar p = 2 x 0.5^16); as clusters there is one, and either sign is as likely.
    assert mcnemar_exact(16, 0) < 1e-4
    assert sign_flip_p(np.array([16] + [0] * 49)) == 1.0
    # the same 16 rows spread over 16 indices are 16 clusters: as decisive as McNemar says
    assert sign_flip_p(np.array([1] * 16 + [0] * 34)) == pytest.approx(mcnemar_exact(16, 0))


def test_rows_of_pools_and_the_smallest_p():
    matrix = np.array([[1, 1, 1, -1], [0, 0, 0, 0], [2, 2, 2, 2]])
    assert sign_flip_p_values(matrix) == [pytest.approx(enumerated([1, 1, 1, -1])), 1.0, pytest.approx(2 / 16)]
    assert smallest_p(5) == 2 / 32 and smallest_p(1) == 1.0 and smallest_p(0) == 1.0
    assert sign_flip_p(np.array([3, 1, 2, 5, 4])) == smallest_p(5)  # five clusters, all one way
