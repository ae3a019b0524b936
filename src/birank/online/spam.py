"""SPAM: stochastic proximal AUC maximization (Natole, Ying, Lyu, ICML 2018)."""

from __future__ import annotations

import numpy as np

from .._kernels.spam import spam_pass
from .._validation import Interval, Options
from ..solvers.dual_cd import xargs
from ._stream import StreamRanker
from ._weights import WeightVectorMixin

__all__ = ["SPAM"]


class SPAM(WeightVectorMixin, StreamRanker):
    """Square-loss AUC maximization by stochastic proximal steps on its saddle form (Natole et al. 2018).

    The pairwise square-loss AUC risk is a saddle-point problem whose inner
    variables are closed-form functions of ``w`` and the class means
    (Natole et al. eqs. (3)-(4)); each arriving instance takes a stochastic
    gradient step in ``w`` and the proximal step of the regularizer
    (Algorithm 1): SPAM-L2 (``penalty='l2'``) or SPAM-NET (``'elasticnet'``).
    The class prior and the class means are running estimates. O(d) per instance.
    See :mod:`birank._kernels.spam` for the update.

    Parameters
    ----------
    eta : float, default=0.05
        Learning rate; step ``t`` uses ``eta / t**power_t``.
    power_t : float, default=0.5
        Decay exponent of the step size (0: constant).
    penalty : {'l2', 'elasticnet'}, default='l2'
    beta : float, default=1e-4
        L2 strength: ``Omega(w) = beta/2 |w|^2 (+ beta1 |w|_1)``.
    beta1 : float, default=1e-4
        L1 strength, used only with ``penalty='elasticnet'``.
    shuffle : bool, default=False
        Whether ``fit`` streams the rows in a random order (``partial_fit``
        always uses the given order).
    random_state : None, int or numpy Generator, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        Minus the best-accuracy score cut (see :mod:`birank.online._stream`).
    n_seen_ : int
        Rows streamed so far.
    class_counts_ : ndarray of shape (2,)
        Rows of each class learned from (weight > 0).
    auc_trace_ : ndarray of shape (n_evals, 2)
        ``(n_seen, AUC on eval_set)`` rows, when ``eval_set`` was given.
    n_features_in_ : int
    class_mean_ : ndarray of shape (2, n_features)
    t_ : int
        Rows (of non-zero weight) processed: the step counter.

    Examples
    --------
    >>> from birank import SPAM
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = SPAM(eta=0.1).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    """

    _scale_sensitive = True  # unnormalized gradient steps (see StreamRanker)

    _parameter_constraints = {
        "eta": [Interval("real", 0, None, closed="neither")],
        "power_t": [Interval("real", 0, None, closed="left")],
        "penalty": [Options("l2", "elasticnet")],
        "beta": [Interval("real", 0, None, closed="left")],
        "beta1": [Interval("real", 0, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, eta=0.05, *, power_t=0.5, penalty="l2", beta=1e-4, beta1=1e-4,
                 shuffle=False, random_state=None):
        self.eta = eta
        self.power_t = power_t
        self.penalty = penalty
        self.beta = beta
        self.beta1 = beta1
        self.shuffle = shuffle
        self.random_state = random_state

    def _init_state(self, d):
        self._state = {"w": np.zeros(d), "counts": np.zeros(2), "means": np.zeros((2, d)),
                       "t": 0}

    def _kernel_rows(self, X):
        return xargs(X)

    def _learn(self, X, y01, weight, start, stop):
        st = self._state
        beta1 = float(self.beta1) if self.penalty == "elasticnet" else 0.0
        st["t"] = spam_pass(X, y01, weight, start, stop, st["w"], st["counts"], st["means"],
                            st["t"], float(self.eta), float(self.power_t), float(self.beta),
                            beta1)
        self.t_ = int(st["t"])
        self.class_mean_ = st["means"].copy()

