"""OPAUC and OPAUCr: one-pass AUC optimization (Gao, Jin, Zhu, Zhou, ICML 2013)."""

from __future__ import annotations

import numpy as np

from .._kernels.opauc import opauc_full_pass, opauc_sketch_pass
from .._kernels.sparse_rows import rng_init
from .._validation import Interval, check_random_state, draw_seed
from ._linear_stream import LinearStreamRanker

__all__ = ["OPAUC", "MAX_FULL_FEATURES"]

#: the largest n_features for the full covariance (two d x d float64 matrices:
#: 2 x 4096^2 x 8 bytes = 256 MiB, and O(d^2) work per instance)
MAX_FULL_FEATURES = 4096


class OPAUC(LinearStreamRanker):
    """One-pass AUC optimization with the square loss (Gao et al. 2013).

    Each instance is seen once. The learner keeps, per class, the count, mean
    and covariance of the instances seen so far; the arriving instance takes
    one gradient step on the mean pairwise square loss
    ``1/2 (1 - w.(x_pos - x_neg))^2`` against every earlier instance of the
    other class, which those statistics give exactly (Gao et al. eqs. (3)-(5),
    Algorithm 1). ``rank=tau`` is OPAUCr (Algorithm 2): each covariance is
    replaced by a random Gaussian sketch of ``tau`` columns, O(d tau) memory
    and work per instance, for high-dimensional data.

    Parameters
    ----------
    rank : int or None, default=None
        None: full d x d covariances (n_features at most ``MAX_FULL_FEATURES`` =
        4096; above that a ValueError suggests ``rank``). An int tau: OPAUCr with
        sketches of tau columns (Gao et al. and khalid-ray-chitsaz use tau = 50).
    eta : float, default=0.01
        Constant step size (Gao et al. tune it over 2^[-12:-4]; khalid et al.
        over 2^[-10:10]).
    lam : float, default=1e-4
        L2 regularization lambda (khalid et al. section 4.2: 0.0001).
    random_state : None, int or numpy Generator, default=None
        Seeds the sketch vectors of OPAUCr (unused with ``rank=None``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        Minus the best-accuracy score cut on the last chunk with both classes.
    class_count_ : ndarray of shape (2,)
        Weighted counts of the (negative, positive) instances seen.
    class_mean_ : ndarray of shape (2, n_features)
    class_covariance_ : ndarray of shape (2, n_features, n_features)
        Full variant only: the covariance (1/T normalization) of each class's
        instances seen so far.
    n_seen_ : ndarray of shape (2,)
        Rows of non-zero weight seen per class.
    n_features_in_ : int

    Examples
    --------
    >>> from birank import OPAUC
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = OPAUC(eta=0.01).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    >>> model.class_covariance_.shape
    (2, 13, 13)
    """

    _parameter_constraints = {
        "rank": [None, Interval("integer", 1, None)],
        "eta": [Interval("real", 0, None, closed="neither")],
        "lam": [Interval("real", 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, rank=None, *, eta=0.01, lam=1e-4, random_state=None):
        self.rank = rank
        self.eta = eta
        self.lam = lam
        self.random_state = random_state

    def _init_state(self, d, X):
        state = {"w": np.zeros(d), "counts": np.zeros(2),
                 "x": np.zeros(d), "z": np.zeros(d), "g": np.zeros(d)}
        if self.rank is None:
            if d > MAX_FULL_FEATURES:
                raise ValueError(
                    f"OPAUC: rank=None keeps two {d} x {d} covariance matrices; n_features "
                    f"must be at most {MAX_FULL_FEATURES} for the full covariance. Use the "
                    f"low-rank variant OPAUCr, e.g. OPAUC(rank=50).")
            state["moments"] = np.zeros((2, d, d))
            state["sums"] = np.zeros((2, d))
        else:
            tau = int(self.rank)
            rng = check_random_state(self.random_state)
            state["means"] = np.zeros((2, d))
            state["sketch"] = np.zeros((2, d, tau))
            state["rmeans"] = np.zeros((2, tau))
            state["rng"] = rng_init(draw_seed(rng))
            state["r"] = np.zeros(tau)
            state["u"] = np.zeros(tau)
        return state

    def _run_chunk(self, xa, y01, sw, st):
        if "moments" in st:
            opauc_full_pass(xa, y01, sw, st["w"], st["counts"], st["sums"], st["moments"],
                            float(self.eta), float(self.lam), st["x"], st["z"], st["g"])
        else:
            opauc_sketch_pass(xa, y01, sw, st["w"], st["counts"], st["means"], st["rmeans"],
                              st["sketch"], float(self.eta), float(self.lam), st["rng"],
                              st["x"], st["z"], st["g"], st["r"], st["u"])
        counts = st["counts"].copy()
        self.class_count_ = counts
        inv = np.divide(1.0, counts, out=np.zeros(2), where=counts > 0)
        if "moments" in st:
            mean = st["sums"] * inv[:, None]
            # Gao et al.'s Gamma: E[x x'] - c c' per class (1/T normalization)
            self.class_covariance_ = (st["moments"] * inv[:, None, None]
                                      - mean[:, :, None] * mean[:, None, :])
        else:
            mean = st["means"].copy()
        self.class_mean_ = mean
