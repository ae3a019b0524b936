"""CBR / CBR-diag: each SCW step solves its KL-plus-loss problem; streams equal a plain reference."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.stats import norm

from birank import CBR
from birank._kernels.cw_updates import scw_diag_step, scw_full_step
from birank.online.cbr import MAX_FULL_FEATURES

from oracles_online import reference_stream, scw_diag_step_brentq

PHI = norm.ppf(0.7)


def _kl(mu, sigma, mu0, sigma0):
    inv0 = np.linalg.inv(sigma0)
    diff = mu0 - mu
    return 0.5 * (np.linalg.slogdet(sigma0)[1] - np.linalg.slogdet(sigma)[1]
                  + np.trace(inv0 @ sigma) + diff @ inv0 @ diff - len(mu))


def _objective(mu, sigma, mu0, sigma0, z, y, C):
    loss = max(0.0, PHI * math.sqrt(z @ sigma @ z) - y * (mu @ z))
    return _kl(mu, sigma, mu0, sigma0) + C * loss


def _generic_min(mu0, sigma0, z, y, C, diagonal):
    """min KL + C xi, xi >= loss, xi >= 0 over (mu, Sigma) by SLSQP (Sigma = LL' or diag(e^s))."""
    d = len(mu0)
    tri = np.tril_indices(d)

    def unpack(p):
        mu = p[:d]
        if diagonal:
            sigma = np.diag(np.exp(p[d:2 * d]))
        else:
            L = np.zeros((d, d))
            L[tri] = p[d:d + len(tri[0])]
            sigma = L @ L.T
        return mu, sigma, p[-1]

    def obj(p):
        mu, sigma, xi = unpack(p)
        return _kl(mu, sigma, mu0, sigma0) + C * xi

    def margin(p):
        mu, sigma, xi = unpack(p)
        return xi - (PHI * math.sqrt(z @ sigma @ z) - y * (mu @ z))

    start = (np.log(np.diag(sigma0)) if diagonal
             else np.linalg.cholesky(sigma0)[tri])
    p0 = np.concatenate([mu0, start, [max(0.0, PHI * math.sqrt(z @ sigma0 @ z) - y * mu0 @ z)]])
    res = minimize(obj, p0, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": margin},
                                {"type": "ineq", "fun": lambda p: p[-1]}],
                   options={"ftol": 1e-14, "maxiter": 2000})
    mu, sigma, _ = unpack(res.x)
    return mu, sigma


def _case(rng, d, diagonal):
    mu0 = rng.normal(size=d) * 0.5
    if diagonal:
        sigma0 = np.diag(rng.uniform(0.3, 2.0, size=d))
    else:
        A = rng.normal(size=(d, d))
        sigma0 = A @ A.T / d + 0.5 * np.eye(d)
    z = rng.normal(size=d)
    return mu0, sigma0, z, rng.choice([-1.0, 1.0])


def _run_full(mu0, sigma0, z, y, C):
    mu, sigma = mu0.copy(), sigma0.copy()
    idx = np.arange(len(z), dtype=np.int64)
    scw_full_step(mu, sigma, idx, z.copy(), len(z), y, C, PHI, np.zeros(len(z)))
    return mu, sigma


def _run_diag(mu0, g0, z, y, C):
    mu, g = mu0.copy(), g0.copy()
    idx = np.arange(len(z), dtype=np.int64)
    alpha = scw_diag_step(mu, g, idx, z.copy(), np.zeros(len(z)), len(z), y, C, PHI)
    return mu, g, alpha


