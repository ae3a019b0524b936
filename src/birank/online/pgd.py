"""PGD: online pairwise gradient descent against buffered earlier examples (Boissier et al. 2016)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._kernels.pgd import HINGE, SQUARE, SQUARED_HINGE, pgd_pass
from .._validation import Interval, Options
from ._linear_stream import LinearStreamRanker

__all__ = ["PGD"]

_LOSS = {"hinge": HINGE, "squared_hinge": SQUARED_HINGE, "square": SQUARE}


class PGD(LinearStreamRanker):
    """Online pairwise gradient descent for AUC (Boissier, Lyu, Ying, Zhou, AISTATS 2016).

    Each arriving instance takes one gradient step on its mean pairwise loss
    against earlier instances of the other class, with a polynomially decaying
    step ``eta t^-power_t`` (Boissier et al. eq. (2)). The earlier instances
    are the last ``buffer_size`` of each class (FIFO), which bounds the work per
    instance at ``O(buffer_size * nnz)``. See :mod:`birank._kernels.pgd`.

    Parameters
    ----------
    eta : float, default=0.1
    power_t : float, default=0.5
        Decay exponent theta of the step size.
    loss : {'hinge', 'squared_hinge', 'square'}, default='hinge'
    lam : float, default=0.0
        L2 regularization (the paper's algorithm has none; > 0 costs O(d) per step).
    buffer_size : int, default=50
        Earlier instances kept per class.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        Minus the best-accuracy score cut on the last chunk with both classes.
    t_ : int
        Instances (of non-zero weight) processed.
    n_seen_ : ndarray of shape (2,)
    n_features_in_ : int

    Examples
    --------
    >>> from birank import PGD
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = PGD(eta=0.1).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    """

    _parameter_constraints = {
        "eta": [Interval("real", 0, None, closed="neither")],
        "power_t": [Interval("real", 0, None, closed="left")],
        "loss": [Options("hinge", "squared_hinge", "square")],
        "lam": [Interval("real", 0, None, closed="left")],
        "buffer_size": [Interval("integer", 1, None)],
    }

    def __init__(self, eta=0.1, *, power_t=0.5, loss="hinge", lam=0.0, buffer_size=50):
        self.eta = eta
        self.power_t = power_t
        self.loss = loss
        self.lam = lam
        self.buffer_size = buffer_size

    def _init_state(self, d, X):
        M = int(self.buffer_size)
        return {"w": np.zeros(d), "t": 0, "idx": np.zeros((2, M, 0), dtype=np.int64),
                "val": np.zeros((2, M, 0)), "nnz": np.zeros((2, M), dtype=np.int64),
                "len": np.zeros(2, dtype=np.int64), "pos": np.zeros(2, dtype=np.int64),
                "coefs": np.zeros(M)}

    def _prepare_chunk(self, X, st):
        """Widen the buffer slots to the longest row of the chunk (bounded by n_features)."""
        if X.shape[0] == 0:
            return
        need = int(np.diff(X.indptr).max()) if sp.issparse(X) else X.shape[1]
        cap = st["idx"].shape[2]
        if need > cap:
            for key, dtype in (("idx", np.int64), ("val", np.float64)):
                grown = np.zeros(st[key].shape[:2] + (need,), dtype=dtype)
                grown[:, :, :cap] = st[key]
                st[key] = grown

    def _run_chunk(self, xa, y01, sw, st):
        st["t"] = pgd_pass(xa, y01, sw, st["w"], st["t"], float(self.eta),
                           float(self.power_t), float(self.lam), _LOSS[self.loss],
                           st["idx"], st["val"], st["nnz"], st["len"], st["pos"], st["coefs"])
        self.t_ = int(st["t"])
