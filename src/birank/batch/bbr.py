"""BBR and LCBR: pairwise squared loss from pair moments (gultekin-paisley).

Both minimize ``1/2 w'Sigma w - mu'w`` over the ball ``|w| <= radius``
(gultekin-paisley Alg. 1 and 2, line 10); they differ in the pairs behind
``(mu, Sigma)``: BBR uses all N1*N0 (positive, negative) pairs, computed exactly
from per-class moments without enumerating pairs; LCBR averages S pairs sampled
uniformly with replacement.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from .._linalg import matvec
from .._progress import make_progress
from .._threshold_tail import ThresholdTail
from .._validation import (
    Interval,
    Options,
    as_written,
    check_random_state,
    check_sample_weight,
    check_X_y,
    validate_params,
)
from ..base import BinaryRankerMixin, OnlineRankerMixin, check_known_labels
from ..solvers.ball_quadratic import LANCZOS_MAX_ENTRIES, solve_ball_quadratic
from ..solvers.pair_moments import (
    ClassGram,
    ClassMoments,
    GramPairsOperator,
    SecondMomentOperator,
    all_pairs_moments,
    draw_pairs,
    draw_weighted_pairs,
    pair_rows,
    sampled_pair_sums,
    update_class_moments,
)

if TYPE_CHECKING:
    from typing import Literal

    from scipy.sparse.linalg import LinearOperator

    from .._typing import ArrayLike, FloatArray, MatrixLike, RandomStateLike, Self

__all__ = ["BBR", "LCBR"]

#: above this many features ``solver="auto"`` never forms the D x D moment matrix
AUTO_DENSE_MAX_FEATURES = 2000
#: D x D float64 matrices ``solver="eigh"`` holds at once (each class's second moment,
#: Sigma, the eigenvectors and LAPACK's workspace)
EIGH_MATRICES = 5


def _check_dense_moment_memory(name, d):
    """Refuse ``solver="eigh"`` when its D x D matrices would not fit in memory (a wide
    sparse X: 20000 features need 16 GB and ran for minutes before failing)."""
    from .._memory import available_memory

    need = EIGH_MATRICES * 8 * d * d
    avail = available_memory()
    if avail is not None and need > avail:
        raise ValueError(f"{name}: solver='eigh' forms {d} x {d} matrices, about "
                         f"{need / 2**30:.1f} GiB, more than the {avail / 2**30:.1f} GiB "
                         "available; use solver='cg' (the default 'auto' does above "
                         f"{AUTO_DENSE_MAX_FEATURES} features).")


def _checked_pair_mean(name, pair_mean):
    """``fit_moments``' mu as finite float64 of shape (n_features,); ValueError naming it."""
    mu = np.asarray(pair_mean)
    if mu.dtype.kind == "c":
        raise ValueError(f"{name}: pair_mean is complex; complex data is not supported.")
    try:
        mu = mu.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: pair_mean must hold numbers; got dtype {mu.dtype}.") from None
    if mu.ndim != 1:
        raise ValueError(f"{name}: pair_mean must be 1-D, one value per feature; got shape "
                         f"{mu.shape}.")
    if not np.isfinite(mu).all():
        raise ValueError(f"{name}: pair_mean contains NaN or infinite values (first at index "
                         f"{int(np.flatnonzero(~np.isfinite(mu))[0])}).")
    return mu


