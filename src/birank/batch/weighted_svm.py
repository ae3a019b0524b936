"""WSVM: point-wise linear SVM with class weights (shen-lin eq. (2)), solved on pseudo-pairs."""

from __future__ import annotations

import numbers
import warnings
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from .._progress import make_progress
from .._validation import (Interval, NonzeroInteger, Options, check_sample_weight, check_X_y,
                           encode_binary, validate_params)
from ..base import BinaryRankerMixin, warn_if_worse_than_chance
from ..solvers.dual_cd import solve_point_dual_cd
from ..solvers.point_newton import solve_point_squared_hinge

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal

    from .._typing import ArrayLike, MatrixLike, RandomStateLike, Self

__all__ = ["WeightedSVM"]


class WeightedSVM(BinaryRankerMixin, BaseEstimator):
    """Point-wise linear SVM with class weights, the WSVM baseline of shen-lin.

    Solves shen-lin eq. (2)::

        min_w 1/2 |w|^2 + C+ sum_{i positive} loss(1 - w.x_i) + C- sum_{j negative} loss(1 + w.x_j)

    by dual coordinate descent on pseudo-pairs (shen-lin section 3.4): a
    positive point is the pair ``(x_i, 0)`` and a negative one ``(0, x_j)``,
    so this is :class:`~birank.solvers.dual_cd.PairDualCD` on ``N`` rows.

    Parameters
    ----------
    C : float, default=1.0
        Global regularization parameter (shen-lin's C). Default: LIBLINEAR's
        (``-c 1``), which shen-lin's WSVM runs; shen-lin tune C on a grid and
        report C=0.1 with ``budget=8000`` for most sets.
    class_weight : None, 'balanced' or dict, default='balanced'
        Multiplies C per class, as in scikit-learn: a dict maps a label value
        to its factor; ``'balanced'`` uses ``n_samples / (2 n_class)``; None
        weighs every point the same (eq. (2) with C+ = C-). Default: WSVM is
        the *weighted* SVM: shen-lin weigh the classes inversely to their
        sizes (section 4.1), which is ``'balanced'`` up to the total weight.
        Without weights a rare positive class is ranked worse than chance
        (1 positive in 10^5 rows: AUC 0.0001), and ``fit`` warns when it is.
    budget : int or None, default=None
        shen-lin section 4.1: ``C+ = B / (2 N+) C`` and ``C- = B / (2 N-) C``,
        so that the weights sum to ``B C`` like the pair weights of ASCRC with
        budget B. (The paper prints ``N+`` in both; with it C- would not
        balance the classes and the weights would not sum to ``B C``, so the
        second is ``N-``.) Replaces ``class_weight='balanced'`` (the same
        weights scaled by ``B / N``); cannot be combined with a dict.
    loss : {'hinge', 'squared_hinge'}, default='hinge'
        Default: eq. (2) and LIBLINEAR's dual solver as shen-lin ran it (L1 loss).
    fit_intercept : bool, default=False
        Learn a bias: a threshold theta as an extra coordinate regularized with w
        (shen-lin eq. (8) restricted to pseudo-pairs, equivalently LIBLINEAR's
        ``-B 1`` bias); ``intercept_ = -theta``. Without it the scorer passes
        through the origin, as eq. (2).
    tol : float, default=0.1
        Stopping tolerance on the projected-gradient spread of the dual
        (LIBLINEAR's default for its dual solvers, which shen-lin used; the
        objective is then typically within 1e-3 relative of the optimum; use
        1e-6 or less for exact comparisons).
    max_iter : int, default=1000
        Passes over the data (dual CD) or Newton iterations. 1000 passes is the
        cap of LIBLINEAR 1.x's dual solvers, the ones of shen-lin's time;
        LIBLINEAR 2.50 stops them at 300, on w8a's hinge before its own
        ``-e 0.1`` is met, where this default runs on to ``tol`` (about 800
        passes, ``benchmarks/bench_references.py``).
    random_state : None, int, numpy Generator or RandomState, default=None
        Order of the coordinates (LIBLINEAR shuffles with a fixed seed; here
        None means fresh entropy, as in scikit-learn).
    solver : {'auto', 'dual_cd', 'newton'}, default='auto'
        ``'dual_cd'``: dual coordinate descent over the points (both losses).
        ``'newton'``: primal truncated Newton (squared hinge only, as
        LIBLINEAR's ``-s 2``), stopped at ``|grad| <= 1e-3 tol |grad(0)|``
        (on a9a and w8a within 2e-6 relative of the optimum at the default
        tol, below LIBLINEAR ``-s 2``'s objective at its defaults);
        ``max_iter`` counts Newton iterations. ``'auto'``: Newton for the
        squared hinge (a9a: 0.2 s against 1.1 s for dual CD), dual CD for the
        hinge.
    n_jobs : int, default=None
        Threads for the Newton solver's products with a sparse X (scikit-learn's
        meaning: None is 1 unless in a joblib ``parallel_config``, -1 all
        cores), for the probability calibration's passes over the training
        scores, and for ``decision_function`` on a sparse X. Fixed row blocks
        summed in a fixed order: the same coefficients, threshold and
        probabilities for every value. Dual coordinate descent is sequential.
        A dense X's products are BLAS's, whose threads follow ``threadpoolctl``
        / ``OMP_NUM_THREADS``, not ``n_jobs`` (as in scikit-learn).
    verbose : bool or int, default=False
        Report progress on stderr: Newton, one line per iteration (objective,
        gradient norm, CG steps, step size); dual CD, a line when its passes
        start, one about every second while they run (passes so far,
        projected-gradient spread against ``tol``, rows still active after
        shrinking; every pass when a pass takes longer) and one when they end.
        The model does not depend on it, bit for bit. Off by default, as in
        scikit-learn; ``birank train`` turns it on (``-q``: off).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        ``-theta`` with ``fit_intercept`` (the learned bias); otherwise minus the
        score where Platt's sigmoid fitted on the training scores, weighted like
        the loss (class and sample weights: a cost-weighted decision, as
        scikit-learn's ``class_weight``), is 1/2, so that ``predict`` is
        ``decision_function > 0`` (eq. (2) itself has no bias; the shift does
        not change the ranking).
    class_C_ : ndarray of shape (2,)
        The per-class weights ``(C-, C+)`` actually used (before sample_weight).
    n_iter_ : int
    objective_ : float
        Final primal objective of eq. (2) for ``coef_`` (with theta and
        ``theta^2 / 2`` when ``fit_intercept``).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when they are all strings (a pandas DataFrame).
    probability_ : ndarray of shape (2,)
        ``predict_proba``'s sigmoid slopes ``(a_neg, a_pos)`` below and above the
        threshold (:class:`birank.base.ProbabilityMixin`).

    Notes
    -----
    ``sample_weight`` multiplies the weight of each point (its pseudo-pair);
    points of weight 0 are left out. With C+ = C- the problem is scikit-learn's
    ``LinearSVC(fit_intercept=False)``; the tests check equal objectives.

    Examples
    --------
    >>> from birank import WeightedSVM
    >>> from birank.datasets import load_heart
    >>> X, y = load_heart()
    >>> model = WeightedSVM(C=0.1, class_weight="balanced", random_state=0).fit(X, y)
    >>> model.coef_.shape
    (13,)
    >>> bool(model.score(X, y) > 0.85)  # ROC AUC
    True
    """

    _parameter_constraints = {
        "C": [Interval("real", 0, None, closed="neither")],
        "class_weight": [None, Options("balanced"), dict],
        "budget": [None, Interval("integer", 1, None)],
        "loss": [Options("hinge", "squared_hinge")],
        "fit_intercept": ["boolean"],
        "tol": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
        "random_state": ["random_state"],
        "solver": [Options("auto", "dual_cd", "newton")],
        "n_jobs": [None, NonzeroInteger()],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def __init__(self, C: float = 1.0, *,
                 class_weight: Mapping[Any, float] | Literal["balanced"] | None = "balanced",
                 budget: int | None = None, loss: Literal["hinge", "squared_hinge"] = "hinge",
                 fit_intercept: bool = False, tol: float = 0.1, max_iter: int = 1000,
                 random_state: RandomStateLike = None,
                 solver: Literal["auto", "dual_cd", "newton"] = "auto",
                 n_jobs: int | None = None, verbose: bool | int = False) -> None:
        self.solver = solver
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.C = C
        self.class_weight = class_weight
        self.budget = budget
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def _fit_newton(self, X, y01, C_point, sw, report):
        """The squared hinge by primal Newton (:mod:`birank.solvers.point_newton`)."""
        res = solve_point_squared_hinge(X, y01, C_point, fit_intercept=self.fit_intercept,
                                        tol=self.tol, max_iter=self.max_iter,
                                        n_jobs=self.n_jobs, report=report)
        report.close()
        if not res.converged:
            warnings.warn(f"WeightedSVM(solver='newton') did not converge in "
                          f"max_iter={self.max_iter} Newton iterations (tol={self.tol}); "
                          "increase max_iter or tol.", ConvergenceWarning, stacklevel=3)
        self.coef_ = np.asarray(res.coef, dtype=np.float64)
        self.intercept_ = float(res.intercept) if self.fit_intercept else 0.0
        self.n_iter_ = int(res.n_iter)
        self.objective_ = float(res.objective)
        scores = self._set_threshold(X, y01, learned_bias=self.fit_intercept,
                                     sample_weight=C_point, proba_weight=sw)
        warn_if_worse_than_chance(self, X, y01, scores=scores)
        return self

    def _class_C(self, classes, y01, sw=None):
        # class sizes count sample weights, so that a weight of k is k copies of a row
        w = np.ones(y01.shape[0]) if sw is None else sw
        n_pos = float(w[y01 == 1].sum())
        n_neg = float(w[y01 == 0].sum())
        if self.budget is not None:
            if isinstance(self.class_weight, dict):
                raise ValueError("WeightedSVM: give either budget or a class_weight dict, not both "
                                 f"(got budget={self.budget!r}, "
                                 f"class_weight={self.class_weight!r}).")
            # shen-lin section 4.1 (typo fixed: C- uses N-, not N+)
            return np.array([self.budget / (2.0 * n_neg), self.budget / (2.0 * n_pos)]) * self.C
        factors = np.ones(2)
        if isinstance(self.class_weight, str):  # 'balanced'
            n = n_pos + n_neg
            factors = np.array([n / (2.0 * n_neg), n / (2.0 * n_pos)])
        elif isinstance(self.class_weight, dict):
            for label, f in self.class_weight.items():
                hit = np.flatnonzero(classes == label)
                if hit.size == 0:
                    raise ValueError(f"WeightedSVM: class_weight has label {label!r}, which is "
                                     f"not in the classes {classes.tolist()!r}.")
                if not isinstance(f, numbers.Real) or not np.isfinite(f) or f < 0:
                    raise ValueError(f"WeightedSVM: class_weight[{label!r}] must be a "
                                     f"non-negative float; got {f!r}.")
                factors[hit[0]] = float(f)
        return factors * self.C

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the weighted point-wise SVM.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two label values; the larger one is the positive class.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative; multiplies the point's class weight.

        Returns
        -------
        self
        """
        validate_params(self)
        X, y = check_X_y(self, X, y, reset=True)
        self.classes_, y01 = encode_binary(y)
        n = X.shape[0]
        sw = check_sample_weight(sample_weight, n, y=y)
        self.class_C_ = self._class_C(self.classes_, y01, sw)
        C_point = self.class_C_[y01] if sw is None else self.class_C_[y01] * sw
        if self.solver == "newton" and self.loss != "squared_hinge":
            raise ValueError("WeightedSVM: solver='newton' solves the squared hinge only; "
                             f"got loss={self.loss!r} (use solver='dual_cd' or 'auto').")
        # one line per Newton iteration, or dual CD's start, passes and end (see verbose)
        report = make_progress(self.verbose, f"WeightedSVM({self.loss})", min_interval=0.0)
        if self.solver != "dual_cd" and self.loss == "squared_hinge":
            return self._fit_newton(X, y01, C_point, sw, report)
        solver = solve_point_dual_cd(X, y01, C_point, loss=self.loss,
                                     fit_intercept=self.fit_intercept, tol=self.tol,
                                     max_iter=self.max_iter, random_state=self.random_state,
                                     report=report)
        report.close()
        if not solver.converged_:
            warnings.warn(solver.not_converged_message("WeightedSVM", self.max_iter, self.tol),
                          ConvergenceWarning, stacklevel=2)
        self.coef_ = solver.coef_.copy()
        self.intercept_ = solver.intercept_ if self.fit_intercept else 0.0
        self.n_iter_ = solver.n_iter_
        self.objective_ = solver.primal_objective()
        del solver  # the pool (about 40 bytes a row) goes before the threshold's sort
        # the threshold (the sigmoid's 1/2) is weighted like the loss (class and
        # sample weights), so a weight of k acts as k copies of the row
        scores = self._set_threshold(X, y01, learned_bias=self.fit_intercept,
                                     sample_weight=C_point, proba_weight=sw)
        warn_if_worse_than_chance(self, X, y01, scores=scores)
        return self
