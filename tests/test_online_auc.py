"""OPAUC / OPAUCr, OnlineUniExp, SPAM and PGD: kernels against plain-numpy references."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from birank import OPAUC, PGD, SPAM, OnlineUniExp
from birank._kernels.sparse_rows import rng_init
from birank._kernels.stream_rows import rng_normal
from birank._validation import draw_seed
from birank.online.opauc import MAX_FULL_FEATURES

from online_references import (opauc_bruteforce_gradient, opauc_reference, opaucr_reference,
                               pgd_reference, spam_reference, uniexp_reference)


def _stream(rng, n=40, d=5, density=0.6):
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < density)
    y01 = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    y01[:2] = [1, 0]
    return X, y01


CASES = [
    (lambda: OPAUC(eta0=0.05, alpha=1e-3), lambda X, y: opauc_reference(X, y, 0.05, 1e-3)[0]),
    (lambda: OnlineUniExp(eta0=0.1), lambda X, y: uniexp_reference(X, y, 0.1)),
    (lambda: SPAM(eta0=0.1, power_t=0.5, alpha=1e-2),
     lambda X, y: spam_reference(X, y, 0.1, 0.5, 1e-2)),
    (lambda: SPAM(eta0=0.1, power_t=0.0, penalty="elasticnet", alpha=2e-2, l1_ratio=0.5),
     lambda X, y: spam_reference(X, y, 0.1, 0.0, 1e-2, 1e-2)),
    (lambda: PGD(eta0=0.2, loss="hinge", buffer_size=4),
     lambda X, y: pgd_reference(X, y, 0.2, 0.5, "hinge", 0.0, 4)),
    (lambda: PGD(eta0=0.05, loss="square", alpha=0.1, buffer_size=3),
     lambda X, y: pgd_reference(X, y, 0.05, 0.5, "square", 0.1, 3)),
    (lambda: PGD(eta0=0.1, loss="squared_hinge", power_t=0.0, buffer_size=50),
     lambda X, y: pgd_reference(X, y, 0.1, 0.0, "squared_hinge", 0.0, 50)),
]
IDS = ["opauc", "uniexp", "spam-l2", "spam-net", "pgd-hinge", "pgd-square", "pgd-sqhinge"]


@pytest.mark.kernel
@pytest.mark.parametrize("make, reference", CASES, ids=IDS)
def test_every_update_equals_numpy_reference(make, reference, layout, rng):
    X, y01 = _stream(rng)
    expected = reference(X, y01)
    model = make()
    for t in range(len(y01)):  # one row per call: each single update is compared
        model.partial_fit(layout(X[t:t + 1]), y01[t:t + 1], classes=[0, 1])
        np.testing.assert_allclose(model.coef_, expected[t], rtol=1e-10, atol=1e-12)


@pytest.mark.kernel
@pytest.mark.parametrize("alpha, eta0", [(1e-2, 0.1), (3e3, 0.5)])
def test_spam_l2_over_a_long_stream_equals_the_dense_algorithm(alpha, eta0, layout, rng):
    # SPAM-L2 keeps w and the class means as scales times stored vectors and their
    # inner products by sparse updates, in one call over the whole stream: the
    # products are recomputed every 64 rows here (d = 8) and, at alpha = 3e3, the
    # prox's scale falls below 1e-100 and is folded into w. Every row's w against
    # Natole et al.'s Algorithm 1 written densely.
    X, y01 = _stream(rng, n=700, d=8)
    expected = spam_reference(X, y01, eta0, 0.5, alpha)
    model = SPAM(eta0=eta0, power_t=0.5, alpha=alpha).fit(layout(X), y01)
    np.testing.assert_allclose(model.coef_, expected[-1], rtol=1e-10, atol=1e-300)
    m = [X[y01 == k].mean(axis=0) for k in (0, 1)]
    np.testing.assert_allclose(model.class_mean_, m, rtol=1e-12, atol=1e-15)


def test_spam_penalty_changed_between_partial_fits_continues_the_stream(rng):
    # SPAM-NET works on the plain vectors and SPAM-L2 on scaled ones: a stream whose
    # penalty changes between calls continues from the same w and means (rows 60-89 with
    # Natole et al.'s beta = beta1 = 5e-3, the others beta = 1e-2, beta1 = 0)
    X, y01 = _stream(rng, n=120, d=6)
    model = SPAM(eta0=0.1, alpha=1e-2)
    model.partial_fit(X[:60], y01[:60], classes=[0, 1])
    model.set_params(penalty="elasticnet", l1_ratio=0.5)
    model.partial_fit(X[60:90], y01[60:90])
    model.set_params(penalty="l2")
    model.partial_fit(X[90:], y01[90:])
    net = (np.arange(120) >= 60) & (np.arange(120) < 90)
    expected = spam_reference(X, y01, 0.1, 0.5, np.where(net, 5e-3, 1e-2), np.where(net, 5e-3, 0.0))
    np.testing.assert_allclose(model.coef_, expected[-1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.class_mean_, [X[y01 == k].mean(axis=0) for k in (0, 1)],
                               rtol=1e-12, atol=1e-15)


@pytest.mark.kernel
def test_opaucr_equals_algorithm_2_with_the_drawn_sketch(layout, rng):
    X, y01 = _stream(rng, n=30, d=6)
    tau = 3
    state = rng_init(draw_seed(np.random.default_rng(7)))
    R = np.array([[rng_normal(state) / math.sqrt(tau) for _ in range(tau)] for _ in y01])
    expected = opaucr_reference(X, y01, 0.05, 1e-3, R)
    model = OPAUC(rank=tau, eta0=0.05, alpha=1e-3, random_state=7).fit(layout(X), y01)
    np.testing.assert_allclose(model.coef_, expected[-1], rtol=1e-10, atol=1e-12)


def test_opaucr_sketch_estimates_the_second_moment(rng):
    """Z Z' / T is an unbiased estimate of the class's E[x x'], sharper with a larger rank."""
    X, y01 = _stream(rng, n=200, d=4, density=1.0)
    errors = []
    for tau in (2, 4000):
        model = OPAUC(rank=tau, eta0=0.02, random_state=0).fit(X, y01)
        st = model._state
        rows = X[y01 == 1]
        moment = rows.T @ rows / len(rows)
        approx = st["sketch"][1] @ st["sketch"][1].T / st["counts"][1]
        errors.append(np.abs(approx - moment).max() / np.abs(moment).max())
    assert errors[1] < 0.1 < errors[0]


def test_opauc_step_is_the_gradient_of_the_mean_pairwise_square_loss(rng):
    """Brute force: the step uses the mean over every earlier opposite row (no statistic)."""
    X, y01 = _stream(rng, n=25, d=4)
    eta, lam = 0.05, 1e-2
    model = OPAUC(eta0=eta, alpha=lam)
    w = np.zeros(4)
    for t in range(len(y01)):
        model.partial_fit(X[t:t + 1], y01[t:t + 1], classes=[0, 1])
        seen_opp = X[:t][y01[:t] != y01[t]]
        if len(seen_opp):
            w = w - eta * opauc_bruteforce_gradient(seen_opp, X[t], y01[t], w, lam)
        np.testing.assert_allclose(model.coef_, w, rtol=1e-10, atol=1e-12)


def test_opauc_covariance_is_the_batch_covariance_of_rows_seen(layout, rng):
    X, y01 = _stream(rng, n=60, d=5)
    model = OPAUC().partial_fit(layout(X[:35]), y01[:35], classes=[0, 1])
    for k in (0, 1):
        rows = X[:35][y01[:35] == k]
        np.testing.assert_allclose(model.class_covariance_[k], np.cov(rows.T, bias=True),
                                   atol=1e-12)
        np.testing.assert_allclose(model.class_mean_[k], rows.mean(axis=0), atol=1e-12)
    # Algorithm 1's printed update (c_old c_old' without (T-1)/T) drifts away from it
    _, _, _, G_printed = opauc_reference(X[:35], y01[:35], 0.01, 1e-4, printed=True)
    assert np.abs(G_printed[1] - model.class_covariance_[1]).max() > 1e-3


def test_opauc_full_covariance_feature_limit():
    X = sp.random(4, MAX_FULL_FEATURES + 1, density=0.01, format="csr", random_state=0)
    with pytest.raises(ValueError, match=r"rank=50"):
        OPAUC().fit(X, [0, 1, 0, 1])
    OPAUC(rank=2, random_state=0).fit(X, [0, 1, 0, 1])  # the sketch has no limit


def test_sample_weight_zero_skips_and_scales(rng):
    X, y01 = _stream(rng)
    sw = np.ones(len(y01))
    sw[5:9] = 0.0
    for make in (lambda: OPAUC(eta0=0.05), lambda: OnlineUniExp(eta0=0.1),
                 lambda: SPAM(eta0=0.1), lambda: PGD(eta0=0.1, buffer_size=5)):
        a = make().fit(X, y01, sample_weight=sw).coef_
        keep = sw > 0
        b = make().fit(X[keep], y01[keep]).coef_
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


MODELS = [OPAUC(eta0=0.01), OPAUC(rank=5, eta0=0.01, random_state=0), OnlineUniExp(eta0=0.05),
          SPAM(eta0=0.1), PGD(eta0=0.1, buffer="reservoir", random_state=0)]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: repr(m))
