"""SPAM: stochastic proximal AUC maximization (Natole, Ying, Lyu, ICML 2018)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels.spam import spam_pass
from .._validation import Interval, Options, kernel_rows
from ..base import data_scaled
from ._stream import StreamRanker
from ._weights import WeightVectorMixin

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import RandomStateLike

__all__ = ["SPAM"]


class SPAM(WeightVectorMixin, StreamRanker):
    """Square-loss AUC maximization by stochastic proximal steps on its saddle form (Natole et al. 2018).

    The pairwise square-loss AUC risk is a saddle-point problem whose inner
    variables are closed-form functions of ``w`` and the class means
    (Natole et al. eqs. (3)-(4)); each arriving instance takes a stochastic
    gradient step in ``w`` and the proximal step of the regularizer
    (Algorithm 1): SPAM-L2 (``penalty='l2'``) or SPAM-NET (``'elasticnet'``).
    The class prior and the class means are running estimates. Cost per
    instance: O(non-zeros of the row) for SPAM-L2 (``w`` and the means are kept
    as scaled vectors), O(d) for SPAM-NET (its soft threshold moves every
    coordinate). See :mod:`birank._kernels.spam` for the update.

    Parameters
    ----------
    eta0 : float or "auto", default="auto"
        Initial step size; step ``t`` uses ``eta0 / t**power_t``. ``"auto"``:
        ``0.3 / c``, c the largest eigenvalue of the covariance of the rows
        of the first ``fit`` / ``partial_fit`` chunk (the curvature of SPAM's
        square loss in the centered rows along its steepest direction;
        scale-free; 0.3 was chosen with benchmarks/bench_defaults.py (one
        pass, a9a, german.numer, w8a, spambase, ionosphere)). The value used
        is ``eta0_``.
    power_t : float, default=0.5
        Decay exponent of the step size (0: constant). Default: birank's
        choice, the ``1/sqrt(t)`` decay of stochastic gradient steps on a
        convex objective that need not be strongly convex (Natole et al.'s
        ``O(log t / t)`` rate is for strongly convex ones), and the default
        ``power_t`` of scikit-learn's ``SGDClassifier``; the ``eta0="auto"``
        constant was tuned with it.
    penalty : {'l2', 'elasticnet'}, default='l2'
        The regularizer whose proximal step follows each gradient step:
        SPAM-L2 or SPAM-NET (Natole et al.'s two variants; see ``alpha``).
        Default: birank's choice, SPAM-L2, which costs O(nnz) per row where
        SPAM-NET costs O(d) (above), as scikit-learn's ``SGDClassifier``
        defaults to ``'l2'``.
    alpha : float, default=1e-4
        Regularization strength added to the mean (per-step) loss, as in
        scikit-learn's ``SGDClassifier``: ``Omega(w) = alpha/2 |w|^2`` for
        ``'l2'``; for ``'elasticnet'``
        ``alpha (1 - l1_ratio)/2 |w|^2 + alpha l1_ratio |w|_1``. Natole et
        al.'s ``beta`` (L2) and ``beta1`` (L1) are ``alpha (1 - l1_ratio)``
        and ``alpha l1_ratio``.
    l1_ratio : float in [0, 1], default=0.15
        The L1 share of ``alpha`` with ``penalty='elasticnet'`` (ignored for
        ``'l2'``); 0.15 is scikit-learn's ``SGDClassifier`` default.
    shuffle : bool, default=False
        Whether ``fit`` streams the rows in a random order (``partial_fit``
        always uses the given order).
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the shuffle (``shuffle=True``); nothing else in SPAM is random.
        None (scikit-learn's default): fresh entropy on every ``fit``.
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
    class_mean_ : ndarray of shape (2, n_features)
    t_ : int
        Rows (of non-zero weight) processed: the step counter.

    Examples
    --------
    >>> from birank import SPAM
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = SPAM(eta0=0.1).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    """

    _scale_sensitive = True  # unnormalized gradient steps (see StreamRanker)

    _parameter_constraints = {
        "eta0": [Options("auto"), Interval("real", 0, None, closed="neither")],
        "power_t": [Interval("real", 0, None, closed="left")],
        "penalty": [Options("l2", "elasticnet")],
        "alpha": [Interval("real", 0, None, closed="left")],
        "l1_ratio": [Interval("real", 0, 1, closed="both")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def __init__(self, eta0: float | Literal["auto"] = "auto", *, power_t: float = 0.5,
                 penalty: Literal["l2", "elasticnet"] = "l2", alpha: float = 1e-4,
                 l1_ratio: float = 0.15, shuffle: bool = False,
                 random_state: RandomStateLike = None,
                 verbose: bool | int = False) -> None:
        self.eta0 = eta0
        self.power_t = power_t
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose


    def _set_data_scaled_defaults(self, X):
        self.eta0_ = data_scaled(self.eta0, X, scale=0.3, measure="covariance")

    def _init_state(self, d):
        # w = scales[0] * state w, class mean k = scales[1 + k] * means[k], dots: their
        # stored vectors' products (birank._kernels.spam._spam_l2_pass)
        self._state = {"w": np.zeros(d), "counts": np.zeros(2), "means": np.zeros((2, d)),
                       "scales": np.ones(3), "dots": np.zeros(2), "t": 0}

    def _kernel_rows(self, X):
        return kernel_rows(X)

    def _learn(self, X, y01, weight, start, stop):
        st = self._state
        # Natole et al.'s beta (L2) and beta1 (L1) from sklearn's (alpha, l1_ratio)
        l1 = float(self.l1_ratio) if self.penalty == "elasticnet" else 0.0
        beta, beta1 = float(self.alpha) * (1.0 - l1), float(self.alpha) * l1
        st["t"] = spam_pass(X, y01, weight, start, stop, st["w"], st["counts"], st["means"],
                            st["scales"], st["dots"], st["t"], float(self.eta0_),
                            float(self.power_t), beta, beta1)
        self.t_ = int(st["t"])
        self.class_mean_ = st["means"] * st["scales"][1:, None]

    def _coef(self):
        return super()._coef() * self._state["scales"][0]

