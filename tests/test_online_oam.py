"""OAM (seq, gra) and AdaOAM: hand-computed steps, plain-numpy streams, chunk equivalence."""

import numpy as np
import pytest
import scipy.sparse as sp

from birank import OAM, AdaOAM
from birank.online.adaoam import MAX_ADAOAM_FEATURES

from oracles_online import adaoam_reference, reference_stream


def _data(rng, n=90, d=5, density=0.5):
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) > density] = 0.0
    y = (X[:, 0] + 0.5 * X[:, 2] + rng.normal(size=n) > 0).astype(int)
    return X, y


def test_oam_first_steps_by_hand():
    X = np.array([[0.0, 0.0], [1.0, 2.0]])
    y = np.array([0, 1])
    # z = (1, 2), loss 1, |z|^2 = 5: PA-I step min(C, 1/5) z
    np.testing.assert_allclose(OAM(C=10.0).fit(X, y).coef_, [0.2, 0.4])
    np.testing.assert_allclose(OAM(C=0.1).fit(X, y).coef_, [0.1, 0.2])
    # gradient variant: w + C y z
    np.testing.assert_allclose(OAM(variant="gra", C=0.1).fit(X, y).coef_, [0.1, 0.2])
    # a third row, negative (2, 0): pairs against the stored positive (1, 2)
    X3 = np.vstack([X, [2.0, 0.0]])
    y3 = np.array([0, 1, 0])
    w = np.array([0.2, 0.4])
    z = np.array([2.0, 0.0]) - np.array([1.0, 2.0])
    loss = 1 + w @ z                  # y = -1
    np.testing.assert_allclose(OAM(C=10.0).fit(X3, y3).coef_, w - min(10.0, loss / (z @ z)) * z)


def test_adaoam_first_steps_by_hand():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([0, 1])
    lr, delta = 0.3, 0.5
    # the negative has no positive to pair with: gradient reg * w = 0; then the
    # positive: c = (1, 0), S = 0, w = 0, so g = -(x - c) = (1, -1), G = (1, 1)
    model = AdaOAM(eta0=lr, delta=delta).fit(X, y)
    np.testing.assert_allclose(model.coef_, -lr * np.array([1.0, -1.0]) / (delta + 1.0))


@pytest.mark.kernel
@pytest.mark.parametrize("variant", ["seq", "gra"])
@pytest.mark.parametrize("buffer", ["reservoir", "fifo"])
def test_oam_stream_equals_plain_numpy_reference(rng, layout, variant, buffer):
    X, y = _data(rng)
    model = OAM(variant=variant, buffer=buffer, buffer_size=6, C=0.05, random_state=2)
    model.fit(layout(X), y)
    w, _ = reference_stream("oam-" + variant, X, y, buffer=buffer, buffer_size=6, C=0.05,
                            seed=model._state["buffers"].seed)
    np.testing.assert_allclose(model.coef_, w, rtol=1e-10, atol=1e-12)


@pytest.mark.kernel
def test_adaoam_stream_equals_plain_numpy_reference(rng, layout):
    X, y = _data(rng)
    model = AdaOAM(eta0=0.2, delta=0.5, alpha=1e-3).fit(layout(X), y)
    w = adaoam_reference(X, y, learning_rate=0.2, delta=0.5, reg=1e-3)
    np.testing.assert_allclose(model.coef_, w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("make", [lambda: OAM(buffer_size=4, C=0.1, random_state=9),
                                  lambda: OAM(variant="gra", buffer_size=4, C=0.01,
                                              random_state=9),
                                  lambda: AdaOAM(eta0=0.1)])
def test_partial_fit_over_chunks_equals_fit_bit_for_bit(rng, layout, make):
    X, y = _data(rng, n=120)
    whole = make().fit(layout(X), y)
    parts = make()
    for a, b in [(0, 3), (3, 50), (50, 120)]:
        parts.partial_fit(layout(X[a:b]), y[a:b], classes=[0, 1])
    assert np.array_equal(parts.coef_, whole.coef_)
    assert parts.intercept_ == whole.intercept_


def test_reservoir_depends_on_the_seed(rng):
    X, y = _data(rng, n=300)
    a = OAM(buffer_size=5, random_state=1).fit(X, y).coef_
    b = OAM(buffer_size=5, random_state=1).fit(X, y).coef_
    c = OAM(buffer_size=5, random_state=2).fit(X, y).coef_
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_adaoam_feature_limit():
    wide = sp.random(10, MAX_ADAOAM_FEATURES + 1, density=0.01, format="csr", random_state=0)
    with pytest.raises(ValueError, match="limited to"):
        AdaOAM().fit(wide, np.arange(10) % 2)


def test_oam_takes_wide_sparse_input():
    wide = sp.random(60, 200_000, density=1e-4, format="csr", random_state=0)
    y = np.arange(60) % 2
    model = OAM(C=0.1, random_state=0).fit(wide, y)
    assert model.coef_.shape == (200_000,) and np.isfinite(model.coef_).all()


