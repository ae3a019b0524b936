"""Data-scaled defaults (eta0="auto", alpha="auto"): the rule, and the scale-freedom it buys.

Gradient steps on ``w . x`` move the scores by ``step |x|^2``; dividing the
step by the mean squared row norm m (multiplying Pegasos' alpha by m;
OnlineUniExp: the rows' spread v; SPAM, OPAUC: the largest eigenvalue of the
rows' covariance; see docs/conventions.md) makes the scores independent of a
rescaling of X, where the regularizer does not break it
(alpha=0, no bias feature). The numbers behind the constants are in
benchmarks/bench_defaults.py.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from birank import OPAUC, PGD, SPAM, AdaOAM, CombinedRanking, OnlineUniExp
from birank.base import data_scaled


def _data(seed=0, n=150, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    y = (X @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(int)
    return X, y


def test_spread_and_covariance_measures():
    X, y = _data()
    X += 3.0  # an offset shared by all rows: the mean squared norm grows, these do not
    C = np.cov(X.T, bias=True)
    v, lam = np.trace(C), np.linalg.eigvalsh(C)[-1]
    for Xin in (X, sp.csr_matrix(X)):
        assert data_scaled("auto", Xin, scale=1.5, measure="spread") == \
            pytest.approx(1.5 / v, rel=1e-9)
        # power iteration: a Rayleigh quotient, at most lam, within 1 % of it
        assert 0.99 * lam <= 0.3 / data_scaled("auto", Xin, scale=0.3, measure="covariance") \
            <= lam * (1 + 1e-12)
    for measure in ("spread", "covariance"):
        assert data_scaled("auto", X, scale=1.0, measure=measure) == \
            pytest.approx(data_scaled("auto", X - 3.0, scale=1.0, measure=measure), rel=1e-9)
    assert SPAM().fit(X, y).eta0_ == data_scaled("auto", X, scale=0.3, measure="covariance")
    assert OPAUC().fit(X, y).eta0_ == data_scaled("auto", X, scale=0.008, measure="covariance")
    assert OnlineUniExp().fit(X, y).eta0_ == pytest.approx(0.025 / v, rel=1e-9)
    # above 20000 rows the covariance is that of every k-th row
    big = np.random.default_rng(1).normal(size=(40001, 3)) * [1.0, 2.0, 0.5]
    lam3 = np.linalg.eigvalsh(np.cov(big[::3].T, bias=True))[-1]
    est = 1 / data_scaled("auto", big, scale=1.0, measure="covariance")
    assert 0.99 * lam3 <= est <= lam3 * (1 + 1e-12)
    # a chunk without spread (one row, equal rows) falls back to the mean squared norm
    for rows in (X[:1], np.repeat(X[:1], 4, axis=0)):
        for measure in ("spread", "covariance"):
            assert data_scaled("auto", rows, scale=1.5, measure=measure) == \
                pytest.approx(data_scaled("auto", rows, scale=1.5), rel=1e-12)


def test_data_scaled_is_the_documented_rule():
    X, _ = _data()
    X[3] = 0.0  # rows of zeros do not count
    sq = (X**2).sum(axis=1)
    m = sq[sq > 0].mean()
    assert data_scaled("auto", X, scale=0.05) == pytest.approx(0.05 / m, rel=1e-12)
    assert data_scaled("auto", sp.csr_matrix(X), scale=0.15, power=0.5) == \
        pytest.approx(0.15 / np.sqrt(m), rel=1e-12)
    assert data_scaled(0.3, X, scale=0.05) == 0.3  # an explicit value is kept


@pytest.mark.parametrize("make", [
    lambda: OPAUC(alpha=0.0), lambda: OnlineUniExp(), lambda: PGD(alpha=0.0),
    lambda: SPAM(alpha=0.0), lambda: CombinedRanking(fit_intercept=False, max_iter=3000,
                                                     random_state=0),
], ids=["OPAUC", "OnlineUniExp", "PGD", "SPAM", "CombinedRanking"])
def test_auto_defaults_make_the_scores_scale_free(make):
    X, y = _data()
    a, b = make().fit(X, y), make().fit(8.0 * X, y)  # a power of two: exact scaling
    np.testing.assert_allclose(b.decision_function(8.0 * X) - b.intercept_,
                               a.decision_function(X) - a.intercept_, rtol=1e-9, atol=1e-12)


def test_fixed_step_is_not_scale_free():
    # the property above is the rule's doing: a fixed step on 8 X gives other scores
    X, y = _data()
    a, b = OPAUC(eta0=0.01, alpha=0.0).fit(X, y), OPAUC(eta0=0.01, alpha=0.0).fit(8 * X, y)
    assert not np.allclose(b.decision_function(8 * X) - b.intercept_,
                           a.decision_function(X) - a.intercept_, rtol=1e-3)


def test_adaoam_auto_step_is_scaled_by_the_row_norm():
    X, y = _data()
    assert AdaOAM().fit(8 * X, y).eta0_ == pytest.approx(AdaOAM().fit(X, y).eta0_ / 8)
