"""Closest and Pruned RankSVM: train on few chosen pairs (lin-jan-lin, Algorithms 1 and 2)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._progress import make_progress
from .._validation import (
    Interval,
    Options,
    check_graded_labels,
    check_groups,
    check_random_state,
    check_X,
    check_X_y,
    codes_of,
    validate_params,
)
from ..base import RankerMixin, reset_fitted
from ..pairs import ChosenSet, OrdinalPairs, sample_pair_ids
from ..solvers import dual_cd as _dual_cd
from ..solvers.dual_cd import PairDualCD
from ..solvers.kernel_dual_cd import KernelPairDualCD, point_kernel, rbf_gamma
from ..solvers.kernel_newton import check_kernel_memory, solve_kernel_ranksvm
from .ranksvm import RankSVM

if TYPE_CHECKING:
    from typing import Literal

    from .._typing import ArrayLike, FloatArray, IntArray, MatrixLike, RandomStateLike, Self

__all__ = ["PrunedRankSVM", "select_pairs"]

_SCORE_BLOCK_MB = 64.0  # bound of a scoring block (rows x support vectors x 8 bytes)


def select_pairs(y: ArrayLike, *, n_closest: int | None = None, n_random: int | None = None,
                 groups: ArrayLike | None = None, random_state: RandomStateLike = None,
                 ) -> tuple[IntArray, OrdinalPairs, int, int]:
    """Pair ids of lin-jan-lin's closest S (+ random R) pairs, and their pair space.

    Rows are sorted by label (section III-A, Algorithm 2 step 1) and pairs are
    listed from order-closest to farthest by :meth:`birank.pairs.OrdinalPairs.closest`:
    a level counts distinct label values, so with tied labels level 1 holds
    every pair between adjacent label values, and tied rows form no pair.

    Parameters
    ----------
    y : array of shape (n_samples,), float
    n_closest : int or None, default=None
        S, clipped to the number of pairs. None: all level-1 pairs (the
        1-closest pairs; N - 1 of them when no labels tie, one group), or,
        when ties make level 1 larger than N - 1 (binary labels), N - 1 pairs
        drawn uniformly from level 1.
    n_random : int or None, default=None
        R pairs drawn uniformly without replacement from the ordinal pairs not
        among the closest S (by decoding integers; Algorithm 2 step 3),
        clipped to what is left. None: R = S.
    groups : array of shape (n_samples,), default=None
        Pairs only within a query.
    random_state : None, int, numpy Generator or RandomState, default=None
        Draws the random pairs (and the level-1 pairs under heavy ties).

    Returns
    -------
    ids : ndarray of int64
        The S closest ids in level order, then the R random ids in draw order.
    space : OrdinalPairs
    n_closest, n_random : int
        The counts actually taken.

    Examples
    --------
    >>> import numpy as np
    >>> from birank.batch.pruned_ranksvm import select_pairs
    >>> ids, space, s, r = select_pairs(np.arange(6.0), n_random=2, random_state=0)
    >>> s, r, space.n_pairs
    (5, 2, 15)
    >>> space.levels(ids[:s]).tolist()
    [1, 1, 1, 1, 1]
    >>> bool(np.all(space.levels(ids[s:]) >= 2))
    True
    """
    space = OrdinalPairs(y, groups)
    rng = check_random_state(random_state)
    n_level1 = int(space.level_counts(1)[1])
    cap = max(np.asarray(y).shape[0] - 1, 0)
    if n_closest is None and n_level1 > cap:
        # Heavy ties (binary or few-valued labels: level 1 is then (nearly) every
        # pair). lin-jan-lin's 1-closest set has N - 1 pairs; its first N - 1 ids in
        # sort order would pair a few rows of one label with everything, so draw
        # the N - 1 pairs uniformly from level 1 instead (never all of level 1).
        n_closest = cap
        closest = _sample_level_one(space, n_level1, cap, rng)
    else:
        n_closest = n_level1 if n_closest is None else min(int(n_closest), space.n_pairs)
        closest = space.closest(n_closest)
    n_random = n_closest if n_random is None else int(n_random)
    n_random = min(n_random, space.n_pairs - n_closest)
    if n_random > 0:
        chosen = None
        if n_closest:
            chosen = ChosenSet()
            chosen.add(closest, new=True)  # (closest ids are distinct: no sort)
        extra = sample_pair_ids(space.n_pairs, n_random, random_state=rng, chosen=chosen)
        ids = np.concatenate((closest, extra))
    else:
        ids = closest
    return ids, space, n_closest, n_random


def _sample_level_one(space, n_level1, size, rng):
    """``size`` level-1 pair ids, uniform without replacement, in draw order.

    Draws ``size`` distinct positions in ``[0, n_level1)`` (:func:`sample_pair_ids`)
    and maps them to level-1 ids (:meth:`OrdinalPairs.level_one_ids`, O(N) plus a
    binary search each): no rejection over the other levels, nothing of size
    ``n_pairs``.
    """
    positions = sample_pair_ids(n_level1, size, random_state=rng)
    return space.level_one_ids(positions)


class PrunedRankSVM(RankerMixin, BaseEstimator):
    """RankSVM on the order-closest pairs plus random pairs (lin-jan-lin Pruned RankSVM).

    Sorts the rows by label, takes the S order-closest pairs (level 1 first:
    adjacent labels, then labels two apart, ...; Algorithm 1, Closest RankSVM)
    and adds R pairs drawn uniformly from the remaining ordinal pairs
    (Algorithm 2, Pruned RankSVM), then solves lin-jan-lin eq. (1) on those
    pairs only::

        min 1/2 |w|^2 + C sum_{chosen (i, j)} loss(1 - w.(phi(x_i) - phi(x_j)))

    A level counts distinct label values: with tied labels the level-1 pairs
    are all pairs between adjacent label values, and equal labels form no pair
    (:func:`select_pairs`). ``n_closest='all'`` trains on *all* ordinal pairs
    with the exact solvers instead (total pairs: the truncated-Newton
    :class:`~birank.RankSVM` for the linear kernel, and for RBF the primal
    kernel Newton of :mod:`birank.solvers.kernel_newton`, which holds the
    N x N kernel matrix in memory up to ``cache_size`` megabytes and raises a
    ValueError above it).

    Defaults and their origin: ``n_closest=None`` is lin-jan-lin's 1-closest
    set (N - 1 pairs without ties, the Closest RankSVM of their section III)
    and ``n_random=None`` (R = S) their Pruned RankSVM "closest S + random S"
    (section IV-A). ``C=1`` is the default of LIBSVM and LIBLINEAR, the
    solvers the paper uses, and its setting for Fig. 1; its experiments on
    artificial data choose C on a validation set instead (a grid 2^-5, 2^-3,
    ..., 2^15, section III-B), so tune it. ``tol=1e-3`` is LIBSVM's stopping
    tolerance (``-e 0.001``), which the dual CD's projected-gradient test
    follows; the paper states none. ``max_iter=1000`` (scikit-learn's
    ``LinearSVC`` default) and ``cache_size=1024`` MB (LIBSVM's ``-m``
    defaults to 100 MB, scikit-learn's ``SVC`` to 200 MB) are birank's
    choices: the paper sets neither.

    Parameters
    ----------
    n_closest : int, 'all' or None, default=None
        S. None: the level-1 (1-closest) pairs, N - 1 of them without ties.
        Clipped to the number of pairs.
    n_random : int or None, default=None
        R random pairs beyond the closest ones; None means R = S
        (closest S + random S). ``n_random=0`` is Closest RankSVM;
        ``n_closest=0, n_random=k`` is the random-pairs baseline.
    kernel : {'linear', 'rbf'}, default='linear'
        Linear: see ``solver``. RBF: dual CD over the
        same pairs on the point kernel, ``Q_pq = K_ia - K_ib - K_ja + K_jb``
        (:class:`~birank.solvers.kernel_dual_cd.KernelPairDualCD`); the
        kernel matrix of the distinct points of the chosen pairs is cached
        when it fits in ``cache_size``.
    gamma : 'scale' or float, default='scale'
        RBF width ``exp(-gamma |x - x'|^2)``; 'scale' is ``1 / (n_features *
        X.var())`` as in scikit-learn's SVC.
    C : float, default=1.0
        Weight of the summed loss over the chosen pairs (lin-jan-lin eq. (1);
        not averaged, so the loss grows with the number of pairs, as in
        :class:`~birank.RankSVM`).
    loss : {'hinge', 'squared_hinge'}, default='hinge'
        Hinge is lin-jan-lin eq. (1).
    tol : float, default=1e-3
        Dual CD: projected-gradient spread (LIBSVM's eps). Total pairs: the
        relative duality gap (hinge) or gradient norm (squared hinge).
    max_iter : int, default=1000
        Dual CD passes, or Newton iterations.
    cache_size : float, default=1024
        Megabytes for point-kernel matrices (RBF).
    solver : {'auto', 'dual_cd', 'newton'}, default='auto'
        Chosen pairs with the linear kernel. 'dual_cd': the warm-startable
        pair-row dual CD (:class:`~birank.solvers.dual_cd.PairDualCD`),
        finished by Newton when it stalls at ``max_iter``. 'newton': the
        primal Newton on the pair matrix (rows ``x_a - x_b``; squared hinge:
        trust-region Newton to a relative gradient norm ``min(tol, 1e-4)``;
        hinge: Huber smoothing to a certified duality gap), a ValueError when
        that matrix would hold more than ``birank.solvers.dual_cd.MAX_POOL_MATRIX``
        numbers. 'auto': for the squared hinge, Newton when the pairs outnumber
        the features and the matrix fits, else dual CD (LIBLINEAR's advice: the
        primal for many instances over few features, where the dual is
        degenerate and dual CD creeps); the hinge starts with dual CD, since
        Huber smoothing from zero is slower than finishing a dual CD run. The
        RBF kernel always uses its dual CD, total pairs always Newton.
    random_state : None, int, numpy Generator or RandomState, default=None
        Draws the random pairs and the dual CD order.
    verbose : bool or int, default=False
        Report progress on stderr: the pairs chosen; dual CD (linear or RBF),
        a line when its passes start (pairs, points, whether the RBF kernel is
        cached), one about every second while they run (passes so far,
        projected-gradient spread against ``tol``, for the linear solver the
        pairs still active after shrinking; every pass when a pass takes
        longer) and one when they end; Newton, one line per iteration (total
        pairs, ``solver='newton'`` or a stalled dual CD's finish). The model
        does not depend on it, bit for bit. Off by default, as in
        scikit-learn; ``birank train`` turns it on (``-q``: off).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Linear kernel only.
    intercept_ : float
        0.0 for graded / real-valued labels (it cancels in pairs); for two
        label values, minus the score where the training sigmoid is 1/2
        (:func:`birank.base.decision_cut`), so that ``predict`` is
        ``decision_function > 0`` (RBF too).
    classes_ : ndarray of shape (2,)
        Only when ``y`` has exactly two values. Then ``predict`` returns labels
        from ``classes_`` and ``predict_proba`` Platt's calibrated
        probabilities (:class:`birank.base.ProbabilityMixin`); for graded or
        real-valued ``y``, ``predict`` returns the ranking scores and there is
        no ``predict_proba``.
    probability_ : ndarray of shape (2,)
        Two classes only: the sigmoid slopes ``(a_neg, a_pos)`` on
        ``decision_function`` (see :class:`birank.base.ProbabilityMixin`).
    support_ : ndarray of int
        RBF: training rows with a non-zero expansion coefficient.
    support_vectors_ : ndarray of shape (n_support, n_features)
        RBF: those rows (dense).
    dual_coef_ : ndarray of shape (n_support,)
        RBF: ``decision_function(x) = sum_u dual_coef_u k(support_vectors_u, x)``.
    gamma_ : float
        RBF: the gamma used.
    pairs_ : tuple of two int arrays
        The chosen pairs ``(a, b)`` (row a above row b): the closest S in level
        order, then the random ones. Not set for ``n_closest='all'``.
    pair_dual_coef_ : ndarray
        Dual variable of every chosen pair (same order as ``pairs_``). After
        Newton, the dual point built from the margins ``m`` of ``coef_``:
        ``2 C max(0, 1 - m)`` (squared hinge, the KKT condition) or, for the
        hinge, the feasible ``t C clip((1 - m) / delta, 0, 1)`` with the best
        dual value over the Huber widths (a lower bound near, not at, the
        optimum: within 1% in the tests).
    n_closest_, n_random_ : int
        Pairs taken of each kind.
    n_pairs_ : int
        Pairs trained on.
    n_total_pairs_ : int
        All ordinal pairs (within groups).
    n_iter_ : int
        Dual CD passes, or Newton iterations when Newton produced the model.
    final_solver_ : {'dual_cd', 'newton'}
        The solver that produced the model: 'newton' for total pairs, for
        ``solver='newton'`` (or 'auto' choosing it), and when a stalled dual CD
        was finished by Newton.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when they are all strings (a pandas DataFrame).

    Examples
    --------
    >>> import numpy as np
    >>> from birank import PrunedRankSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 5))
    >>> y = X @ [1.0, -1.0, 0.5, 0.0, 2.0] + 0.1 * rng.normal(size=200)
    >>> model = PrunedRankSVM(C=10.0, random_state=0).fit(X, y)
    >>> model.n_closest_, model.n_random_, model.n_total_pairs_
    (199, 199, 19900)
    >>> bool(model.score(X, y) > 0.95)
    True
    >>> rbf = PrunedRankSVM(kernel="rbf", C=10.0, random_state=0).fit(X, y)
    >>> bool(rbf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = {
        "n_closest": [None, Options("all"), Interval("integer", 0, None)],
        "n_random": [None, Interval("integer", 0, None)],
        "kernel": [Options("linear", "rbf")],
        "gamma": [Options("scale"), Interval("real", 0, None, closed="neither")],
        "C": [Interval("real", 0, None, closed="neither")],
        "loss": [Options("hinge", "squared_hinge")],
        "tol": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
        "cache_size": [Interval("real", 0, None, closed="neither")],
        "solver": [Options("auto", "dual_cd", "newton")],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def __init__(self, n_closest: int | Literal["all"] | None = None, *,
                 n_random: int | None = None, kernel: Literal["linear", "rbf"] = "linear",
                 gamma: float | Literal["scale"] = "scale", C: float = 1.0,
                 loss: Literal["hinge", "squared_hinge"] = "hinge", tol: float = 1e-3,
                 max_iter: int = 1000, cache_size: float = 1024.0,
                 solver: Literal["auto", "dual_cd", "newton"] = "auto",
                 random_state: RandomStateLike = None, verbose: bool | int = False) -> None:
        self.n_closest = n_closest
        self.n_random = n_random
        self.kernel = kernel
        self.gamma = gamma
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.cache_size = cache_size
        self.solver = solver
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X: MatrixLike, y: ArrayLike, *, groups: ArrayLike | None = None) -> Self:
        """Choose the pairs and train on them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Real-valued or graded relevance (higher ranks higher).
        groups : array-like of shape (n_samples,), default=None
            Query ids: pairs form only inside a query.

        Returns
        -------
        self
        """
        validate_params(self)
        reset_fitted(self)  # a refit on other data never keeps the RBF expansion of the last
        X, y = check_X_y(self, X, y, reset=True)
        y_given = y
        y = check_graded_labels(self, y)  # (first: it names missing or non-numeric labels)
        values = np.unique(y_given)
        groups = check_groups(groups, X.shape[0])
        if not _has_ordinal_pair(y, groups):
            warnings.warn(
                "PrunedRankSVM: no pair of rows has different labels"
                + (" within a group" if groups is not None else "")
                + f" ({X.shape[0]} row{'s' * (X.shape[0] != 1)}): there is nothing to rank "
                "and the model is w = 0.",
                UserWarning, stacklevel=2)
        if self.kernel == "rbf" and self.solver == "newton" \
                and not isinstance(self.n_closest, str):
            # (all pairs, n_closest="all", are Newton's for both kernels)
            raise ValueError("solver='newton' solves the chosen pairs of the linear kernel; "
                             "the RBF kernel solves them by dual CD (solver='auto' or "
                             "'dual_cd'), and all pairs (n_closest='all') by Newton.")
        if self.n_closest == 0 and self.n_random in (0, None):
            raise ValueError("PrunedRankSVM: n_closest=0 with n_random=0 (or None, which "
                             "takes n_closest's value) selects no pair to train on; give "
                             "n_random > 0 for the random-pairs baseline.")
        rng = check_random_state(self.random_state)
        # the pairs chosen, dual CD's start, passes and end, one line per Newton iteration
        report = make_progress(self.verbose, f"PrunedRankSVM({self.kernel}, {self.loss})",
                               min_interval=0.0)
        if self.kernel == "rbf":
            self.gamma_ = rbf_gamma(X, self.gamma)
        if isinstance(self.n_closest, str):
            self._fit_total(X, y, groups, report)
        else:
            self._fit_chosen(X, y, groups, rng, report)
        report.close()
        self.intercept_ = 0.0
        if values.shape[0] == 2:  # two classes: labels and probabilities (RankerMixin)
            self.classes_ = values
            self._set_threshold(X, (y == y.max()).astype(np.int8))
        return self

    def _fit_chosen(self, X, y, groups, rng, report):
        ids, space, s, r = select_pairs(y, n_closest=self.n_closest, n_random=self.n_random,
                                        groups=groups, random_state=rng)
        a, b = space.decode(ids)
        n_pairs, n_total = int(ids.size), int(space.n_pairs)
        report(0, None, f"chose {n_pairs} pairs ({s} closest, {r} random) of {n_total}")
        del ids, space  # O(pairs) and O(N) index arrays, not needed by the solve
        if self.kernel == "linear":
            solver = PairDualCD(X, loss=self.loss, tol=self.tol, max_iter=self.max_iter,
                                random_state=rng)
        else:
            solver = KernelPairDualCD(X, kernel="rbf", gamma=self.gamma_, loss=self.loss,
                                      tol=self.tol, max_iter=self.max_iter,
                                      cache_size=self.cache_size, random_state=rng)
        solver.add_rows(a, b, self.C)
        # the linear pool keeps (a, b): pairs_ are views of it, O(pairs) freed for the solve
        pairs = None if self.kernel == "linear" else (a, b)
        del a, b
        self.final_solver_ = "dual_cd"
        alpha, n_iter = None, None
        if self.kernel == "linear":
            self.coef_, alpha, n_iter = self._solve_linear(solver, X, report)
        else:
            if not solver.solve(report=report):
                warnings.warn(solver.not_converged_message("PrunedRankSVM (kernel dual CD)",
                                                           self.max_iter, self.tol),
                              ConvergenceWarning, stacklevel=3)
            self._set_expansion(X, *solver.support())
        self.pairs_ = solver.rows_ if pairs is None else pairs
        self.pair_dual_coef_ = solver.alpha_.copy() if alpha is None else alpha
        self.n_closest_, self.n_random_ = s, r
        self.n_pairs_ = n_pairs
        self.n_total_pairs_ = n_total
        self.n_iter_ = int(solver.n_iter_ if n_iter is None else n_iter)

    def _solve_linear(self, solver, X, report):
        """``(coef, alpha or None, n_iter)``: dual CD or the primal Newton on the pair matrix
        (``solver``); a dual CD that stalls at max_iter (many pairs over few
        features: the dual is degenerate) is finished by Newton from where it
        stopped, as ActiveRankSVM does. ``alpha`` is None when dual CD's stands."""
        # the pool holds O(N) pairs here (not a budget as in ActiveRankSVM): its matrix
        # is formed only when small (sparse too: 2N pair rows are several times X)
        size = solver.pool_matrix_size()
        fits = size <= _dual_cd.MAX_POOL_MATRIX
        if self.solver == "newton" and not fits:
            raise ValueError(
                f"solver='newton': the matrix of the {solver.n_rows} chosen pairs would hold "
                f"{size} numbers, more than MAX_POOL_MATRIX = "
                f"{_dual_cd.MAX_POOL_MATRIX}; use solver='dual_cd' (or 'auto').")
        # auto: Newton first for the squared hinge only; the hinge's Huber smoothing from
        # zero is slower than finishing a dual CD run (a9a: 3.3 s against 2.7 s)
        newton_first = self.solver == "newton" or (
            self.solver == "auto" and self.loss == "squared_hinge" and fits
            and solver.n_rows >= X.shape[1])
        if not newton_first and solver.solve(report=report):
            return solver.coef_.copy(), None, solver.n_iter_
        if fits:  # (newton_finish runs; None otherwise)
            report(0, None, f"Newton on the matrix of the {solver.n_rows} pairs"
                            + ("" if newton_first else ", from where dual CD stopped"))
        res = solver.newton_finish(min(self.tol, 1e-4), max_iter=self.max_iter, report=report)
        if res is not None and (res.converged or newton_first):
            if not res.converged:
                warnings.warn(f"PrunedRankSVM (Newton on the chosen pairs) did not reach "
                              f"tol={min(self.tol, 1e-4):g} in max_iter={self.max_iter} "
                              "iterations; increase max_iter or tol.", ConvergenceWarning,
                              stacklevel=4)
            self.final_solver_ = "newton"
            # the solver's own dual point for its primal solution (see pair_dual_coef_)
            return res.coef[:-1].copy(), res.dual_coef, res.n_iter
        warnings.warn(solver.not_converged_message("PrunedRankSVM (dual CD)", self.max_iter,
                                                   self.tol), ConvergenceWarning, stacklevel=4)
        return solver.coef_.copy(), None, solver.n_iter_

    def _fit_total(self, X, y, groups, report):
        if self.kernel == "linear":
            report(0, None, "all pairs: the exact RankSVM (its lines follow)")
            exact = RankSVM(C=self.C, loss=self.loss, tol=self.tol, max_iter=self.max_iter,
                            verbose=self.verbose)
            exact.fit(X, y, groups=groups)
            self.coef_ = exact.coef_
            n_pairs, self.n_iter_ = exact.n_pairs_, exact.n_iter_
        else:
            check_kernel_memory(X.shape[0], self.cache_size)
            report(0, None, f"all pairs: kernel Newton on the {X.shape[0]} x {X.shape[0]} "
                            "RBF kernel matrix")
            K = point_kernel(X, X, "rbf", self.gamma_)
            res = solve_kernel_ranksvm(K, y, groups, C=self.C, loss=self.loss, tol=self.tol,
                                       max_iter=self.max_iter, report=report)
            beta, n_iter, n_pairs = res.coef, res.n_iter, res.n_pairs
            if not res.converged:
                warnings.warn(f"PrunedRankSVM(n_closest='all', kernel='rbf') did not reach "
                              f"tol={self.tol} in max_iter={self.max_iter} Newton "
                              "iterations; increase max_iter or tol.", ConvergenceWarning)
            rows = np.flatnonzero(beta)
            self._set_expansion(X, rows, beta[rows])
            self.n_iter_ = int(n_iter)
        self.final_solver_ = "newton"
        self.n_closest_, self.n_random_ = int(n_pairs), 0
        self.n_pairs_ = self.n_total_pairs_ = int(n_pairs)

    def _set_expansion(self, X, rows, coef):
        self.support_ = np.asarray(rows, dtype=np.int64)
        sv = X[self.support_]
        self.support_vectors_ = sv.toarray() if hasattr(sv, "toarray") else np.asarray(sv)
        self.dual_coef_ = np.asarray(coef, dtype=np.float64)

    def _training_scores(self, X):
        """The scores of the validated training ``X`` before the decision cut (not through
        :meth:`decision_function`, which would validate X again: an X fitted from a
        DataFrame, now an array, would warn that its feature names are missing)."""
        if self.kernel == "linear" or not hasattr(self, "dual_coef_"):
            return super()._training_scores(X)
        return self._expansion_scores(X)

    def _expansion_scores(self, X):
        """The kernel expansion over the support points at validated rows X."""
        if self.dual_coef_.size == 0:
            return np.zeros(X.shape[0])
        # in row blocks: a block's n_rows x n_sv kernel (and its densified rows) stays
        # within min(cache_size, 64) MB instead of the whole N x n_sv matrix
        n_sv = self.support_vectors_.shape[0]
        bound = min(float(self.cache_size), _SCORE_BLOCK_MB) * 2**20
        step = max(1, int(bound // (8 * max(n_sv, X.shape[1]))))
        scores = np.empty(X.shape[0])
        for start in range(0, X.shape[0], step):
            block = X[start:start + step]
            scores[start:start + step] = point_kernel(
                block, self.support_vectors_, "rbf", self.gamma_) @ self.dual_coef_
        return scores

    def decision_function(self, X: MatrixLike) -> FloatArray:
        """Ranking scores: ``X @ coef_`` (linear) or the kernel expansion over support points.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "intercept_")
        if self.kernel == "linear" or not hasattr(self, "dual_coef_"):
            return super().decision_function(X)
        X = check_X(self, X, reset=False)
        return self._expansion_scores(X) + self.intercept_


def _has_ordinal_pair(y, groups):
    """Whether two rows (of one group) have different labels, in O(N) without sorting."""
    if y.size == 0:
        return False
    if groups is None:
        return bool(y.min() < y.max())
    gid = codes_of(groups)
    lo = np.full(int(gid.max()) + 1, np.inf)
    hi = np.full(lo.shape, -np.inf)
    np.minimum.at(lo, gid, y)
    np.maximum.at(hi, gid, y)
    return bool(np.any(lo < hi))
