"""OnlineUniExp: bipartite ranking by the online weighted univariate exponential loss."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from .._kernels.uniexp import uniexp_pass
from .._validation import Interval, Options, kernel_rows
from ..base import data_scaled
from ._stream import StreamRanker
from ._weights import WeightVectorMixin

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import RandomStateLike

__all__ = ["OnlineUniExp"]


class OnlineUniExp(WeightVectorMixin, StreamRanker):
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
    eta0 : float or "auto", default="auto"
        Constant learning rate (khalid et al. tune it over 2^[-10:10]).
        ``"auto"``: ``0.025 / v``, v the spread ``mean |x|^2 - |mean x|^2``
        of the rows of the first ``fit`` / ``partial_fit`` chunk (the pairwise
        exponential loss that this one factorizes sees only the differences
        ``x_i - x_j``, whose mean square is ``2 v``; scale-free; 0.025 was
        chosen with benchmarks/bench_defaults.py (one pass, a9a, german.numer,
        w8a, spambase, ionosphere)). The value used is ``eta0_``.
    max_exponent : float, default=30.0
        Cap on the exponent ``-y w.x`` of the loss's gradient, so that a too
        large rate cannot overflow (exp(30) ~ 1e13).
    shuffle : bool, default=False
        Whether ``fit`` streams the rows in a random order (``partial_fit``
        always uses the given order).
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the shuffle (``shuffle=True``); nothing else in OnlineUniExp is
        random. None (scikit-learn's default): fresh entropy on every ``fit``.
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
        Summed row weights of the (negative, positive) rows seen: the running class sizes.

    Examples
    --------
    >>> from birank import OnlineUniExp
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = OnlineUniExp(eta0=0.05).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    """

    _scale_sensitive = True  # unnormalized gradient steps (see StreamRanker)

    _parameter_constraints = {
        "eta0": [Options("auto"), Interval("real", 0, None, closed="neither")],
        "max_exponent": [Interval("real", 0, 700, closed="right")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def __init__(self, eta0: float | Literal["auto"] = "auto", *, max_exponent: float = 30.0,
                 shuffle: bool = False, random_state: RandomStateLike = None,
                 verbose: bool | int = False) -> None:
        self.eta0 = eta0
        self.max_exponent = max_exponent
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose


    def _set_data_scaled_defaults(self, X):
        self.eta0_ = data_scaled(self.eta0, X, scale=0.025, measure="spread")

    def _init_state(self, d):
        self._state = {"w": np.zeros(d), "counts": np.zeros(2), "capped": 0}

    def _kernel_rows(self, X):
        return kernel_rows(X)

    def _learn(self, X, y01, weight, start, stop):
        st = self._state
        st["capped"] += uniexp_pass(X, y01, weight, start, stop, st["w"], st["counts"],
                                    float(self.eta0_), float(self.max_exponent))
        self.class_weight_sum_ = st["counts"].copy()

    def _coef(self):
        w = super()._coef()
        st = self._state
        capped, st["capped"] = st.get("capped", 0), 0
        if capped:
            # a margin below -max_exponent: the exponential loss blew up and the step
            # was clipped; the weights then grow without bound (7e13 was seen)
            warnings.warn(
                f"OnlineUniExp: {capped} step(s) hit the exponent cap max_exponent="
                f"{self.max_exponent} (margins below -{self.max_exponent}: the loss "
                f"diverges) and the coefficients reached {np.abs(w).max():.3g}; lower eta0="
                f"{self.eta0!r} or scale the features.", UserWarning, stacklevel=4)
        return w