@pytest.mark.parametrize("C", [0.05, 0.5, 50.0])
@pytest.mark.parametrize("seed", range(4))
def test_full_step_solves_its_kl_plus_loss_problem(C, seed):
    rng = np.random.default_rng(seed)
    mu0, sigma0, z, y = _case(rng, 3, diagonal=False)
    mu, sigma = _run_full(mu0, sigma0, z, y, C)
    ref_mu, ref_sigma = _generic_min(mu0, sigma0, z, y, C, diagonal=False)
    ours = _objective(mu, sigma, mu0, sigma0, z, y, C)
    assert ours <= _objective(ref_mu, ref_sigma, mu0, sigma0, z, y, C) + 1e-9
    np.testing.assert_allclose(mu, ref_mu, atol=2e-4)
    np.testing.assert_allclose(sigma, ref_sigma, atol=2e-4)
    # the printed beta of Prop. 1, alpha phi / sqrt(u + v alpha phi), is not the minimizer
    sz = sigma0 @ z
    v = z @ sz
    beta = (sigma0 - sigma)[0, 0] / sz[0] ** 2
    alpha = (mu - mu0)[0] / (y * sz[0])
    if alpha > 0:
        u = (-alpha * v * PHI + math.sqrt(alpha ** 2 * v ** 2 * PHI ** 2 + 4 * v)) ** 2 / 4
        typo = alpha * PHI / math.sqrt(u + v * alpha * PHI)
        assert not np.isclose(typo, beta)
        worse = _objective(mu, sigma0 - typo * np.outer(sz, sz), mu0, sigma0, z, y, C)
        assert worse > ours + 1e-9


@pytest.mark.parametrize("C", [0.05, 0.5, 50.0])
@pytest.mark.parametrize("seed", range(4))
def test_diag_step_solves_its_kl_plus_loss_problem(C, seed):
    rng = np.random.default_rng(100 + seed)
    mu0, sigma0, z, y = _case(rng, 4, diagonal=True)
    mu, g, _ = _run_diag(mu0, np.diag(sigma0).copy(), z, y, C)
    ref_mu, ref_sigma = _generic_min(mu0, sigma0, z, y, C, diagonal=True)
    ours = _objective(mu, np.diag(g), mu0, sigma0, z, y, C)
    assert ours <= _objective(ref_mu, ref_sigma, mu0, sigma0, z, y, C) + 1e-9
    np.testing.assert_allclose(mu, ref_mu, atol=2e-4)
    np.testing.assert_allclose(g, np.diag(ref_sigma), atol=2e-4)


@pytest.mark.kernel
@pytest.mark.parametrize("C", [0.01, 1.0, 1e3])
def test_diag_step_kkt_conditions(rng, C):
    # exactness beyond the optimizer's tolerance: the loss is 0 when alpha < C,
    # and 1/g' = 1/g + alpha phi z^2 / sqrt(z' g' z) holds to rounding
    for _ in range(20):
        d = 6
        mu0, g0, z = rng.normal(size=d), rng.uniform(0.1, 3, size=d), rng.normal(size=d)
        z[rng.random(d) < 0.3] = 0.0
        mu, g, alpha = _run_diag(mu0, g0, z, 1.0, C)
        if alpha == 0.0:
            assert PHI * math.sqrt(g0 @ z ** 2) <= mu0 @ z
            continue
        s = math.sqrt(g @ z ** 2)
        np.testing.assert_allclose(1 / g, 1 / g0 + alpha * PHI * z ** 2 / s, rtol=1e-12)
        np.testing.assert_allclose(mu, mu0 + alpha * g0 * z, rtol=1e-12, atol=1e-14)
        loss = PHI * s - mu @ z
        if alpha < C:
            assert abs(loss) < 1e-10
        else:
            assert loss >= -1e-12


@pytest.mark.kernel
def test_diag_step_equals_a_brentq_solution(rng):
    for C in (0.02, 0.3, 100.0):
        for _ in range(10):
            mu0, g0, z = rng.normal(size=5), rng.uniform(0.1, 3, size=5), rng.normal(size=5)
            y = rng.choice([-1.0, 1.0])
            mu, g, _ = _run_diag(mu0, g0, z, y, C)
            ref_mu, ref_g = scw_diag_step_brentq(mu0, g0, z, y, C, PHI)
            np.testing.assert_allclose(mu, ref_mu, rtol=1e-10, atol=1e-13)
            np.testing.assert_allclose(g, ref_g, rtol=1e-10)