def _checked_second_moment(name, sigma, d, radius):
    """``(Sigma as fit_moments solves it, n_features)``, checked against mu's length ``d``
    (None: any square shape).

    An array (or a nested list) must be square, real and finite: it is solved by
    eigendecomposition. A scipy sparse matrix is checked the same way, then formed
    as an array up to :data:`AUTO_DENSE_MAX_FEATURES` features (as ``solver="auto"``),
    else wrapped as an operator. An operator needs ``shape`` and ``matvec`` (and
    ``trace()`` without a ``radius``); its values are not read here.
    """
    import scipy.sparse as sp

    if sp.issparse(sigma):
        if sigma.dtype.kind == "c":
            raise ValueError(f"{name}: pair_second_moment is complex; complex data is not "
                             "supported.")
        values = sp.csr_matrix(sigma, dtype=np.float64)
        if not np.isfinite(values.data).all():
            raise ValueError(f"{name}: pair_second_moment contains NaN or infinite values.")
        shape = values.shape
    elif hasattr(sigma, "matvec") and hasattr(sigma, "shape"):  # an operator
        if radius is None and not callable(getattr(sigma, "trace", None)):
            raise ValueError(f"{name}: pair_second_moment is an operator without trace(), "
                             "which radius=None needs (its ridge is relative to the trace); "
                             "give an array, or an operator with trace().")
        values, shape = sigma, tuple(sigma.shape)
    else:
        values = np.asarray(sigma)
        if values.dtype.kind == "c":
            raise ValueError(f"{name}: pair_second_moment is complex; complex data is not "
                             "supported.")
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name}: pair_second_moment must be an array of numbers, a "
                             "scipy sparse matrix or a LinearOperator; got "
                             f"{type(sigma).__name__} of dtype {values.dtype}.") from None
        shape = values.shape
    if len(shape) != 2 or shape[0] != shape[1] or (d is not None and shape[0] != d):
        want = f"({d}, {d}) to match pair_mean" if d is not None else "(n_features, n_features)"
        raise ValueError(f"pair_second_moment must have shape {want}; got {tuple(shape)}.")
    if isinstance(values, np.ndarray) and not np.isfinite(values).all():
        raise ValueError(f"{name}: pair_second_moment contains NaN or infinite values.")
    if sp.issparse(values):
        if shape[0] <= AUTO_DENSE_MAX_FEATURES:
            values = values.toarray()
        else:
            values = _SparseMoment(values)
    return values, int(shape[0])


class _SparseMoment:
    """A wide scipy sparse Sigma as the operator the CG / Lanczos path takes."""

    def __init__(self, matrix):
        self.matrix, self.shape = matrix, matrix.shape

    def matvec(self, v):
        return np.asarray(self.matrix @ np.asarray(v, dtype=np.float64).ravel()).ravel()

    def trace(self):
        return float(self.matrix.diagonal().sum())


#: ``radius=None``: ridge = RIDGE * trace(Sigma) / D (see the class docstrings)
RIDGE = 1e-10


