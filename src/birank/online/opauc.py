"""OPAUC and OPAUCr: one-pass AUC optimization (Gao, Jin, Zhu, Zhou, ICML 2013)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels.opauc import opauc_full_pass, opauc_sketch_pass
from .._kernels.sparse_rows import rng_init
from .._validation import Interval, Options, draw_seed, kernel_rows
from ..base import data_scaled
from ._stream import StreamRanker
from ._weights import WeightVectorMixin

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import RandomStateLike

__all__ = ["OPAUC", "MAX_FULL_FEATURES"]

#: the largest n_features for the full covariance (two d x d float64 matrices:
#: 2 x 4096^2 x 8 bytes = 256 MiB, and O(d^2) work per instance)
MAX_FULL_FEATURES = 4096


class OPAUC(WeightVectorMixin, StreamRanker):
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
    eta0 : float or "auto", default="auto"
        Constant step size (Gao et al. tune it over 2^[-12:-4]; khalid et al.
        over 2^[-10:10]). ``"auto"``: ``0.008 / c``, c the largest
        eigenvalue of the covariance of the rows of the first ``fit`` /
        ``partial_fit`` chunk (the curvature of the square loss in the
        centered rows along its steepest direction; the step then does not
        depend on the features' scale; 0.008 was chosen with
        benchmarks/bench_defaults.py (one pass, a9a, german.numer, w8a,
        spambase, ionosphere)), at most ``1 / alpha`` (the L2 step
        ``w *= 1 - eta0 alpha`` must not flip w; no cap for ``alpha=0``).
        The value used is ``eta0_``.
    alpha : float, default=1e-4
        L2 regularization lambda (khalid et al. section 4.2: 0.0001).
    shuffle : bool, default=False
        Whether ``fit`` streams the rows in a random order (``partial_fit``
        always uses the given order).
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the sketch vectors of OPAUCr and the shuffle.
    verbose : bool or int, default=False
        Report the rows streamed on stderr during ``fit`` and each
        ``partial_fit`` call (a line at most every 0.2 s, and one at the end of
        the call; see :mod:`birank.online._stream`). The model does not depend
        on it. Off by default, as in scikit-learn; ``birank train`` turns it on
        (``-q``: off).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        Minus the calibrated threshold (see :mod:`birank.online._stream`).
    n_seen_ : int
        Rows streamed so far.
    class_counts_ : ndarray of shape (2,)
        Rows of each class learned from (weight > 0).
    auc_trace_ : ndarray of shape (n_evals, 2)
        ``(n_seen, AUC on eval_set)`` rows, when ``eval_set`` was given.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when they are all strings (a pandas DataFrame).
    probability_ : ndarray of shape (2,)
        ``predict_proba``'s sigmoid slopes ``(a_neg, a_pos)`` below and above the
        threshold (:class:`birank.base.ProbabilityMixin`).
    eta0_ : float
        The eta0 used: ``eta0``, or the value ``"auto"`` resolved on the first
        ``fit`` / ``partial_fit`` chunk (docs/conventions.md).
    class_weight_sum_ : ndarray of shape (2,)
        Summed row weights of the (negative, positive) rows seen (= counts unweighted).
    class_mean_ : ndarray of shape (2, n_features)
    class_covariance_ : ndarray of shape (2, n_features, n_features)
        Full variant only: the covariance (1/T normalization) of each class's
        rows seen so far, Gao et al.'s Gamma.

    Examples
    --------
    >>> from birank import OPAUC
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = OPAUC(eta0=0.01).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    >>> model.class_covariance_.shape
    (2, 13, 13)
    """

    _scale_sensitive = True  # unnormalized gradient steps (see StreamRanker)

    _parameter_constraints = {
        "rank": [None, Interval("integer", 1, None)],
        "eta0": [Options("auto"), Interval("real", 0, None, closed="neither")],
        "alpha": [Interval("real", 0, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def __init__(self, rank: int | None = None, *, eta0: float | Literal["auto"] = "auto",
                 alpha: float = 1e-4, shuffle: bool = False,
                 random_state: RandomStateLike = None,
                 verbose: bool | int = False) -> None:
        self.rank = rank
        self.eta0 = eta0
        self.alpha = alpha
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose


    def _set_data_scaled_defaults(self, X):
        # the L2 step w *= 1 - eta0 alpha must not flip w: eta0 <= 1 / alpha
        self.eta0_ = data_scaled(self.eta0, X, scale=0.008, measure="covariance",
                                 cap=1.0 / self.alpha if self.alpha > 0 else np.inf)

    def _check_n_features(self, d):
        if self.rank is None and d > MAX_FULL_FEATURES:
            raise ValueError(
                f"OPAUC: rank=None keeps two {d} x {d} covariance matrices; n_features "
                f"must be at most {MAX_FULL_FEATURES} for the full covariance. Use the "
                f"low-rank variant OPAUCr, e.g. OPAUC(rank=50).")

    def _init_state(self, d):
        st = {"w": np.zeros(d), "counts": np.zeros(2)}
        if self.rank is None:
            st["moments"] = np.zeros((2, d, d))
            st["sums"] = np.zeros((2, d))
            st["x"], st["z"], st["g"] = np.zeros(d), np.zeros(d), np.zeros(d)
        else:
            tau = int(self.rank)
            st["means"] = np.zeros((2, d))
            st["sketch"] = np.zeros((2, d, tau))
            st["rmeans"] = np.zeros((2, tau))
            st["rng"] = rng_init(draw_seed(self._rng))
            st["seen"] = np.zeros((2, d), dtype=np.int64)
            st["n_seen"] = np.zeros(2, dtype=np.int64)
            st["marked"] = np.zeros((2, d), dtype=np.bool_)
            st["r"] = np.zeros(tau)
            st["u"] = np.zeros(tau)
        self._state = st

    def _kernel_rows(self, X):
        return kernel_rows(X)

    def _learn(self, X, y01, weight, start, stop):
        st = self._state
        if "moments" in st:
            opauc_full_pass(X, y01, weight, start, stop, st["w"], st["counts"], st["sums"],
                            st["moments"], float(self.eta0_), float(self.alpha), st["x"], st["z"],
                            st["g"])
        else:
            opauc_sketch_pass(X, y01, weight, start, stop, st["w"], st["counts"], st["means"],
                              st["rmeans"], st["sketch"], float(self.eta0_), float(self.alpha),
                              st["rng"], st["seen"], st["n_seen"], st["marked"], st["r"],
                              st["u"])


    def _partial_fit(self, *args, **kwargs):
        super()._partial_fit(*args, **kwargs)
        st = self._state
        counts = st["counts"].copy()
        self.class_weight_sum_ = counts
        inv = np.divide(1.0, counts, out=np.zeros(2), where=counts > 0)
        if "moments" in st:
            mean = st["sums"] * inv[:, None]
            # Gao et al.'s Gamma: E[x x'] - c c' per class (1/T normalization)
            self.class_covariance_ = (st["moments"] * inv[:, None, None]
                                      - mean[:, :, None] * mean[:, None, :])
        else:
            mean = st["means"].copy()
        self.class_mean_ = mean
        return self