@pytest.mark.kernel
def test_full_and_diag_agree_while_the_covariance_stays_diagonal(rng):
    # positives have one non-zero, negatives are the origin: every z has one
    # non-zero, so the full covariance stays diagonal and both steps coincide
    n, d = 120, 5
    X = np.zeros((n, d))
    y = rng.integers(0, 2, size=n)
    for i in np.flatnonzero(y):
        X[i, rng.integers(d)] = rng.normal() + 1.0
    full = CBR(covariance="full", buffer_size=7, C=0.3).fit(X, y)
    diag = CBR(covariance="diag", buffer_size=7, C=0.3).fit(X, y)
    cov = full.covariance_
    assert np.count_nonzero(cov - np.diag(np.diag(cov))) == 0
    np.testing.assert_allclose(diag.coef_, full.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(diag.covariance_, np.diag(cov), rtol=1e-12)
    assert np.abs(full.coef_).sum() > 0


def _stream_data(rng, n=90, d=6, sparse=False):
    X = rng.normal(size=(n, d))
    if sparse:
        X[rng.random((n, d)) < 0.6] = 0.0
    y = (X[:, 0] - X[:, 1] + rng.normal(size=n) > 0.3).astype(int)
    return X, y


@pytest.mark.kernel
@pytest.mark.parametrize("covariance", ["full", "diag"])
@pytest.mark.parametrize("buffer", ["fifo", "reservoir"])
def test_stream_equals_plain_numpy_reference(rng, layout, covariance, buffer):
    X, y = _stream_data(rng, sparse=True)
    model = CBR(covariance=covariance, buffer=buffer, buffer_size=5, C=0.7, confidence=0.7,
                random_state=3)
    model.fit(layout(X), y)
    seed = model._state["buffers"].seed
    w, cov = reference_stream("cbr-" + covariance, X, y, buffer=buffer, buffer_size=5, C=0.7,
                              seed=seed)
    np.testing.assert_allclose(model.coef_, w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.covariance_, cov, rtol=1e-9, atol=1e-12)


def test_C_t_scales_with_the_other_class_seen_so_far():
    # four negatives at the origin, then one positive x: z = x, and with a small C
    # alpha is clipped at C_t = C * max(1, 4 / buffer_size) = 2C (buffer_size 2)
    X = np.zeros((5, 3))
    X[4] = [1.0, 2.0, 0.0]
    y = np.array([0, 0, 0, 0, 1])
    C = 1e-3
    model = CBR(covariance="full", buffer_size=2, C=C, confidence=0.7).fit(X, y)
    # two stored negatives (both the origin) give two steps; each mean step is alpha Sigma z
    first = 2 * C * X[4]
    assert model.coef_[0] > first[0]          # second step adds to the first
    one = CBR(covariance="full", buffer_size=2, C=C, confidence=0.7).fit(X[[0, 1, 4]], y[[0, 1, 4]])
    np.testing.assert_allclose(one.coef_[:2] / (model.coef_[:2]), 0.5, rtol=1e-3)


@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_partial_fit_over_chunks_equals_fit_bit_for_bit(rng, layout, covariance):
    X, y = _stream_data(rng, n=150, sparse=True)
    whole = CBR(covariance=covariance, buffer="reservoir", buffer_size=6, C=0.5,
                random_state=11).fit(layout(X), y)
    parts = CBR(covariance=covariance, buffer="reservoir", buffer_size=6, C=0.5,
                random_state=11)
    for a, b in [(0, 1), (1, 40), (40, 41), (41, 150)]:
        parts.partial_fit(layout(X[a:b]), y[a:b], classes=[0, 1])
    assert np.array_equal(parts.coef_, whole.coef_)
    assert np.array_equal(parts.covariance_, whole.covariance_)
    assert parts.intercept_ == whole.intercept_
    assert parts.n_seen_ == 150 and list(parts.class_counts_) == list(np.bincount(y))


def test_shuffle_is_seeded_and_only_in_fit(rng):
    X, y = _stream_data(rng, n=80)
    a = CBR(covariance="diag", shuffle=True, random_state=5).fit(X, y)
    b = CBR(covariance="diag", shuffle=True, random_state=5).fit(X, y)
    c = CBR(covariance="diag", random_state=5).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)
    d = CBR(covariance="diag", shuffle=True, random_state=5).partial_fit(X, y)
    assert np.array_equal(d.coef_, c.coef_)