class _PairMomentRanker(OnlineRankerMixin, BinaryRankerMixin, BaseEstimator):
    """Shared fit/partial_fit path (:class:`~birank.base.OnlineRankerMixin`); subclasses
    add each chunk's pairs to bounded moment state and re-solve."""

    _online_private_state = ("_state", "_solver_used", "_rng", "_tail")

    _parameter_constraints = {
        "radius": [None, Interval("real", 0, None, closed="neither")],
        "solver": [Options("auto", "eigh", "cg")],
        "tol": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
        "verbose": ["boolean", Interval("integer", 0, None)],
    }

    def _partial_fit(self, X, y, classes, sample_weight, *, refit=False):
        """Add one chunk to the moments and re-solve (OnlineRankerMixin's one path).

        ``refit``: the chunk is the whole training set of ``fit`` and may be
        referenced by the state instead of copied (BBR "cg" on sparse X keeps its
        class rows as views; a ``partial_fit`` chunk is copied: streaming callers
        reuse their buffers)."""
        validate_params(self)
        first = self._is_first_call()
        if not first and not hasattr(self, "_state"):
            raise ValueError(f"{type(self).__name__} was fitted by fit_moments and keeps no "
                             "chunk state to continue from: call fit, or partial_fit on a "
                             "new estimator.")
        report = make_progress(self.verbose, type(self).__name__)
        X, y = check_X_y(self, X, y, reset=first)
        sw = check_sample_weight(sample_weight, X.shape[0], y=y if refit else None)
        y01 = self._encode_chunk(y, classes)  # (sets classes_ on the first call: last check)
        if first:
            d = X.shape[1]
            solver = self.solver
            if solver == "auto":
                solver = "eigh" if d <= AUTO_DENSE_MAX_FEATURES else "cg"
            if solver == "eigh":
                _check_dense_moment_memory(type(self).__name__, d)
            self._solver_used = solver
            self._state = self._new_state(d, solver)
        report(0, 2, "accumulating pair moments")
        self._accumulate(X, y01, sw, refit)
        report(1, 2, "solving the ball-constrained quadratic")
        self._solve()
        if first:
            self._tail = ThresholdTail()
        self._tail.update(X, y01, sw)
        if refit:  # fit: the cut on every training row
            self._set_threshold(X, y01, sample_weight=sw)
        else:  # partial_fit: the chunks seen, by their tails (birank._threshold_tail)
            self._tail.set_output(self)
        report(2, 2, "done")
        return self

    def _solve(self, moments=None):
        """Solve from ``self._moments()``, or from given ``(mu, Sigma)`` (birank.distributed)."""
        d = self.n_features_in_
        mu, sigma = self._moments() if moments is None else moments
        self.pair_mean_, self.pair_second_moment_ = mu, sigma
        if mu is None:  # no pair seen yet (one class only)
            self.coef_ = np.zeros(d)
            self.intercept_ = 0.0
            self.lambda_, self.n_iter_ = 0.0, 1
            return
        # an implicit Sigma formed by densify_if_cheaper is solved as a matrix
        matrix = getattr(sigma, "dense_", None)
        ridge = 0.0  # only used without the ball
        if self.radius is None:
            if isinstance(sigma, np.ndarray):
                trace = float(np.trace(sigma))
            else:
                trace = sigma.trace()
            ridge = RIDGE * max(trace, np.finfo(float).tiny) / max(d, 1)
        res = solve_ball_quadratic(sigma if matrix is None else matrix, mu, self.radius,
                                   ridge=ridge, tol=self.tol, max_iter=self.max_iter)
        self.coef_ = np.asarray(res.w, dtype=np.float64)
        self.intercept_ = 0.0
        self.lambda_ = res.lam
        # iterations of the solver: CG / Lanczos iterations (implicit Sigma), or
        # 1 + secular Newton steps (eigendecomposition of a formed Sigma)
        self.n_iter_ = max(1, res.cg_iter if res.cg_iter else 1 + res.n_iter)

    def fit_moments(self, pair_mean: ArrayLike | None,
                    pair_second_moment: FloatArray | LinearOperator | None, *, classes: ArrayLike,
                    n_pairs: float) -> Self:
        """Fit from pair moments computed elsewhere (e.g. over row blocks on a cluster).

        Solves what ``fit`` solves from its own moments, ``1/2 w'Sigma w - mu'w``
        over ``|w| <= radius``, with this estimator's ``radius``, ``tol`` and
        ``max_iter``: :mod:`birank.distributed` computes ``(mu, Sigma)`` by a
        tree of per-block statistics and fits through this method.

        Parameters
        ----------
        pair_mean : array-like of shape (n_features,) or None
            mu, finite real numbers; None when there is no pair (one class only):
            the model is w = 0.
        pair_second_moment : {array-like, sparse matrix, LinearOperator} of shape \
(n_features, n_features)
            Sigma. An array (or nested list) of finite real numbers is solved by
            eigendecomposition (``solver="eigh"``); a scipy sparse matrix is
            checked the same way and solved as an array up to
            ``AUTO_DENSE_MAX_FEATURES`` (2000) features, as an operator above; an
            operator (``shape``, ``matvec``, and ``trace()`` when ``radius`` is
            None) by CG / Lanczos, and with a ``radius`` an operator offering
            ``densify_if_cheaper`` is first formed where that costs less than the
            Lanczos products, as ``fit`` does. An operator's values are not read
            up front: NaN in it is refused after the solve (non-finite weights).
        classes : array-like of shape (2,)
            The two label values (the larger is the positive class).
        n_pairs : int or float
            The number of pairs (or pair weight) behind the moments, finite and
            >= 0.

        Returns
        -------
        self
            ``intercept_`` is 0 (a pairwise loss sees no bias): set it from the
            training scores if needed. No chunk state is kept, so a later
            ``partial_fit`` is refused; ``fit`` starts over.

        Notes
        -----
        The moments hold no training score, so what ``fit`` derives from the
        scores is not set. ``intercept_`` is 0, so ``predict`` is
        ``classes_[X @ coef_ > 0]``: a cut at the origin, which the pairwise loss
        does not fix (rows with a large common offset can all land on one side).
        ``predict``'s calibrated cut is
        ``est.intercept_ = -birank.base.decision_cut(X @ est.coef_, y == est.classes_[1])``
        on the training rows. ``predict_proba`` has no sigmoid to apply
        (``probability_`` is not set; an earlier fit's is removed) and raises a
        :class:`~sklearn.exceptions.NotFittedError` saying so; ``fit``, or
        :func:`birank.distributed.fit` (which gathers the training scores after
        this method), sets both.
        """
        validate_params(self)
        name = type(self).__name__
        classes = np.unique(np.asarray(classes))
        if classes.shape[0] != 2:
            raise ValueError(f"classes must hold exactly two label values; got {classes!r}.")
        if (isinstance(n_pairs, (bool, np.bool_)) or not isinstance(n_pairs, numbers.Real)
                or not math.isfinite(n_pairs) or n_pairs < 0):
            raise ValueError(f"{name}: n_pairs must be a finite number >= 0; got {n_pairs!r}.")
        if pair_mean is None:
            d = 0
            if pair_second_moment is not None:
                d = _checked_second_moment(name, pair_second_moment, None, self.radius)[1]
            self._reset_online_state()
            self.classes_, self.n_pairs_ = classes, n_pairs
            self.n_features_in_ = int(d)
            self._solve((None, None))
            return self
        mu = _checked_pair_mean(name, pair_mean)
        if pair_second_moment is None:
            raise ValueError("pair_second_moment is None but pair_mean is given: pass both "
                             "moments, or pair_mean=None when there is no pair.")
        sigma, _ = _checked_second_moment(name, pair_second_moment, mu.shape[0], self.radius)
        self._reset_online_state()
        self.classes_, self.n_pairs_ = classes, n_pairs
        self.n_features_in_ = int(mu.shape[0])
        if self.radius is not None and hasattr(sigma, "densify_if_cheaper"):
            sigma.densify_if_cheaper(min(self.max_iter, mu.shape[0]), LANCZOS_MAX_ENTRIES)
        try:
            self._solve((mu, sigma))
            finite = bool(np.isfinite(self.coef_).all())
        except (ValueError, np.linalg.LinAlgError):  # (LAPACK refusing an operator's NaN)
            if isinstance(sigma, np.ndarray):  # (checked finite: an indefinite Sigma, say)
                raise
            finite = False
        if not finite:  # an operator's values are not read above: NaN shows here
            self._reset_online_state()
            raise ValueError(f"{name}: the moments give non-finite weights: "
                             "pair_second_moment holds NaN or infinite values.")
        return self

    def predict_proba(self, X: MatrixLike) -> FloatArray:
        """Calibrated class probabilities (Platt's sigmoid fitted on the training scores).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Columns follow ``classes_``; rows sum to 1; column 1 never
            decreases with ``decision_function(X)``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before any fit, and after :meth:`fit_moments` alone: pair moments
            hold no training scores to fit the sigmoid on.
        """
        if hasattr(self, "coef_") and not hasattr(self, "probability_"):
            raise NotFittedError(
                f"{type(self).__name__} was fitted from pair moments (fit_moments): they "
                "hold no training scores to calibrate predict_proba on. Use fit, or "
                "birank.distributed.fit, which calibrates on the training scores.")
        return super().predict_proba(X)

    def phi_risk(self, X: MatrixLike, y: ArrayLike) -> float:
        """Mean pairwise squared loss ``1/2 (1 - w.(x_i - x_j))^2`` over all pairs of (X, y).

        Computed from pair moments in O(N D), never enumerating pairs:
        ``1/2 - mu'w + 1/2 w'Sigma w``, with ``w'Sigma w = var1(s) + var0(s) +
        (mean1(s) - mean0(s))^2`` for the scores ``s = Xw``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score with ``coef_`` (``intercept_`` cancels in pairs).
        y : array-like of shape (n_samples,)
            Labels, each one of ``classes_`` (else a ValueError); rows equal to
            ``classes_[1]`` are positive. Both classes must occur (else a
            ValueError: there is no pair).

        Returns
        -------
        risk : float
            The mean of ``1/2 (1 - w.(x_i - x_j))^2`` over all (positive,
            negative) pairs, unweighted; gultekin-paisley's ``R_N(w)`` plus the
            constant 1/2.
        """
        from .._validation import check_X

        check_is_fitted(self, "coef_")
        X = check_X(self, X, reset=False)
        y = check_known_labels(self, np.asarray(y).reshape(-1))
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"{type(self).__name__}: X has {X.shape[0]} rows but y has "
                             f"{y.shape[0]} labels.")
        y01 = y == self.classes_[1]
        if y01.all() or not y01.any():
            raise ValueError(f"{type(self).__name__}: y holds one class only "
                             f"({as_written(y[0])!r}); the pairwise risk needs rows of both "
                             "classes.")
        s = matvec(X, self.coef_)
        s1, s0 = s[y01], s[~y01]
        m = s1.mean() - s0.mean()
        # gultekin-paisley Sec. 1 writes R_N(w) = 1/2 w'Sigma w - mu'w, dropping the
        # constant 1/2 of 1/2 (1 - w.z)^2; we keep it so the value is the mean loss.
        return float(0.5 - m + 0.5 * (s1.var() + s0.var() + m * m))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


