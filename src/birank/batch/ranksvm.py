"""Exact all-pairs linear RankSVM in O(N log N + nnz) per pass (shen-lin ERankSVM)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from .._kernels.labels import scannable, two_values
from .._linalg import matvec
from .._parallel import resolve_n_jobs
from .._progress import Progress, make_progress
from .._validation import (Interval, NonzeroInteger, Options, check_graded_labels,
                           check_groups, check_sample_weight, check_X_y, validate_params)
from ..base import RankerMixin, set_two_class_output
from ..solvers.all_pairs import solve_all_pairs

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from .._typing import ArrayLike, FloatArray, MatrixLike, Self

__all__ = ["RankSVM"]


class RankSVM(RankerMixin, BaseEstimator):
    """Linear RankSVM over *all* ordered pairs, without enumerating them.

    Minimizes::

        1/2 |w|^2 + C * sum_{(i, j): y_i > y_j} c_ij * loss(1 - w.(x_i - x_j))

    over every pair with ``y_i > y_j`` (inside the same group when ``groups``
    is given; equal labels form no pair), with pair weight
    ``c_ij = sample_weight[i] * sample_weight[j]`` (so an integer weight k acts
    exactly like k copies of the row). There is no intercept: it cancels in
    pairs. Loss, gradient and Hessian-vector products over all pairs come from
    sorting the scores and sweeping with prefix sums (two labels) or Fenwick
    trees over the label ranks or their 10-bit digits (graded or real-valued
    labels), O(N log N + nnz) per pass (Chapelle & Keerthi 2010; Lee & Lin
    2014). In time, a Hessian-vector product costs about 1.0-1.3 times the two
    plain sparse products ``X v`` and ``X' u`` with two labels, and 2.2-2.7
    times with all-distinct real-valued labels (10^5-10^6 rows,
    ``benchmarks/bench_limit.py``). On a CSR X of 0/1 features (one-hot
    columns, bags of words) the products do not read the values: the same
    coefficients, a binary-label fit about 0.8 times the time at 10^6 rows
    (``benchmarks/bench_indicator.py``).

    Defaults and their origin: ``C=1`` and the squared hinge are
    liblinear-ranksvm's defaults (Lee & Lin 2014: L2-loss RankSVM, ``-c 1``);
    ``tol=1e-4`` (relative gradient norm) and ``max_iter=1000`` are birank's
    choices, tight enough that the tests match a brute-force all-pairs solver.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the summed pair loss (not averaged: the loss grows with the
        number of pairs, as in liblinear-ranksvm).
    loss : {"squared_hinge", "hinge"}, default="squared_hinge"
        ``"squared_hinge"``: truncated Newton (diagonally preconditioned CG on
        the generalized Hessian, Armijo line search). ``"hinge"``: Huber
        smoothing with width delta = 0.1, 0.01, ..., each stage solved by
        the same Newton method (the smoothed loss is a difference of two
        squared hinges at margins 1 and 1 - delta), stopped by a duality gap
        certified after every Newton iteration.
    tol : float, default=1e-4
        Squared hinge: stop when ``|grad f(w)| <= tol * |grad f(0)|``.
        Hinge: stop when ``(P(w) - D) <= tol * P(w)``, with P the exact hinge
        objective and D the dual value of a feasible dual point built from w
        (a lower bound on the optimum).
    max_iter : int, default=1000
        Newton iterations (in total over the smoothing stages for the hinge).
    verbose : bool or int, default=False
        Report progress on stderr, one line per Newton iteration: objective,
        gradient norm, CG steps and step size (squared hinge); smoothing width,
        objective, certified lower bound and duality gap (hinge). The model does
        not depend on it. Off by default, as in scikit-learn; ``birank train``
        turns it on (``-q``: off).
    n_jobs : int, default=None
        Threads (scikit-learn's meaning: None is 1 unless in a joblib
        ``parallel_config``, -1 all cores) for the products with a sparse X and,
        without ``groups`` and with two label values, for the sort of the scores
        and the pair sweeps; without ``groups`` and with more label values, for
        the sort, the loss sweep and the Hessian product's replay of the pairs;
        with ``groups`` (from 2^16 rows), for each group's sort, the loss sweep and
        the Hessian product, over runs of whole groups;
        also for the probability calibration's passes over the training scores
        and ``decision_function`` on a sparse X. Fixed row
        blocks and fixed chunks of the score order, summed in a fixed order: the
        same coefficients for every integer value (None runs the one-thread
        solver kernels, equal to those to rounding; the calibration and the
        scores are the same bits for None too). A dense X's products are
        BLAS's, whose threads follow ``threadpoolctl`` / ``OMP_NUM_THREADS``,
        not ``n_jobs`` (as in scikit-learn).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        0.0 for graded / real-valued labels (a shift cancels in pairs); for two
        label values, minus the score where the training sigmoid is 1/2
        (:func:`birank.base.decision_cut`), so that ``predict`` is
        ``decision_function > 0``.
    classes_ : ndarray of shape (2,)
        Only when ``y`` has exactly two values (the larger is ranked higher).
        Then ``predict`` returns labels from ``classes_`` and ``predict_proba``
        Platt's calibrated probabilities (:class:`birank.base.ProbabilityMixin`);
        for graded or real-valued ``y``, ``predict`` returns the ranking scores
        (``decision_function``) and there is no ``predict_proba``.
    probability_ : ndarray of shape (2,)
        Two classes only: the sigmoid slopes ``(a_neg, a_pos)`` below and above
        the threshold, ``P(classes_[1] | x) = 1 / (1 + exp(-a s))``, ``s =
        decision_function(x)`` (see :class:`birank.base.ProbabilityMixin`).
    n_iter_ : int
    objective_ : float
        Final primal objective.
    lower_bound_ : float
        ``loss="hinge"``: the dual value that certifies the stop, a lower bound
        on the optimal objective; NaN for the squared hinge.
    n_pairs_ : int
        Number of pairs ``y_i > y_j`` (within groups), unweighted (zero-weight
        rows still count), computed in O(N log N) without enumerating them.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when they are all strings (a pandas DataFrame).

    Examples
    --------
    >>> import numpy as np
    >>> from birank import RankSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X @ [1.0, -2.0, 0.0] + rng.normal(size=200) > 0).astype(int)
    >>> model = RankSVM(C=0.01).fit(X, y)
    >>> model.n_pairs_ == int((y == 1).sum() * (y == 0).sum())
    True
    >>> bool(model.coef_[0] > 0 > model.coef_[1])
    True
    >>> bool(model.score(X, y) > 0.9)  # pairwise accuracy = AUC here
    True
    """

    _parameter_constraints = {
        "C": [Interval("real", 0, None, closed="neither")],
        "loss": [Options("squared_hinge", "hinge")],
        "tol": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
        "verbose": ["boolean", Interval("integer", 0, None)],
        "n_jobs": [None, NonzeroInteger()],
    }

    def __init__(self, C: float = 1.0, *, loss: Literal["squared_hinge", "hinge"] = "squared_hinge",
                 tol: float = 1e-4, max_iter: int = 1000, verbose: bool | int = False,
                 n_jobs: int | None = None) -> None:
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.verbose = verbose
        self.n_jobs = n_jobs

    def fit(self, X: MatrixLike, y: ArrayLike, *, groups: ArrayLike | None = None,
            sample_weight: ArrayLike | None = None) -> Self:
        """Fit on all pairs with ``y_i > y_j`` (within ``groups`` if given).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two-valued labels (any two values; the larger one ranks higher) or
            numeric graded / real-valued relevance.
        groups : array-like of shape (n_samples,), default=None
            Query ids: pairs are only formed inside a group.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights; pair (i, j) has weight
            ``sample_weight[i] * sample_weight[j]``.

        Returns
        -------
        self
        """
        validate_params(self)
        X, y = check_X_y(self, X, y, reset=True)
        n = X.shape[0]
        y_rank = self._encode_y(y)
        groups = check_groups(groups, n)
        sample_weight = check_sample_weight(sample_weight, n, y=y_rank)
        label = f"RankSVM({self.loss})"
        # one line per Newton iteration (squared hinge) or smoothing stage (hinge)
        report = Progress(label, min_interval=0.0) if self.verbose else make_progress(False)
        n_jobs = resolve_n_jobs(self.n_jobs)  # (a joblib context's count for None)
        res = solve_all_pairs(X, y_rank, groups=groups, sample_weight=sample_weight, C=self.C,
                              loss=self.loss, tol=self.tol, max_iter=self.max_iter,
                              report=report, n_jobs=n_jobs)
        report.close()  # (the line ends before any warning or other output)
        store_all_pairs_fit(self, res, y_rank, lambda w: matvec(X, w, n_jobs),
                            groups=groups, sample_weight=sample_weight)
        return self

    def score(self, X: MatrixLike, y: ArrayLike, *, groups: ArrayLike | None = None,
              sample_weight: ArrayLike | None = None) -> float:
        """Pairwise accuracy (ties count 1/2) of the scores on ``(X, y)``, within ``groups``,
        a pair weighted by ``sample_weight_i * sample_weight_j`` (keyword-only).

        For a model fit on two-valued labels, ``y`` may use the same two values
        (e.g. strings); the result is then the ROC AUC.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score.
        y : array-like of shape (n_samples,)
            True labels: the two values of ``classes_``, or numeric graded /
            real-valued relevance.
        groups : array-like of shape (n_samples,), default=None
            Query id of each row; only pairs within a query are compared. None
            compares every pair of rows.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights; a pair weighs
            ``sample_weight_i * sample_weight_j``.

        Returns
        -------
        score : float in [0, 1]
            :func:`birank.metrics.pairwise_accuracy` of ``decision_function(X)``:
            the weighted fraction of pairs with different labels (within a
            query) ranked in the right order, tied scores counting 1/2.
        """
        y = np.asarray(y)
        if hasattr(self, "classes_") and np.all(np.isin(y, self.classes_)):
            y = (y == self.classes_[1]).astype(np.float64)
        return super().score(X, y, groups=groups, sample_weight=sample_weight)

    def _encode_y(self, y):
        return encode_rank_labels(self, y)


def store_all_pairs_fit(est: RankSVM, res: Any, y_rank: FloatArray,
                        training_scores: Callable[[FloatArray], FloatArray], *,
                        groups: Any = None, sample_weight: Any = None) -> None:
    """What a RankSVM keeps of a :func:`solve_all_pairs` result, in memory and on Dask.

    Warns when no pair has different labels or the solve did not converge; sets
    ``coef_``, the two-class decision cut and sigmoid (from
    ``training_scores(coef_)``: ``X @ coef_`` wherever X lives), ``n_iter_``,
    ``objective_``, ``lower_bound_`` and ``n_pairs_``.
    """
    n = y_rank.shape[0]
    if res.n_pairs == 0:
        warnings.warn(
            "RankSVM: no pair of rows has different labels"
            + (" within a group" if groups is not None else "")
            + f" ({n} row{'s' * (n != 1)}): there is nothing to rank and the model is "
            "w = 0.",
            UserWarning, stacklevel=3)
    if not res.converged:
        why = res.reason or "max_iter reached"
        warnings.warn(
            f"RankSVM({est.loss!r}) did not converge to tol={est.tol} "
            f"(max_iter={est.max_iter}): {why}; increase max_iter or tol.",
            ConvergenceWarning, stacklevel=3)
    est.coef_ = np.asarray(res.coef, dtype=np.float64)
    est.intercept_ = 0.0
    if hasattr(est, "classes_"):  # two classes: labels and probabilities (RankerMixin)
        set_two_class_output(est, training_scores(est.coef_), y_rank.astype(np.int8),
                             sample_weight=sample_weight, n_jobs=getattr(est, "n_jobs", None))
    else:  # graded labels: no sigmoid (an earlier two-class fit's would be saved with it)
        est.__dict__.pop("probability_", None)
    est.n_iter_ = int(res.n_iter)
    est.objective_ = float(res.objective)
    # hinge: the certified lower bound on the optimum (objective_ - it <= tol objective_)
    est.lower_bound_ = float(res.lower_bound)
    est.n_pairs_ = int(res.n_pairs)


def encode_rank_labels(est: RankSVM, y: Any) -> FloatArray:
    """Numeric relevance as float64; two values also set ``classes_`` (y -> {0, 1}).

    Used by ``RankSVM.fit`` and by its Dask fit, so both read labels alike.
    """
    y_num = check_graded_labels(est, y)
    y_arr = np.asarray(y).reshape(-1)
    if y_arr.size and scannable(y_arr):
        # two values in one scan, as encode_binary (np.unique sorts: 27 ms at 10^6 rows
        # of two values, 82 ms of all-distinct real values); any other count of values
        # (the scan stops at a third) keeps the labels as they are
        k, v0, v1 = two_values(y_arr)
        if k == 2:
            est.classes_ = np.array([v0, v1], dtype=y_arr.dtype)
            return (y_arr == v1).astype(np.float64)
    else:
        values, inverse = np.unique(y, return_inverse=True)
        if len(values) == 2:
            est.classes_ = values
            return inverse.reshape(-1).astype(np.float64)
    if hasattr(est, "classes_"):
        del est.classes_
    return y_num