def test_partial_fit_over_chunks_equals_fit(model, layout, rng):
    X, y01 = _stream(rng, n=90, d=6)
    whole = model.__class__(**model.get_params()).fit(layout(X), y01)
    part = model.__class__(**model.get_params())
    for a, b in ((0, 7), (7, 8), (8, 50), (50, 90)):
        part.partial_fit(layout(X[a:b]), y01[a:b], classes=[0, 1])
    np.testing.assert_array_equal(part.coef_, whole.coef_)
    assert part.intercept_ == whole.intercept_


@pytest.mark.parametrize("model", MODELS, ids=lambda m: repr(m))
def test_same_seed_same_model_and_dense_equals_csr(model, rng):
    X, y01 = _stream(rng, n=50, d=6)
    a = model.__class__(**model.get_params()).fit(X, y01).coef_
    b = model.__class__(**model.get_params()).fit(sp.csr_matrix(X), y01).coef_
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_bad_parameters_name_the_parameter():
    X, y = np.eye(4), [0, 1, 0, 1]
    for model, name in ((OPAUC(rank=0), "rank"), (OPAUC(eta0=-1.0), "eta"),
                        (OnlineUniExp(eta0=0.0), "eta"), (SPAM(penalty="l1"), "penalty"),
                        (PGD(loss="log"), "loss"), (PGD(buffer_size=0), "buffer_size")):
        with pytest.raises(ValueError, match=name):
            model.fit(X, y)


def test_divergence_is_not_silent():
    X = np.array([[1e3, 0.0], [0.0, 1e3]] * 20)
    y = [1, 0] * 20
    with pytest.raises(ValueError, match="eta"):
        OPAUC(eta0=1e3).fit(X, y)