class BBR(_PairMomentRanker):
    """Batch Bipartite Ranking: exact all-pairs pairwise squared loss in a ball.

    Minimizes the mean over all N1*N0 (positive, negative) pairs of
    ``1/2 (1 - w.(x_i - x_j))^2`` subject to ``|w| <= radius`` (gultekin-paisley,
    Algorithm 1). The pair moments ``mu = m1 - m0`` and
    ``Sigma = C1 + C0 + mu mu'`` come from per-class means and covariances, so fitting
    costs O(N D^2) (dense) instead of O(N1 N0 D^2); with ``solver="cg"`` Sigma is never
    formed and each product ``Sigma v`` costs O(nnz). The ball constraint is solved
    exactly (trust-region subproblem).

    Defaults and their origin: ``radius=None`` minimizes the pairwise
    squared loss without the ball constraint (gultekin-paisley's W* is a
    modelling assumption, not a tuned value); the solver settings are birank's.

    Parameters
    ----------
    radius : float or None, default=None
        The ball radius W*. ``None``: unconstrained minimizer of
        ``1/2 w'(Sigma + r I) w - mu'w`` with a tiny ridge
        ``r = 1e-10 * trace(Sigma) / n_features`` (numerically flat directions of Sigma
        carry no part of mu, so this is the minimum-norm minimizer).
    solver : {"auto", "eigh", "cg"}, default="auto"
        ``"eigh"``: form the D x D moments and solve by eigendecomposition;
        ``"cg"``: implicit Sigma (for sparse, high-dimensional X): each class keeps
        ``X_c'X_c`` as a sparse Gram matrix summed chunk by chunk (at most D^2
        numbers, whatever the number of rows) or, where that matrix would be
        larger than the rows (high-dimensional text), as the rows (see
        :class:`~birank.solvers.pair_moments.ClassGram`); conjugate gradients
        without the ball, a Lanczos trust-region solve (one Krylov sequence, at
        most ``min(max_iter, D)`` products) with it; with the ball, Sigma is
        formed after all when that and its eigendecomposition cost less than
        those products (few features, e.g. a9a), and then solved exactly as ``"eigh"``;
        ``"auto"``: ``"eigh"`` up to 2000 features, else ``"cg"``.
    tol : float, default=1e-10
        CG stops at residual ``tol * |mu|`` (``solver="cg"`` only).
    max_iter : int, default=1000
        Maximum CG iterations per linear solve.
    verbose : bool or int, default=False
        Report progress on stderr.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
        Pairwise losses do not see a bias; this is minus the calibrated score cut on
        the training rows, so ``predict`` is ``decision_function > 0``. After
        ``partial_fit`` the rows are the last 1000 of each class over all chunks,
        weighted to the class's total (:mod:`birank._threshold_tail`; exact while no
        class has more). After :meth:`fit_moments` (no scores): 0.
    pair_mean_ : ndarray of shape (n_features,)
        mu over all pairs.
    pair_second_moment_ : ndarray of shape (n_features, n_features) or LinearOperator
        Sigma over all pairs (an implicit operator with ``solver="cg"``).
    lambda_ : float
        Lagrange multiplier of the ball constraint (0 when inactive).
    n_iter_ : int
        Solver iterations: total CG or Lanczos iterations (implicit Sigma), or 1 +
        Newton steps on the secular equation (formed Sigma; 1 when the constraint
        is inactive).
    n_pairs_ : int or float
        N1 * N0, the number of pairs the moments average over (with
        ``sample_weight``: the product of the class weight sums).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of X, when they are all strings (a pandas DataFrame).
    probability_ : ndarray of shape (2,)
        ``predict_proba``'s sigmoid slopes ``(a_neg, a_pos)`` below and above the
        threshold (:class:`birank.base.ProbabilityMixin`).

    Notes
    -----
    ``partial_fit`` merges per-class moments chunk by chunk (Chan et al.'s update),
    so pairs *across* chunks count too: the result equals ``fit`` on all the data.
    The state kept between chunks is at most ``min(nnz of the rows seen, D^2 + one
    chunk)`` numbers per class (``solver="eigh"``: D x D, never a row). Where
    rows are kept (``solver="cg"``, sparse high-dimensional X), ``fit`` keeps
    them as row indices into X, not copies, so a fit needs little more memory
    than X (1.09x X at 10^7 rows x 10^6 features); the fitted state then
    references X, as scikit-learn's nearest-neighbour estimators do: do not
    change X in place before a later ``partial_fit``. ``partial_fit`` copies
    its chunks.
    ``sample_weight`` (in ``fit`` and ``partial_fit``) acts as repetition: a row
    of weight k counts as k copies (weighted class means and scatters), so pair
    (i, j) weighs ``w_i w_j``.

    Examples
    --------
    >>> import numpy as np
    >>> from birank import BBR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] + 0.5 * rng.normal(size=200) > 0)
    >>> model = BBR(radius=1.0).fit(X, y)
    >>> bool(model.score(X, y) > 0.9)
    True
    >>> bool(np.linalg.norm(model.coef_) <= 1.0 + 1e-12)
    True
    """

    def __init__(self, radius: float | None = None, *,
                 solver: Literal["auto", "eigh", "cg"] = "auto", tol: float = 1e-10,
                 max_iter: int = 1000, verbose: bool | int = False) -> None:
        self.radius = radius
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.verbose = verbose

    def _new_state(self, d, solver):
        if solver == "eigh":
            return {"pos": ClassMoments(d), "neg": ClassMoments(d)}
        return {"pos": ClassGram(d), "neg": ClassGram(d)}

    def _accumulate(self, X, y01, sample_weight, in_place=False):
        st = self._state
        if self._solver_used == "eigh":
            update_class_moments(st["pos"], st["neg"], X, y01, sample_weight)
            return
        for label, gram in ((1, st["pos"]), (0, st["neg"])):
            rows = y01 == label
            if sample_weight is not None:
                rows &= sample_weight > 0
            rows = np.flatnonzero(rows)
            if not rows.size:
                continue
            # folded into the class Gram matrix (low D), or kept as rows: referenced
            # in place by fit (no second X in memory), copied from a partial_fit chunk
            sw = None if sample_weight is None else sample_weight[rows]
            if in_place:
                gram.add(X, sw, rows=rows)
            else:
                gram.add(X[rows], sw)

    def _moments(self):
        st = self._state
        n1, n0 = st["pos"].n, st["neg"].n
        self.n_pairs_ = _count(n1) * _count(n0)
        if n1 == 0 or n0 == 0:
            return None, None
        if self._solver_used == "eigh":
            return all_pairs_moments(st["pos"], st["neg"])
        op = GramPairsOperator(st["pos"], st["neg"])
        if self.radius is not None:
            # the Lanczos solver needs up to min(max_iter, D) products: when forming the
            # D x D Sigma and its eigendecomposition costs less, it is formed and solved
            # exactly by eigendecomposition (no iteration tolerance at all)
            d = self.n_features_in_
            op.densify_if_cheaper(min(self.max_iter, d), LANCZOS_MAX_ENTRIES)
        return op.mu, op


