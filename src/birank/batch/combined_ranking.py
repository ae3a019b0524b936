"""CRR: combined ranking and classification by SGD (Sculley 2010; sofia-ml ``combined-ranking``)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from .._linalg import matvec
from .._kernels.sgd import HINGE, SQUARED_HINGE, crr_sgd
from .._kernels.sparse_rows import rng_init
from .._progress import make_progress
from .._validation import (
    Interval,
    Options,
    check_random_state,
    check_X_y,
    draw_seed,
    encode_binary,
    validate_params,
)
from ..base import BinaryRankerMixin
from ..solvers.dual_cd import xargs

__all__ = ["CombinedRanking"]

#: steps per kernel call; fixed so that results never depend on ``verbose``
_CHUNK = 1 << 18


def all_pairs_mean_loss(s_pos, s_neg, w_pos, w_neg, loss):
    """Weighted mean of ``loss(s_i - s_j)`` over all (positive, negative) pairs, O(N log N).

    A pair is active when ``s_j > s_i - 1``; with ``a = 1 - s_i`` and over the
    active negatives the weighted count, sum and sum of squares ``cnt, S1, S2``,
    a positive contributes ``a cnt + S1`` (hinge) or ``a^2 cnt + 2 a S1 + S2``
    (squared hinge) (DESIGN.md, math notes).
    """
    order = np.argsort(s_neg, kind="mergesort")
    sn, wn = s_neg[order], w_neg[order]
    # suffix sums over negatives sorted by score
    cnt = np.concatenate((np.cumsum(wn[::-1])[::-1], [0.0]))
    s1 = np.concatenate((np.cumsum((wn * sn)[::-1])[::-1], [0.0]))
    s2 = np.concatenate((np.cumsum((wn * sn * sn)[::-1])[::-1], [0.0]))
    first = np.searchsorted(sn, s_pos - 1.0, side="right")  # first negative with s_j > s_i - 1
    a = 1.0 - s_pos
    if loss == "hinge":
        per = a * cnt[first] + s1[first]
    else:
        per = a * a * cnt[first] + 2.0 * a * s1[first] + s2[first]
    return float(w_pos @ per) / (w_pos.sum() * w_neg.sum())


class CombinedRanking(BinaryRankerMixin, BaseEstimator):
    """Combined ranking and classification by SGD: CRR (Sculley 2010), as sofia-ml runs it.

    Pegasos-style SGD on ::

        alpha/2 |w|^2 + (1 - p) mean_k loss(y_k w.x_k) + p mean_(i,j) loss(w.(x_i - x_j))

    Each step draws, with probability ``p = rank_probability``, a uniform
    random (positive, negative) pair and takes a rank step on ``x_i - x_j``,
    otherwise a uniform random point and takes a classification step; the
    step size is ``1 / (alpha t)``. This is sofia-ml's
    ``--learner_type sgd-svm --loop_type combined-ranking`` (with
    ``projection=True``: ``--learner_type pegasos``).

    Parameters
    ----------
    alpha : float, default=1e-4
        Regularization lambda: sofia-ml ``--lambda``. shen-lin section 4.1 sets
        ``lambda = 1 / (B C)`` for budget B and global C (``alpha=1/(B*C)``).
    rank_probability : float in [0, 1], default=0.5
        sofia-ml ``--rank_step_probability``; 1 gives pure pairwise SGD
        (sofia-ml ``--loop_type roc``), 0 a point-wise SVM.
    n_iter : int, default=100000
        SGD steps per ``fit`` / ``partial_fit`` call: sofia-ml ``--iterations``.
    loss : {'hinge', 'squared_hinge'}, default='hinge'
        sofia-ml's ``sgd-svm`` uses the hinge loss on both kinds of step.
    projection : bool, default=False
        Project w onto the ball of radius ``1/sqrt(alpha)`` after each step (Pegasos).
    fit_intercept : bool, default=True
        Append a constant feature 1 (regularized, as sofia-ml does unless
        ``--no_bias_term``); its weight is ``intercept_``. It cancels in pairs.
    random_state : None, int or numpy Generator, default=None
    verbose : bool, default=False

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        The weight of the bias feature when it was learned (``fit_intercept``
        and ``rank_probability < 1``); otherwise minus the score cut of best
        training accuracy, so that ``predict`` is ``decision_function > 0``.
    t_ : int
        Total SGD steps taken (the step counter of the learning rate).
    n_iter_ : int
        Steps of the last call.
    n_rank_steps_ : int
        How many of them were rank steps.
    objective_ : float
        The objective above on the data of the last call (all pairs, exact, by sorting).
    n_features_in_ : int

    Notes
    -----
    ``sample_weight`` scales the gradient of a point by its weight and of a pair
    ``(i, j)`` by ``sw_i * sw_j`` (uniform sampling with weighted steps is an
    unbiased step on the weighted objective).

    Examples
    --------
    >>> from birank import CombinedRanking
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = CombinedRanking(alpha=1e-2, n_iter=20000, random_state=0).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    >>> model.n_rank_steps_ > 0
    True
    """

    _parameter_constraints = {
        "alpha": [Interval("real", 0, None, closed="neither")],
        "rank_probability": [Interval("real", 0, 1, closed="both")],
        "n_iter": [Interval("integer", 1, None)],
        "loss": [Options("hinge", "squared_hinge")],
        "projection": ["boolean"],
        "fit_intercept": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def __init__(self, alpha=1e-4, *, rank_probability=0.5, n_iter=100000, loss="hinge",
                 projection=False, fit_intercept=True, random_state=None, verbose=False):
        self.alpha = alpha
        self.rank_probability = rank_probability
        self.n_iter = n_iter
        self.loss = loss
        self.projection = projection
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Run ``n_iter`` SGD steps from w = 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two label values; the larger one is the positive class.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        for attr in ("classes_", "coef_", "_rng", "t_", "_bias"):
            if hasattr(self, attr):
                delattr(self, attr)
        return self._partial_fit(X, y, None, sample_weight, reset=True)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Run ``n_iter`` more SGD steps, sampling from this chunk, continuing the step count.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (2,), default=None
            The two label values; needed on the first call unless y holds both.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._partial_fit(X, y, classes, sample_weight, reset=not hasattr(self, "coef_"))

    def _partial_fit(self, X, y, classes, sample_weight, reset):
        validate_params(self)
        X, y = check_X_y(self, X, y, reset=reset)
        name = type(self).__name__
        if reset:
            if classes is None:
                self.classes_, _ = encode_binary(y)
            else:
                labels = np.unique(np.asarray(classes))
                if labels.shape[0] != 2:
                    raise ValueError(f"{name}: classes must hold exactly two label values for "
                                     f"bipartite ranking; got {labels!r}.")
                self.classes_ = labels
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(f"{name}: y holds label(s) {np.unique(y[unknown])!r} not in "
                             f"classes_ {self.classes_!r}.")
        y01 = (y == self.classes_[1]).astype(np.int8)
        n, d = X.shape
        if sample_weight is None:
            sw = np.ones(n)
        else:
            sw = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
            if sw.shape[0] != n:
                raise ValueError(f"{name}: sample_weight has {sw.shape[0]} entries; X has "
                                 f"{n} rows.")
            if not np.all(np.isfinite(sw)) or np.any(sw < 0):
                raise ValueError(f"{name}: sample_weight must be finite and non-negative.")
            if not np.any(sw > 0):
                raise ValueError(f"{name}: sample_weight is zero everywhere: nothing to fit.")
        if reset:
            self._rng = check_random_state(self.random_state)
            self.t_ = 0
            w = np.zeros(d + 1)
        else:
            w = np.r_[self.coef_, self._bias]
        y_pm = np.where(y01 == 1, 1.0, -1.0)
        pos = np.flatnonzero(y01 == 1).astype(np.int64)
        neg = np.flatnonzero(y01 == 0).astype(np.int64)
        state = rng_init(draw_seed(self._rng))
        loss_code = HINGE if self.loss == "hinge" else SQUARED_HINGE
        report = make_progress(self.verbose, name)
        done, n_rank = 0, 0
        xa = xargs(X)
        while done < self.n_iter:
            steps = min(_CHUNK, self.n_iter - done)
            n_rank += crr_sgd(xa, y_pm, sw, pos, neg, w, float(self.alpha), self.t_ + done,
                              steps, float(self.rank_probability), loss_code,
                              bool(self.projection), bool(self.fit_intercept), state)
            done += steps
            report(done, self.n_iter, f"|w|={np.sqrt(w @ w):.4g}")
        self.t_ += self.n_iter
        self.n_iter_ = self.n_iter
        self.n_rank_steps_ = int(n_rank)
        self.coef_ = w[:d].copy()
        self._bias = float(w[d])  # the SGD's own bias weight, continued by partial_fit
        self.intercept_ = self._bias if self.fit_intercept else 0.0
        self.objective_ = self._objective(X, y01, y_pm, sw)
        # only classification steps move the bias; without them choose the cut
        learned = self.fit_intercept and self.rank_probability < 1.0
        if y01.min() < y01.max():  # (a one-class chunk of partial_fit has no cut)
            self._set_threshold(X, y01, learned_bias=learned)
        return self

    def _objective(self, X, y01, y_pm, sw):
        s = matvec(X, self.coef_) + self.intercept_  # no float64 copy of a float32 X
        m = y_pm * s
        xi = np.maximum(0.0, 1.0 - m)
        if self.loss == "squared_hinge":
            xi = xi * xi
        point = float(sw @ xi) / sw.sum()
        reg = 0.5 * self.alpha * (self.coef_ @ self.coef_ + self.intercept_**2)
        p = self.rank_probability
        obj = reg + (1.0 - p) * point
        pos, neg = y01 == 1, y01 == 0
        if p > 0 and pos.any() and neg.any() and sw[pos].sum() > 0 and sw[neg].sum() > 0:
            obj += p * all_pairs_mean_loss(s[pos], s[neg], sw[pos], sw[neg], self.loss)
        return float(obj)
