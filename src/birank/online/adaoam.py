"""AdaOAM: adaptive-gradient online AUC maximization (Ding, Zhao, Hoi & Ong, AAAI 2015)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels.adaoam_updates import adaoam_stream
from .._validation import Interval, Options
from ..base import data_scaled
from ._buffers import csr_blocks, sparse_kernel_rows
from ._stream import StreamRanker

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import RandomStateLike

__all__ = ["AdaOAM", "MAX_ADAOAM_FEATURES"]

#: AdaOAM keeps a d x d second moment per class and spends O(d^2) per row
MAX_ADAOAM_FEATURES = 1000


class AdaOAM(StreamRanker):
    """Online AUC maximization with AdaGrad steps on OPAUC's one-pass square loss.

    For each arriving row ``x_t`` of label ``y``, the gradient of
    ``alpha/2 |w|^2 + mean_x (1 - y w.(x_t - x))^2 / 2`` over all rows x of the
    other class seen so far comes from that class's count, mean and covariance
    (Gao et al. 2013); the step is AdaGrad's diagonal one (Ding et al. 2015,
    Alg. 1): ``w -= eta0 g / (delta + sqrt(sum of g^2))``. No buffer:
    the state is two class means and two d x d second moments, so it is for
    dense data of moderate dimension (at most ``MAX_ADAOAM_FEATURES`` = 1000).

    Parameters
    ----------
    eta0 : float or "auto", default="auto"
        AdaGrad step size (eta). ``"auto"``: ``0.15 / sqrt(m)``, m the mean
        squared row norm of the first ``fit`` / ``partial_fit`` chunk (AdaGrad
        normalizes the gradient's size, so only the weights' scale ``1/|x|``
        is left; 0.15 was chosen with benchmarks/bench_defaults.py (one pass,
        a9a, german.numer, w8a, spambase, ionosphere)), at most ``1 / alpha``
        (``eta0 alpha <= 1`` bounds the L2 term's part of a step, the cap
        OPAUC and PGD use; no cap for ``alpha=0``). The value used is
        ``eta0_``.
    delta : float, default=0.5
        AdaGrad smoothing added to the root of the summed squared gradients
        (khalid-ray-chitsaz use 0.5).
    alpha : float, default=1e-4
        L2 regularization lambda (khalid-ray-chitsaz use 1e-4).
    shuffle : bool, default=False
        Whether ``fit`` streams the rows in a random order.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the shuffle.
    verbose : bool or int, default=False
        Report the rows streamed on stderr during ``fit`` and each
        ``partial_fit`` call (a line at most every 0.2 s, and one at the end of
        the call; see :mod:`birank.online._stream`). The model does not depend
        on it. Off by default, as in scikit-learn; ``birank train`` turns it on
        (``-q``: off).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        Minus the calibrated threshold (see :mod:`birank.online._stream`).
    classes_ : ndarray of shape (2,)
    n_seen_ : int
    class_counts_ : ndarray of shape (2,)
    auc_trace_ : ndarray of shape (n_evals, 2)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when they are all strings (a pandas DataFrame).
    probability_ : ndarray of shape (2,)
        ``predict_proba``'s sigmoid slopes ``(a_neg, a_pos)`` below and above the
        threshold (:class:`birank.base.ProbabilityMixin`).
    eta0_ : float
        The eta0 used: ``eta0``, or the value ``"auto"`` resolved on the first
        ``fit`` / ``partial_fit`` chunk (docs/conventions.md).

    Examples
    --------
    >>> from birank import AdaOAM
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = AdaOAM(eta0=0.05).fit(X[:200], y[:200])
    >>> round(model.score(X[200:], y[200:]), 2) > 0.8
    True
    """

    _scale_sensitive = True  # unnormalized gradient steps (see StreamRanker)

    _parameter_constraints = {
        "eta0": [Options("auto"), Interval("real", 0, None, closed="neither")],
        "delta": [Interval("real", 0, None, closed="neither")],
        "alpha": [Interval("real", 0, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def __init__(self, eta0: float | Literal["auto"] = "auto", *, delta: float = 0.5,
                 alpha: float = 1e-4, shuffle: bool = False,
                 random_state: RandomStateLike = None,
                 verbose: bool | int = False) -> None:
        self.eta0 = eta0
        self.delta = delta
        self.alpha = alpha
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose


    def _set_data_scaled_defaults(self, X):
        self.eta0_ = data_scaled(self.eta0, X, scale=0.15, power=0.5,
                                 cap=1.0 / self.alpha if self.alpha > 0 else np.inf)

    def _check_n_features(self, n_features):
        if n_features > MAX_ADAOAM_FEATURES:
            raise ValueError(
                f"AdaOAM keeps two {n_features} x {n_features} second-moment matrices and "
                f"costs O(d^2) per row; it is limited to {MAX_ADAOAM_FEATURES} features. "
                "Use CBR(covariance='diag') or OAM for high-dimensional data.")

    def _init_state(self, n_features):
        d = n_features
        self._state = {
            "w": np.zeros(d), "counts": np.zeros(2), "sums": np.zeros((2, d)),
            "second": np.zeros((2, d, d)), "sqgrad": np.zeros(d),
            "diff": np.zeros(d), "grad": np.zeros(d),
        }

    def _kernel_rows(self, X):
        return sparse_kernel_rows(X)

    def _learn(self, rows, y01, weight, start, stop):
        st = self._state
        for (data, indices, indptr), y_b, w_b, t0, t1 in csr_blocks(rows, y01, weight,
                                                                    start, stop):
            adaoam_stream(data, indices, indptr, y_b, w_b, t0, t1, st["w"], st["counts"],
                          st["sums"], st["second"], st["sqgrad"], float(self.eta0_),
                          float(self.delta), float(self.alpha), st["diff"], st["grad"])

    def _coef(self):
        return self._state["w"].copy()