class LCBR(_PairMomentRanker):
    """Low Cost Bipartite Ranking: pairwise squared loss on S sampled pairs, in a ball.

    Draws ``n_pairs`` (positive, negative) pairs uniformly with replacement,
    averages their moments ``mu_S``, ``Sigma_S`` (gultekin-paisley, Algorithm 2) and
    minimizes ``1/2 w'Sigma_S w - mu_S'w`` over ``|w| <= radius`` exactly.
    Cost O(S D^2) with ``solver="eigh"``; ``solver="cg"`` never forms a dense Sigma_S:
    it keeps the second moment of the sampled differences ``z_s`` as a sparse Gram
    matrix or as the z_s, whichever is smaller (as :class:`BBR` does).

    Defaults and their origin: ``n_pairs=5000`` is gultekin-paisley's
    S = 5000 (section 5: "LCBR uses 5,000 subsamples", where it matches BBR);
    ``radius=None`` as in :class:`BBR`.

    Parameters
    ----------
    n_pairs : int, default=5000
        S, the number of pairs sampled (per call of ``fit`` or ``partial_fit``).
    radius : float or None, default=None
        Ball radius W*; ``None`` as in :class:`BBR` (tiny ridge
        ``1e-10 * trace(Sigma_S) / n_features``).
    solver : {"auto", "eigh", "cg"}, default="auto"
        As in :class:`BBR`.
    tol : float, default=1e-10
        CG residual tolerance relative to ``|mu_S|``.
    max_iter : int, default=1000
        Maximum CG iterations per linear solve.
    random_state : None, int, numpy Generator or RandomState, default=None
        Pair sampling. The same int gives the same pairs and a bit-identical model.
    verbose : bool or int, default=False
        Report progress on stderr, as in :class:`BBR`. Off by default as in
        scikit-learn (the CLI turns it on).

    Attributes
    ----------
    classes_, coef_, intercept_, pair_mean_, pair_second_moment_,
    lambda_, n_iter_, n_features_in_, feature_names_in_, probability_ : as in :class:`BBR`
    n_pairs_ : int
        Total number of sampled pairs behind the moments.

    Notes
    -----
    ``partial_fit`` samples ``n_pairs`` pairs *within each chunk* (a chunk with a
    single class contributes none) and averages all pairs sampled so far; pairs
    across chunks are never drawn, unlike :class:`BBR`'s exact stream.
    With ``sample_weight`` each end of a pair is drawn with probability
    proportional to its weight, so a row of weight k is drawn as often as k
    copies would be (equal in distribution, not draw for draw).

    Examples
    --------
    >>> import numpy as np
    >>> from birank import LCBR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3)); y = (X[:, 0] + 0.5 * rng.normal(size=500) > 0)
    >>> model = LCBR(n_pairs=2000, radius=1.0, random_state=0).fit(X, y)
    >>> bool(model.score(X, y) > 0.9)
    True
    >>> model.n_pairs_
    2000
    """

    _parameter_constraints = {
        **_PairMomentRanker._parameter_constraints,
        "n_pairs": [Interval("integer", 1, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, n_pairs: int = 5000, *, radius: float | None = None,
                 solver: Literal["auto", "eigh", "cg"] = "auto", tol: float = 1e-10,
                 max_iter: int = 1000, random_state: RandomStateLike = None,
                 verbose: bool | int = False) -> None:
        self.n_pairs = n_pairs
        self.radius = radius
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose

    def _new_state(self, d, solver):
        self._rng = check_random_state(self.random_state)
        if solver == "eigh":
            return {"n": 0, "sz": np.zeros(d), "szz": np.zeros((d, d))}
        return {"n": 0, "gram": ClassGram(d)}

    def _accumulate(self, X, y01, sample_weight, in_place=False):
        live = np.ones(y01.shape[0], dtype=bool) if sample_weight is None else sample_weight > 0
        pos = np.flatnonzero((y01 == 1) & live).astype(np.int64)
        neg = np.flatnonzero((y01 == 0) & live).astype(np.int64)
        if pos.size == 0 or neg.size == 0:
            return
        if sample_weight is None or (_constant(sample_weight[pos])
                                     and _constant(sample_weight[neg])):
            # gultekin-paisley Alg. 2, line 4; equal weights draw pairs uniformly too,
            # by the same draws: sample_weight=ones gives the unweighted model
            a, b = draw_pairs(self._rng, pos, neg, int(self.n_pairs))
        else:  # a row of weight k is drawn as often as k copies
            a, b = draw_weighted_pairs(self._rng, pos, neg, sample_weight[pos],
                                       sample_weight[neg], int(self.n_pairs))
        st = self._state
        st["n"] += a.shape[0]
        if self._solver_used == "eigh":
            sz, szz = sampled_pair_sums(X, a, b)
            st["sz"] += sz
            st["szz"] += szz
        else:  # the Gram matrix of the sampled z_s: no chunk is kept
            st["gram"].add(pair_rows(X, a, b))

    def _moments(self):
        st = self._state
        self.n_pairs_ = int(st["n"])
        if st["n"] == 0:
            return None, None
        if self._solver_used == "eigh":
            # gultekin-paisley Alg. 2, lines 5-6: the 1/S factor applied once at the end
            return st["sz"] / st["n"], st["szz"] / st["n"]
        op = SecondMomentOperator(st["gram"])
        return op.mu, op


def _constant(w):
    return w.shape[0] == 0 or bool(np.all(w == w[0]))


def _count(n):
    """A class count: an int, or the weight sum (a float) when it is not integral."""
    return int(n) if float(n).is_integer() else float(n)
