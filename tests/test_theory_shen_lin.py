"""shen-lin Theorems 1 and 2 checked numerically: pairwise objective <= 1/4 point-wise one.

Theorem 1 (C_ij = C/2 in (1); C+ = 2N- C, C- = 2N+ C in (2)): "for every w, the
objective function of (1) is upper-bounded by 1/4 times the objective function of
(2)". Its proof rests on [1 - w.x_ij]_+ <= ([1 - 2w.x_i]_+ + [1 + 2w.x_j]_+) / 2, so
what holds is obj1(w) <= obj2(2w) / 4 (and Theorem 2: obj1(w) <= obj6(2 theta, 2w) / 4);
read literally at the same w it fails (the regularizer alone is 1/2|w|^2 > 1/8|w|^2).
Both readings are checked; the first must hold for every w, the second must fail.
"""

import numpy as np
import pytest


def _data(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + rng.normal(size=40) > 0.3).astype(int)
    return X[y == 1], X[y == 0]


def _obj_pairs(w, P, N, C):
    """(1) over D_pair: both symmetric pairs of every (i, j), C_ij = C / 2."""
    m = (P @ w)[:, None] - (N @ w)[None, :]
    return 0.5 * w @ w + 2 * (C / 2) * np.maximum(0.0, 1.0 - m).sum()


def _obj_points(w, P, N, C, theta=0.0):
    """(2) (theta = 0) or (6): C+ = 2 N- C, C- = 2 N+ C."""
    return (0.5 * w @ w + 2 * N.shape[0] * C * np.maximum(0.0, 1.0 - P @ w + theta).sum()
            + 2 * P.shape[0] * C * np.maximum(0.0, 1.0 + N @ w - theta).sum())


@pytest.mark.parametrize("seed", range(4))
def test_theorem_1_holds_at_twice_w(seed):
    P, N = _data(seed)
    rng = np.random.default_rng(100 + seed)
    for C in (1e-3, 0.1, 10.0):
        for scale in (0.01, 0.3, 3.0, 30.0):
            for _ in range(20):
                w = scale * rng.normal(size=3)
                assert _obj_pairs(w, P, N, C) <= 0.25 * _obj_points(2 * w, P, N, C) + 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_theorem_2_holds_at_twice_theta_and_w(seed):
    P, N = _data(seed)
    rng = np.random.default_rng(200 + seed)
    for C in (1e-3, 0.1, 10.0):
        for _ in range(60):
            w, theta = rng.normal(size=3) * rng.choice([0.05, 1.0, 10.0]), rng.normal() * 3
            assert (_obj_pairs(w, P, N, C)
                    <= 0.25 * _obj_points(2 * w, P, N, C, 2 * theta) + 1e-9)


def test_literal_reading_at_the_same_w_fails():
    P, N = _data(0)
    # a w that ranks every pair with margin: no loss on either side, only the regularizer
    w = 50.0 * np.array([1.0, 0.0, 0.0])
    m = (P @ w)[:, None] - (N @ w)[None, :]
    C = 0.1
    if np.all(m >= 1):  # the data may not be separable; the regularizer alone decides then
        assert _obj_pairs(w, P, N, C) > 0.25 * _obj_points(w, P, N, C)
    tiny_c = 1e-12  # with a negligible loss weight the same holds on any data
    assert _obj_pairs(w, P, N, tiny_c) > 0.25 * _obj_points(w, P, N, tiny_c)


def test_the_bound_is_tight_only_for_w_zero_and_loose_at_the_optimum():
    # at w = 0 both sides are equal (C N+ N- each); elsewhere the gap is positive
    P, N = _data(1)
    C = 0.1
    assert np.isclose(_obj_pairs(np.zeros(3), P, N, C),
                      0.25 * _obj_points(np.zeros(3), P, N, C))
    from scipy.optimize import minimize

    r = minimize(lambda w: _obj_pairs(w, P, N, C), np.zeros(3), method="Powell",
                 options={"xtol": 1e-8, "ftol": 1e-10})
    ratio = _obj_pairs(r.x, P, N, C) / (0.25 * _obj_points(2 * r.x, P, N, C))
    assert 0.0 < ratio < 1.0
