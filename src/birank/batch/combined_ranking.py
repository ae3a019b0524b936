"""CRR: combined ranking and classification by SGD (Sculley 2010; sofia-ml ``combined-ranking``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator

from .._kernels.losses import loss_code
from .._kernels.sgd import crr_sgd
from .._linalg import dot, matvec, norm
from .._kernels.sparse_rows import rng_init
from .._progress import make_progress
from .._threshold_tail import ThresholdTail
from .._validation import (
    Interval,
    Options,
    check_random_state,
    check_sample_weight,
    check_X_y,
    draw_seed,
    kernel_rows,
    validate_params,
)
from ..base import BinaryRankerMixin, OnlineRankerMixin, data_scaled, warn_if_badly_scaled

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import RandomStateLike

__all__ = ["CombinedRanking"]

#: steps per kernel call; fixed so that results never depend on ``verbose``
_CHUNK = 1 << 18


def all_pairs_mean_loss(s_pos, s_neg, w_pos, w_neg, loss):
    """Weighted mean of ``loss(s_i - s_j)`` over all (positive, negative) pairs, O(N log N).

    A pair is active when ``s_j > s_i - 1``; with ``a = 1 - s_i`` and over the
    active negatives the weighted count, sum and sum of squares ``cnt, S1, S2``,
    a positive contributes ``a cnt + S1`` (hinge) or ``a^2 cnt + 2 a S1 + S2``
    (squared hinge): the sum over active j of ``a + s_j`` and of ``(a + s_j)^2``.
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
    return dot(w_pos, per) / (w_pos.sum() * w_neg.sum())


