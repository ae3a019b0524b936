"""CombinedRanking (CRR, Sculley 2010 / sofia-ml combined-ranking) tests."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from birank import CombinedRanking
from birank._kernels import sparse_rows
from birank._kernels.losses import HINGE, SQUARED_HINGE
from birank._kernels.sgd import crr_sgd
from birank.batch.combined_ranking import all_pairs_mean_loss
from birank.datasets import load_a9a, load_heart
from birank._validation import kernel_rows as xargs


def reference_steps(X, y_pm, sw, lam, n_steps, p, loss, projection, use_bias, state):
    """Plain-numpy CRR: w = (1 - eta lam) w + eta sw g(m) y z, then the projection onto
    |w| <= 1/sqrt(lam) if asked, else for the squared hinge onto |w| <= sqrt(2/lam).

    Draws its samples with the same generator calls, in the same order, as the kernel.
    Yields w (with the bias weight last) after every step.
    """
    n, d = X.shape
    pos, neg = np.flatnonzero(y_pm > 0), np.flatnonzero(y_pm < 0)
    w = np.zeros(d + 1)
    for t in range(1, n_steps + 1):
        eta = 1.0 / (lam * t)
        if pos.size and neg.size and sparse_rows.rng_uniform(state) < p:
            i = pos[sparse_rows.rng_int(state, pos.size)]
            j = neg[sparse_rows.rng_int(state, neg.size)]
            z, y, wt = np.r_[X[i] - X[j], 0.0], 1.0, sw[i] * sw[j]
        else:
            i = sparse_rows.rng_int(state, n)
            z, y, wt = np.r_[X[i], 1.0 if use_bias else 0.0], y_pm[i], sw[i]
        m = y * (w @ z)
        if loss == HINGE:
            g = 1.0 if m < 1 else 0.0
        else:
            g = 2.0 * max(0.0, 1.0 - m)
        w = max(0.0, 1.0 - eta * lam) * w + eta * wt * g * y * z
        if projection:  # Pegasos' ball
            w = w * min(1.0, 1.0 / (np.sqrt(lam) * np.linalg.norm(w)))
        elif loss != HINGE:  # the squared hinge's ball, which holds the optimum
            w = w * min(1.0, np.sqrt(2.0 / lam) / np.linalg.norm(w))
        yield w


@pytest.mark.kernel
@pytest.mark.parametrize(
    "sparse,loss,projection,use_bias,weighted",
    [(False, HINGE, False, True, False), (True, HINGE, True, True, True),
     (True, SQUARED_HINGE, False, False, False), (False, SQUARED_HINGE, True, True, True)])
def test_kernel_matches_numpy_reference_step_by_step(sparse, loss, projection, use_bias,
                                                      weighted):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 4)) * (rng.random((12, 4)) < 0.6)
    y_pm = np.where(rng.random(12) < 0.4, 1.0, -1.0)
    y_pm[:2] = [1.0, -1.0]
    sw = rng.uniform(0.2, 2.0, 12) if weighted else np.ones(12)
    lam, p, n_steps = 0.05, 0.5, 300
    xa = xargs(sp.csr_matrix(X) if sparse else X)
    pos, neg = np.flatnonzero(y_pm > 0), np.flatnonzero(y_pm < 0)
    state_k, state_r = sparse_rows.rng_init(42), sparse_rows.rng_init(42)
    w = np.zeros(5)
    ref = reference_steps(X, y_pm, sw, lam, n_steps, p, loss, projection, use_bias, state_r)
    n_rank = 0
    for t, w_ref in enumerate(ref):
        # one kernel call per step: the scale is folded into w after each call
        n_rank += crr_sgd(xa, y_pm, sw, pos, neg, w, lam, t, 1, p, loss, projection,
                          use_bias, state_k)
        np.testing.assert_allclose(w, w_ref, rtol=1e-9, atol=1e-12, err_msg=f"step {t + 1}")
    assert 0 < n_rank < n_steps
    np.testing.assert_array_equal(state_k, state_r)
    # one call for all steps (scale kept across steps) lands on the same w
    w_all = np.zeros(5)
    crr_sgd(xa, y_pm, sw, pos, neg, w_all, lam, 0, n_steps, p, loss, projection, use_bias,
            sparse_rows.rng_init(42))
    np.testing.assert_allclose(w_all, w, rtol=1e-8, atol=1e-12)


@pytest.mark.kernel
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_all_pairs_mean_loss_equals_enumeration(loss):
    rng = np.random.default_rng(1)
    s_pos = rng.integers(-3, 4, 9) * 0.5  # ties and exact margin-1 gaps on purpose
    s_neg = rng.integers(-3, 4, 7) * 0.5
    w_pos, w_neg = rng.uniform(0.1, 2, 9), rng.uniform(0.1, 2, 7)
    total = 0.0
    for (i, si), (j, sj) in itertools.product(enumerate(s_pos), enumerate(s_neg)):
        xi = max(0.0, 1.0 - (si - sj))
        total += w_pos[i] * w_neg[j] * (xi if loss == "hinge" else xi**2)
    expected = total / (w_pos.sum() * w_neg.sum())
    assert all_pairs_mean_loss(s_pos, s_neg, w_pos, w_neg, loss) == pytest.approx(expected,
                                                                                   rel=1e-12)


def test_objective_attribute_is_the_crr_objective():
    X, y = load_heart()
    est = CombinedRanking(alpha=1e-2, max_iter=3000, random_state=0).fit(X, y)
    Xd = X.toarray()
    s = Xd @ est.coef_ + est.intercept_
    y_pm = np.where(y > 0, 1.0, -1.0)
    point = np.maximum(0, 1 - y_pm * s).mean()
    pair = np.maximum(0, 1 - (s[y > 0][:, None] - s[y < 0][None, :])).mean()
    reg = 0.5 * 1e-2 * (est.coef_ @ est.coef_ + est.intercept_**2)
    assert est.objective_ == pytest.approx(reg + 0.5 * point + 0.5 * pair, rel=1e-12)


def test_reproducible_and_dense_equals_sparse():
    X, y = load_heart()
    a = CombinedRanking(alpha=1e-3, max_iter=20000, random_state=5).fit(X, y)
    b = CombinedRanking(alpha=1e-3, max_iter=20000, random_state=5).fit(X, y)
    c = CombinedRanking(alpha=1e-3, max_iter=20000, random_state=5).fit(X.toarray(), y)
    d = CombinedRanking(alpha=1e-3, max_iter=20000, random_state=6).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.intercept_ == b.intercept_
    np.testing.assert_allclose(a.coef_, c.coef_, rtol=1e-12, atol=1e-14)
    assert not np.array_equal(a.coef_, d.coef_)


@pytest.mark.parametrize("kwargs", [{}, {"projection": True}, {"loss": "squared_hinge", "projection": True},
                                    {"rank_probability": 1.0, "fit_intercept": False}])
def test_auc_well_above_chance(kwargs):
    X, y = load_heart()
    rng = np.random.default_rng(0)
    test = rng.random(y.shape[0]) < 0.3
    est = CombinedRanking(alpha=1e-2, max_iter=30000, random_state=0, **kwargs)
    est.fit(X[~test], y[~test])
    assert est.score(X[test], y[test]) > 0.85
    expected_rank = est.n_iter_ * est.rank_probability
    assert abs(est.n_rank_steps_ - expected_rank) <= 4 * np.sqrt(est.n_iter_) + 1


def test_partial_fit_continues_the_step_count():
    X, y = load_heart()
    est = CombinedRanking(alpha=1e-2, max_iter=5000, random_state=0)
    with pytest.raises(ValueError, match="only one class"):
        est.partial_fit(X[y > 0], y[y > 0])
    est.partial_fit(X[y > 0][:50], y[y > 0][:50], classes=[-1, 1])
    assert est.t_ == 5000 and est.n_rank_steps_ == 0  # one class: no pairs to draw
    for chunk in np.array_split(np.arange(y.shape[0]), 3):
        est.partial_fit(X[chunk], y[chunk])
    assert est.t_ == 20000
    assert est.score(X, y) > 0.85
    with pytest.raises(ValueError, match="not in classes_"):
        est.partial_fit(X[:5], np.array([0, 1, 0, 1, 0]))
    # fit starts over
    est.fit(X, y)
    assert est.t_ == 5000


def test_sample_weight_and_bad_input():
    X, y = load_heart()
    sw = np.where(y > 0, 2.0, 1.0)
    est = CombinedRanking(alpha=1e-2, max_iter=5000, random_state=0).fit(X, y, sample_weight=sw)
    plain = CombinedRanking(alpha=1e-2, max_iter=5000, random_state=0).fit(X, y)
    assert not np.allclose(est.coef_, plain.coef_)
    with pytest.raises(ValueError, match="sample_weight"):
        CombinedRanking().fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="'alpha'"):
        CombinedRanking(alpha=0.0).fit(X, y)
    with pytest.raises(ValueError, match="'rank_probability'"):
        CombinedRanking(rank_probability=1.5).fit(X, y)


@pytest.mark.slow
def test_a9a_goal_auc():
    """The reference: sofia-ml combined-ranking reaches 0.8986 (lambda 1e-4, 10^6 steps)."""
    X, y = load_a9a()
    Xt, yt = load_a9a(subset="test")
    est = CombinedRanking(alpha=1e-4, max_iter=10**6, random_state=0).fit(X, y)
    assert est.score(Xt, yt) >= 0.898




@pytest.mark.parametrize("alpha", ["auto", 1e-4, 1e-8])
def test_squared_hinge_stays_finite_at_every_alpha(alpha):
    """At the default alpha, loss="squared_hinge" gave an all-NaN coef_ (its unbounded
    gradient at the first 1/(alpha t) steps), with predict answering anyway; w is now kept
    in |w| <= sqrt(2/alpha), the ball that holds the optimum."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    model = CombinedRanking(loss="squared_hinge", alpha=alpha, random_state=0).fit(X, y)
    assert np.all(np.isfinite(model.coef_)) and np.isfinite(model.intercept_)
    radius = np.sqrt(2 / model.alpha_)
    assert np.linalg.norm(np.r_[model.coef_, model._bias]) <= radius * (1 + 1e-9)
    assert model.score(X, y) > 0.8
