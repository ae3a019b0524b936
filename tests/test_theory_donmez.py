"""donmez-carbonell eq. (3), Steck's bound A >= 1 - (L_HR - C) / (n+ n-), checked numerically.

L_HR is eq. (1), the hinge rank loss with rank threshold theta = k + 1/2 (k documents
at or below the decision threshold). With U = n+ n- (1 - A) the number of mis-ordered
pairs, the bound says L_HR - U >= C. Exhaustively over all orders of small sets we
find the tightest C is d (d + 1) / 2 with d = |k - n-|: it depends on where the
threshold sits (0 when theta separates exactly n- documents below from n+ above), not
on the order given the threshold -- "a constant independent of the rank order" holds
for a fixed theta only. The bound is attained for some order at every threshold and is
loose elsewhere (L_HR counts rank distances, U counts pairs).
"""

import itertools

import numpy as np
import pytest

from birank.metrics import roc_auc


def _hinge_rank_loss(y_pm, theta):
    r = np.arange(1, y_pm.size + 1)  # ascending: rank 1 = lowest score
    return np.maximum(0.0, 0.5 - y_pm * (r - theta)).sum()


def _steck_C(k, n_neg):
    d = abs(k - n_neg)
    return d * (d + 1) / 2


@pytest.mark.parametrize("n_pos,n_neg", [(1, 4), (3, 4), (4, 3), (2, 6)])
def test_steck_bound_holds_and_is_attained_at_every_threshold(n_pos, n_neg):
    n = n_pos + n_neg
    for k in range(n + 1):
        theta = k + 0.5
        gaps = []
        for pos in itertools.combinations(range(n), n_pos):
            y = -np.ones(n)
            y[list(pos)] = 1.0
            scores = np.arange(n, dtype=float)  # the order itself
            A = roc_auc(y > 0, scores)
            L = _hinge_rank_loss(y, theta)
            assert A >= 1 - (L - _steck_C(k, n_neg)) / (n_pos * n_neg) - 1e-12
            gaps.append(L - n_pos * n_neg * (1 - A))
        assert min(gaps) == pytest.approx(_steck_C(k, n_neg))  # tight


def test_steck_bound_on_random_large_orders():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n_pos, n_neg = rng.integers(1, 40, 2)
        y = np.r_[np.ones(n_pos), -np.ones(n_neg)]
        rng.shuffle(y)
        k = int(rng.integers(0, n_pos + n_neg + 1))
        A = roc_auc(y > 0, np.arange(y.size, dtype=float))
        L = _hinge_rank_loss(y, k + 0.5)
        assert A >= 1 - (L - _steck_C(k, n_neg)) / (n_pos * n_neg) - 1e-12
