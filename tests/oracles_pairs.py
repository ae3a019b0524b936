"""Brute-force all-pairs RankSVM quantities, for tests on tiny data only.

Pairs are (i, j) with ``y_i > y_j`` (inside the same group when ``groups`` is
given), weight ``sample_weight[i] * sample_weight[j]``; a pair is active when
``s_j > s_i - 1.0`` (the exact predicate the sweeps use). Everything here
materializes the pairs; never use it on large data.
"""

import numpy as np
import scipy.optimize
import scipy.sparse as sp

__all__ = [
    "all_pairs",
    "pair_matrix",
    "pair_loss",
    "pair_objective",
    "pair_grad",
    "pair_hess_vec",
    "fit_bruteforce",
]


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)


def all_pairs(y, groups=None, sample_weight=None):
    """Index arrays (I, J) of every pair with y[I] > y[J] and their weights."""
    y = np.asarray(y, dtype=float)
    n = len(y)
    g = np.zeros(n) if groups is None else np.asarray(groups)
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    I, J = np.nonzero((y[:, None] > y[None, :]) & (g[:, None] == g[None, :]))
    return I, J, sw[I] * sw[J]


def pair_matrix(X, y, groups=None, sample_weight=None):
    """Materialized pair rows Z = X[I] - X[J] and weights."""
    Xd = _dense(X)
    I, J, c = all_pairs(y, groups, sample_weight)
    return Xd[I] - Xd[J], c


def _active(s, I, J):
    return s[J] > s[I] - 1.0


def pair_score_hess_diag(w, X, y, groups=None, sample_weight=None, loss="squared_hinge"):
    """Per row, the pair loss's generalized Hessian diagonal w.r.t. the scores: the sum
    of ``2 c_ij`` (squared hinge; ``c_ij`` for the hinge's degree) over its active pairs."""
    I, J, c = all_pairs(y, groups, sample_weight)
    s = _dense(X) @ w
    act = _active(s, I, J)
    k = 2.0 if loss == "squared_hinge" else 1.0
    out = np.zeros(len(y))
    np.add.at(out, I[act], k * c[act])
    np.add.at(out, J[act], k * c[act])
    return out


def pair_loss(w, X, y, groups=None, sample_weight=None, loss="squared_hinge"):
    """sum over pairs of c_ij * loss(1 - w.(x_i - x_j))."""
    s = _dense(X) @ w
    I, J, c = all_pairs(y, groups, sample_weight)
    act = _active(s, I, J)
    m = 1.0 - (s[I] - s[J])
    if loss == "squared_hinge":
        return float(np.sum(c[act] * m[act] ** 2))
    return float(np.sum(c[act] * m[act]))


def pair_objective(w, X, y, C=1.0, groups=None, sample_weight=None, loss="squared_hinge"):
    """1/2 |w|^2 + C * pair_loss."""
    return 0.5 * float(w @ w) + C * pair_loss(w, X, y, groups, sample_weight, loss)


def pair_grad(w, X, y, C=1.0, groups=None, sample_weight=None, loss="squared_hinge"):
    """Gradient (squared hinge) or the subgradient with active pairs (hinge)."""
    Xd = _dense(X)
    s = Xd @ w
    I, J, c = all_pairs(y, groups, sample_weight)
    act = _active(s, I, J)
    Z = Xd[I[act]] - Xd[J[act]]
    m = 1.0 - (s[I[act]] - s[J[act]])
    if loss == "squared_hinge":
        return w - 2.0 * C * Z.T @ (c[act] * m)
    return w - C * Z.T @ c[act]


def pair_hess_vec(w, v, X, y, C=1.0, groups=None, sample_weight=None):
    """Generalized Hessian of the squared-hinge objective at w (active set fixed) times v."""
    Xd = _dense(X)
    s = Xd @ w
    I, J, c = all_pairs(y, groups, sample_weight)
    act = _active(s, I, J)
    Z = Xd[I[act]] - Xd[J[act]]
    return v + 2.0 * C * Z.T @ (c[act] * (Z @ v))


def fit_bruteforce(X, y, C=1.0, groups=None, sample_weight=None, loss="squared_hinge"):
    """Optimum on materialized pairs, with generic scipy solvers.

    squared hinge: the smooth primal min 1/2|w|^2 + C sum c_p max(0, 1 - z_p.w)^2
    by BFGS; hinge: the dual box QP max sum a - 1/2 |Z'a|^2, 0 <= a_p <= C c_p
    by L-BFGS-B, w = Z'a. Returns w and the primal objective at w.
    """
    Z, c = pair_matrix(X, y, groups, sample_weight)
    keep = c > 0
    Z, c = Z[keep], c[keep]
    if loss == "squared_hinge":
        def primal(w):
            m = np.maximum(0.0, 1.0 - Z @ w)
            return 0.5 * w @ w + C * np.sum(c * m * m), w - 2.0 * C * Z.T @ (c * m)
        res = scipy.optimize.minimize(primal, np.zeros(Z.shape[1]), jac=True, method="BFGS",
                                      options={"gtol": 1e-11, "maxiter": 10000})
        return res.x, pair_objective(res.x, X, y, C, groups, sample_weight, loss)
    K = Z @ Z.T

    def f(a):
        Ka = K @ a
        return 0.5 * a @ Ka - a.sum(), Ka - 1.0
    bounds = [(0.0, C * cp) for cp in c]
    res = scipy.optimize.minimize(
        f, np.zeros(len(c)), jac=True, method="L-BFGS-B", bounds=bounds,
        options={"maxiter": 100000, "maxfun": 100000, "ftol": 1e-16, "gtol": 1e-12},
    )
    w = Z.T @ res.x
    return w, pair_objective(w, X, y, C, groups, sample_weight, loss)
