"""CBR-diag with a feature budget (online feature selection by truncation, Wang et al. 2014)."""

import numpy as np
import pytest
import scipy.sparse as sp

from birank import CBR


def _data(n=160, d=40, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.3, random_state=seed, format="csr")
    w = rng.normal(size=d)
    y = (X @ w + 0.3 * rng.normal(size=n) > np.median(X @ w)).astype(int)
    return X, y


def _truncated_reference(X, y, budget, **params):
    """Brute force: one row per partial_fit, then keep the budget largest |mu_j| in Python."""
    m = CBR(covariance="diag", **params)
    for t in range(X.shape[0]):
        m.partial_fit(X[t:t + 1], y[t:t + 1], classes=[0, 1])
        w = m._state["w"]
        if np.count_nonzero(w) > budget:
            order = np.argsort(-np.abs(w), kind="stable")
            w[order[budget:]] = 0.0  # in place: the state the next row learns from
    return m._state["w"].copy()


@pytest.mark.parametrize("budget", [1, 5, 17])
def test_feature_budget_equals_truncation_after_every_row(budget):
    X, y = _data()
    params = {"C": 0.05, "buffer_size": 8, "random_state": 0}
    fast = CBR(covariance="diag", feature_budget=budget, **params).fit(X, y)
    ref = _truncated_reference(X, y, budget, **params)
    assert np.count_nonzero(fast.coef_) <= budget
    np.testing.assert_allclose(fast.coef_, ref, rtol=1e-12, atol=1e-15)


def test_budget_holds_across_partial_fit_calls_and_dense_input():
    X, y = _data(seed=1)
    m = CBR(covariance="diag", feature_budget=6, C=0.1, random_state=0)
    for chunk in np.array_split(np.arange(X.shape[0]), 5):
        m.partial_fit(X[chunk].toarray(), y[chunk], classes=[0, 1])
        assert 0 < np.count_nonzero(m.coef_) <= 6
    whole = CBR(covariance="diag", feature_budget=6, C=0.1, random_state=0).fit(X.toarray(), y)
    np.testing.assert_array_equal(m.coef_, whole.coef_)


def test_budget_at_least_the_dimension_changes_nothing():
    X, y = _data(seed=2)
    a = CBR(covariance="diag", C=0.1, random_state=0).fit(X, y)
    b = CBR(covariance="diag", C=0.1, feature_budget=X.shape[1], random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.covariance_, b.covariance_)


def test_feature_budget_needs_the_diagonal_covariance():
    X, y = _data(seed=3)
    with pytest.raises(ValueError, match="feature_budget needs covariance='diag'"):
        CBR(covariance="full", feature_budget=5).fit(X, y)
    with pytest.raises(ValueError, match="feature_budget"):
        CBR(covariance="diag", feature_budget=0).fit(X, y)