def test_auc_trace_every_k_rows(rng):
    X, y = _stream_data(rng, n=130)
    Xv, yv = _stream_data(rng, n=60)
    model = CBR(covariance="diag").fit(X, y, eval_set=(Xv, yv), eval_every=50)
    assert model.auc_trace_[:, 0].tolist() == [50, 100, 130]
    assert model.auc_trace_[-1, 1] == pytest.approx(model.score(Xv, yv), abs=1e-12)
    model.partial_fit(X[:30], y[:30], eval_set=(Xv, yv), eval_every=50)
    assert model.auc_trace_[:, 0].tolist() == [50, 100, 130, 150, 160]
    plain = CBR(covariance="diag").fit(X, y)
    assert np.array_equal(plain.coef_, CBR(covariance="diag").fit(
        X, y, eval_set=(Xv, yv), eval_every=7).coef_)
    assert plain.auc_trace_.shape == (0, 2)


def test_errors_name_the_problem(rng):
    X, y = _stream_data(rng)
    wide = sp.random(20, MAX_FULL_FEATURES + 1, density=0.01, format="csr", random_state=0)
    with pytest.raises(ValueError, match="covariance='diag'"):
        CBR(covariance="full").fit(wide, np.arange(20) % 2)
    CBR(covariance="diag").fit(wide, np.arange(20) % 2)
    with pytest.raises(ValueError, match="confidence"):
        CBR(confidence=0.5).fit(X, y)
    with pytest.raises(ValueError, match="eval_set"):
        CBR().fit(X, y, eval_set=X)
    # labels outside classes_: the one message of birank.base.check_known_labels
    with pytest.raises(ValueError, match=r"CBR: eval_set's y holds label\(s\) .* not in "
                                         r"classes_"):
        CBR().fit(X, y, eval_set=(X, np.where(y == y.max(), 7, y)))
    with pytest.raises(ValueError, match="eval_every"):
        CBR().fit(X, y, eval_set=(X, y), eval_every=0)
    with pytest.raises(ValueError, match="sample_weight"):
        CBR().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="classes"):
        CBR().partial_fit(X[y == 1], y[y == 1])


def test_zero_weight_rows_are_skipped(rng):
    X, y = _stream_data(rng, n=100)
    w = np.ones(100)
    w[::3] = 0
    a = CBR(covariance="diag").fit(X, y, sample_weight=w)
    b = CBR(covariance="diag").fit(X[w > 0], y[w > 0])
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_does_not_mutate_input(rng):
    X, y = _stream_data(rng, sparse=True)
    Xs = sp.csr_matrix(X)
    before = Xs.copy()
    CBR(covariance="diag").fit(Xs, y)
    assert (Xs != before).nnz == 0


def test_ranks_a9a_well():
    from birank.datasets import load_a9a

    X, y = load_a9a()
    Xt, yt = load_a9a(subset="test")
    model = CBR(covariance="diag", C=0.1).fit(X[:8000], y[:8000])
    assert model.score(Xt, yt) > 0.86




def test_diag_on_a_million_sparse_features_equals_the_reference():
    X = sp.random(80, 10**6, density=2e-5, format="csr", random_state=1)
    y = np.arange(80) % 3 == 0
    model = CBR(covariance="diag", buffer_size=10, C=0.5, confidence=0.7).fit(X, y)
    w, g = reference_stream("cbr-diag", X, y.astype(int), buffer_size=10, C=0.5)
    np.testing.assert_allclose(model.coef_, w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.covariance_, g, rtol=1e-9)
    assert model._state["buffers"].width <= X.getnnz(axis=1).max()