class CombinedRanking(OnlineRankerMixin, BinaryRankerMixin, BaseEstimator):
    """Combined ranking and classification by SGD: CRR (Sculley 2010), as sofia-ml runs it.

    Pegasos-style SGD on ::

        alpha/2 |w|^2 + (1 - p) mean_k loss(y_k w.x_k) + p mean_(i,j) loss(w.(x_i - x_j))

    Each step draws, with probability ``p = rank_probability``, a uniform
    random (positive, negative) pair and takes a rank step on ``x_i - x_j``,
    otherwise a uniform random point and takes a classification step; the
    step size is ``1 / (alpha t)``. This is sofia-ml's
    ``--learner_type sgd-svm --loop_type combined-ranking`` (with
    ``projection=True``: ``--learner_type pegasos``).

    Defaults and their origin: ``max_iter=100000``, ``rank_probability=0.5``
    and the hinge loss are sofia-ml's defaults for ``sgd-svm`` with
    ``combined-ranking``, which shen-lin kept. ``alpha="auto"`` is a
    data-scaled rule, not a paper's (shen-lin set ``lambda = 1 / (B C)``,
    1.25e-3 at their B=8000, C=0.1): ``1e-4 m``, m the mean squared row norm
    (scaling X by s leaves the scores of the 1/(alpha t) steps unchanged);
    1e-4 at m = 1 is scikit-learn's ``SGDClassifier`` default, and the rule
    was checked against the best alpha in 1e-6..1e-2 on a9a, german.numer,
    w8a, spambase and ionosphere (benchmarks/bench_defaults.py), where the
    fixed 1e-4 lost up to 0.04 AUC. SGD is not scale invariant otherwise:
    ``fit`` warns when the rows' typical norm is outside [1e-3, 1e3].

    Parameters
    ----------
    alpha : float or "auto", default="auto"
        Regularization lambda: sofia-ml ``--lambda``. ``"auto"``: ``1e-4 m``
        (see above) from the first ``fit`` / ``partial_fit`` chunk; the value
        used is ``alpha_``. shen-lin section 4.1 sets
        ``lambda = 1 / (B C)`` for budget B and global C (``alpha=1/(B*C)``).
    rank_probability : float in [0, 1], default=0.5
        sofia-ml ``--rank_step_probability``; 1 gives pure pairwise SGD
        (sofia-ml ``--loop_type roc``), 0 a point-wise SVM.
    max_iter : int, default=100000
        SGD steps per ``fit`` / ``partial_fit`` call: sofia-ml ``--iterations``.
    loss : {'hinge', 'squared_hinge'}, default='hinge'
        sofia-ml's ``sgd-svm`` uses the hinge loss on both kinds of step. The
        squared hinge keeps w in the ball of radius ``sqrt(2/alpha)``, which holds
        the optimum (``alpha/2 |w*|^2 <= F(0) = 1``): its gradient is unbounded, and
        the first steps of size ``1/(alpha t)`` would otherwise run w to infinity.
    projection : bool, default=False
        Project w onto the ball of radius ``1/sqrt(alpha)`` after each step (Pegasos).
    fit_intercept : bool, default=True
        Append a constant feature 1 (regularized, as sofia-ml does unless
        ``--no_bias_term``); its weight is ``intercept_``. It cancels in pairs.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the SGD's draws (rank or classification step, which pair or
        point): the same int gives the same model. None (scikit-learn's
        default): fresh entropy on every ``fit``.
    verbose : bool or int, default=False
        Report progress (steps done and ``|w|``) on stderr; the model does not
        depend on it. Off by default as in scikit-learn (the CLI turns it on).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        The weight of the bias feature when it was learned (``fit_intercept``
        and ``rank_probability < 1``); otherwise minus the score where the
        training sigmoid is 1/2 (:func:`birank.base.decision_cut`), so that
        ``predict`` is ``decision_function > 0``. After ``partial_fit`` the
        sigmoid and the cut come from the last 1000 rows of each class over all
        chunks, weighted to the class's total (:mod:`birank._threshold_tail`).
    t_ : int
        Total SGD steps taken (the step counter of the learning rate).
    n_iter_ : int
        Steps of the last call.
    n_rank_steps_ : int
        How many of them were rank steps.
    objective_ : float
        The objective above on the data of the last call (all pairs, exact, by sorting).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when they are all strings (a pandas DataFrame).
    probability_ : ndarray of shape (2,)
        ``predict_proba``'s sigmoid slopes ``(a_neg, a_pos)`` below and above the
        threshold (:class:`birank.base.ProbabilityMixin`).
    alpha_ : float
        The alpha used: ``alpha``, or the value ``"auto"`` resolved on the first
        ``fit`` / ``partial_fit`` chunk (docs/conventions.md).

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
    >>> model = CombinedRanking(alpha=1e-2, max_iter=20000, random_state=0).fit(X, y)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    >>> model.n_rank_steps_ > 0
    True
    """

    _parameter_constraints = {
        "alpha": [Options("auto"), Interval("real", 0, None, closed="neither")],
        "rank_probability": [Interval("real", 0, 1, closed="both")],
        "max_iter": [Interval("integer", 1, None)],
        "loss": [Options("hinge", "squared_hinge")],
        "projection": ["boolean"],
        "fit_intercept": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    _online_private_state = ("_rng", "_bias", "_tail")

    def __init__(self, alpha: float | Literal["auto"] = "auto", *, rank_probability: float = 0.5,
                 max_iter: int = 100000, loss: Literal["hinge", "squared_hinge"] = "hinge",
                 projection: bool = False, fit_intercept: bool = True,
                 random_state: RandomStateLike = None, verbose: bool | int = False) -> None:
        self.alpha = alpha
        self.rank_probability = rank_probability
        self.max_iter = max_iter
        self.loss = loss
        self.projection = projection
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.verbose = verbose

    def _partial_fit(self, X, y, classes, sample_weight, *, refit=False):
        """``max_iter`` SGD steps on this chunk, from w = 0 on the first call (OnlineRankerMixin).

        ``fit`` runs ``max_iter`` steps from w = 0; ``partial_fit`` runs ``max_iter``
        more, sampling from its chunk and continuing the step count ``t_``.
        """
        validate_params(self)
        first = self._is_first_call()
        X, y = check_X_y(self, X, y, reset=first)
        name = type(self).__name__
        sw = check_sample_weight(sample_weight, X.shape[0], y=y if refit else None)
        y01 = self._encode_chunk(y, classes)  # (sets classes_ on the first call: last check)
        reset = first
        if reset:
            warn_if_badly_scaled(self, X)
        n, d = X.shape
        if sw is None:
            sw = np.ones(n)
        if reset:
            self._rng = check_random_state(self.random_state)
            self.alpha_ = data_scaled(self.alpha, X, scale=1e-4, power=-1.0)
            self.t_ = 0
            w = np.zeros(d + 1)
        else:
            w = np.r_[self.coef_, self._bias]
        y_pm = np.where(y01 == 1, 1.0, -1.0)
        pos = np.flatnonzero(y01 == 1).astype(np.int64)
        neg = np.flatnonzero(y01 == 0).astype(np.int64)
        state = rng_init(draw_seed(self._rng))
        report = make_progress(self.verbose, name)
        done, n_rank = 0, 0
        xa = kernel_rows(X, indicator=True)  # 0/1 features: the values are not read
        while done < self.max_iter:
            steps = min(_CHUNK, self.max_iter - done)
            n_rank += crr_sgd(xa, y_pm, sw, pos, neg, w, self.alpha_, self.t_ + done,
                              steps, float(self.rank_probability), loss_code(self.loss),
                              bool(self.projection), bool(self.fit_intercept), state)
            done += steps
            report(done, self.max_iter, f"|w|={norm(w):.4g}" if self.verbose else "")
        if not np.all(np.isfinite(w)):  # (the balls above keep it finite; a last guard)
            raise ValueError(f"{name}: the SGD weights diverged (NaN or inf) at "
                             f"alpha={self.alpha_:g}; use a larger alpha, projection=True "
                             "or the hinge loss.")
        self.t_ += self.max_iter
        self.n_iter_ = self.max_iter
        self.n_rank_steps_ = int(n_rank)
        self.coef_ = w[:d].copy()
        self._bias = float(w[d])  # the SGD's own bias weight, continued by partial_fit
        self.intercept_ = self._bias if self.fit_intercept else 0.0
        self.objective_ = self._objective(X, y01, y_pm, sw)
        # only classification steps move the bias; without them choose the cut
        learned = self.fit_intercept and self.rank_probability < 1.0
        if reset:
            self._tail = ThresholdTail()
        self._tail.update(X, y01, sw)
        if refit:  # fit: the cut on every training row
            self._set_threshold(X, y01, learned_bias=learned,
                                sample_weight=None if sample_weight is None else sw)
        else:  # partial_fit: the chunks seen, by their tails (one class in a chunk is fine)
            self._tail.set_output(self, learned_bias=learned)
        return self

    def _objective(self, X, y01, y_pm, sw):
        s = matvec(X, self.coef_) + self.intercept_  # no float64 copy of a float32 X
        m = y_pm * s
        xi = np.maximum(0.0, 1.0 - m)
        if self.loss == "squared_hinge":
            xi = xi * xi
        point = dot(sw, xi) / sw.sum()
        reg = 0.5 * self.alpha_ * (dot(self.coef_, self.coef_) + self.intercept_**2)
        p = self.rank_probability
        obj = reg + (1.0 - p) * point
        pos, neg = y01 == 1, y01 == 0
        if p > 0 and pos.any() and neg.any() and sw[pos].sum() > 0 and sw[neg].sum() > 0:
            obj += p * all_pairs_mean_loss(s[pos], s[neg], sw[pos], sw[neg], self.loss)
        return float(obj)
