"""OnlineUniExp: bipartite ranking by the online weighted univariate exponential loss."""

from __future__ import annotations

import numpy as np

from .._kernels.uniexp import uniexp_pass
from .._validation import Interval
from ._linear_stream import LinearStreamRanker

__all__ = ["OnlineUniExp"]


class OnlineUniExp(LinearStreamRanker):
    """Online point-wise ranking with the class-weighted exponential loss (Kotlowski et al. 2011).

    Kotlowski, Dembczynski and Huellermeier (ICML 2011) show that bipartite
    ranking reduces to the univariate exponential loss weighted by the inverse
    class sizes: the pairwise exponential loss factorizes into a product of
    per-class sums. Online, each arriving instance takes one gradient step on
    its term, with the class weights from the running counts
    (``rho = n / (2 n_y)``; see :mod:`birank._kernels.uniexp`). O(nnz) per
    instance; the fastest learner here (khalid-ray-chitsaz's "Online Uni-Exp").

    Parameters
    ----------
    eta : float, default=0.01
        Constant learning rate (khalid et al. tune it over 2^[-10:10]).
    max_exponent : float, default=30.0
        Cap on the exponent ``-y w.x`` of the loss's gradient, so that a too
        large rate cannot overflow (exp(30) ~ 1e13).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        Minus the best-accuracy score cut on the last chunk with both classes.
    class_count_ : ndarray of shape (2,)
        Weighted counts of the (negative, positive) instances seen.
    n_seen_ : ndarray of shape (2,)
    n_features_in_ : int

    Examples
    --------
    >>> from birank import OnlineUniExp
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = OnlineUniExp(eta=0.05).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    """

    _parameter_constraints = {
        "eta": [Interval("real", 0, None, closed="neither")],
        "max_exponent": [Interval("real", 0, 700, closed="right")],
    }

    def __init__(self, eta=0.01, *, max_exponent=30.0):
        self.eta = eta
        self.max_exponent = max_exponent

    def _init_state(self, d, X):
        return {"w": np.zeros(d), "counts": np.zeros(2)}

    def _run_chunk(self, xa, y01, sw, st):
        uniexp_pass(xa, y01, sw, st["w"], st["counts"], float(self.eta),
                    float(self.max_exponent))
        self.class_count_ = st["counts"].copy()
