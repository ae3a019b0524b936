"""lin-jan-lin section III-A: with a perfectly rankable list, hard-margin RankSVM's
support vectors are level-1 pairs (neighbours in the ranked list).

Checked on explicit all-pairs problems solved by dual CD with a very large C (hinge,
so that no pair is allowed to violate): every pair with alpha > 0 must join two
neighbours of the true order. The soft-margin, noisy case is shown too: there the
claim does not hold (support vectors beyond level 1), which is why the paper turns
to an experiment for it.
"""

import numpy as np
import pytest

from birank.solvers.dual_cd import PairDualCD


def _all_pairs_solve(X, y, C):
    order = np.argsort(-y, kind="stable")  # x_1 > x_2 > ... > x_N
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    a, b = np.nonzero(y[:, None] > y[None, :])
    solver = PairDualCD(X, loss="hinge", tol=1e-10, max_iter=200000, random_state=0)
    solver.add_rows(a, b, np.full(a.size, C))
    solver.solve()
    return solver, np.abs(rank[a] - rank[b])


@pytest.mark.parametrize("seed", range(3))
def test_hard_margin_support_vectors_are_level_one(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(14, 3))
    y = X @ rng.normal(size=3)  # perfectly rankable by a linear w, all labels distinct
    solver, level = _all_pairs_solve(X, y, C=1e8)
    margins = solver.margins()
    # (dual CD to 1e-10 on a C = 1e8 box: margins within 1e-3 of the hard constraint)
    assert margins.min() > 1 - 1e-3  # hard margin: no pair violates
    sv = solver.alpha_ > 1e-6 * solver.alpha_.max()
    assert sv.any()
    assert np.all(level[sv] == 1), np.unique(level[sv])
    # and the reason: every pair above level 1 has margin >= 2 (sum of two level-1 margins)
    assert margins[level >= 2].min() >= 2 - 2e-3


def test_soft_margin_on_noisy_labels_has_support_vectors_beyond_level_one():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(14, 3))
    y = X @ rng.normal(size=3) + 2.0 * rng.normal(size=14)
    solver, level = _all_pairs_solve(X, y, C=1.0)
    sv = solver.alpha_ > 1e-9
    assert np.any(level[sv] > 1)
