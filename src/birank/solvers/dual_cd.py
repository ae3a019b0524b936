"""Dual coordinate descent driver over a pool of pair rows (warm-startable).

The Python driver of :mod:`birank._kernels.dual_cd`: :class:`DualCD` keeps
``w = sum_p alpha_p z_p``, draws the kernel seeds and applies the stopping
rule; the rows, their costs and duals live in a pool
(:class:`birank.solvers.pair_pool.PairPool`). :meth:`DualCD.solve` returns
whether it converged and never warns: the estimator decides. Used by
:class:`birank.WeightedSVM` (pseudo-pairs), by ActiveRankSVM (a pool grown by
active sampling, warm-started after every batch) and by tests as the
brute-force all-pairs solver on tiny data. :class:`PairDualCD` is the
one-call form: a pool built from X plus its driver.
"""

from __future__ import annotations

import numpy as np

from .._linalg import dot
from .._validation import check_random_state, draw_seed
from ..pairs import PseudoPairs
from ._passes import Passes
from ._result import SolverResult
from .newton import solve_rows
from .pair_pool import PairPool, check_costs

#: largest pool matrix :meth:`DualCD.newton_finish` forms, in stored numbers (dense
#: cells or CSR entries; 2**25 is 0.25-0.4 GB)
MAX_POOL_MATRIX = 2**25

__all__ = ["DualCD", "PairDualCD", "solve_point_dual_cd", "LOSSES"]

#: 'logistic': Yu, Huang & Lin (2011) dual CD (:mod:`birank._kernels.dual_cd_logistic`)
LOSSES = ("hinge", "squared_hinge", "logistic")


def _check_tol_max_iter(tol, max_iter):
    # float() first: np.isfinite refuses a Python int beyond int64 (tol=2**70 is valid)
    if not (isinstance(tol, (int, float, np.integer, np.floating)) and tol > 0
            and np.isfinite(float(tol))):
        raise ValueError(f"tol must be a positive float; got {tol!r}.")
    if not (isinstance(max_iter, (int, np.integer)) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive int; got {max_iter!r}.")


class DualCD:
    """Dual CD for ``min_w 1/2|w|^2 + sum_p C_p loss(1 - w.z_p)`` over a pool's rows.

    ``loss`` is ``'hinge'`` (dual box ``0 <= alpha_p <= C_p``) or
    ``'squared_hinge'`` (``alpha_p >= 0``, diagonal ``1/(2 C_p)``), as in
    Hsieh et al. (2008) and LIBLINEAR's ``solve_l2r_l1l2_svc``, or
    ``'logistic'`` (``C_p log(1 + exp(-w.z_p))``; entropy-barrier dual on
    ``0 < alpha_p < C_p``, Yu, Huang & Lin 2011). With a pool
    built with ``fit_threshold=True`` the last entry of ``w`` is the
    threshold theta of shen-lin eq. (8), regularized with w (as LIBLINEAR does
    with its bias); ``intercept_ = -theta`` so that scores are
    ``X @ coef_ + intercept_``.

    Parameters
    ----------
    pool : PairPool
        The rows (see :mod:`birank.solvers.pair_pool` for what a pool provides).
    loss : {'hinge', 'squared_hinge', 'logistic'}, default='hinge'
    shrinking : bool, default=True
    random_state : None, int or numpy Generator
        Each :meth:`solve` draws one kernel seed from it.

    Attributes
    ----------
    w : ndarray of shape (pool.state_size,)
        ``sum_p alpha_p z_p``; the last entry is theta.
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_iter_ : int
        Outer iterations of the last :meth:`solve`.
    pg_gap_ : float
        Projected-gradient spread ``PGmax - PGmin`` when the last solve stopped.
    converged_ : bool
        What the last :meth:`solve` returned.
    """

    def __init__(self, pool, *, loss="hinge", shrinking=True, random_state=None):
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}; got {loss!r}.")
        self.pool = pool
        self.loss = loss
        self.shrinking = bool(shrinking)
        self._rng = check_random_state(random_state)
        self.w = np.zeros(pool.state_size)  # last entry: theta
        self.n_iter_ = 0
        self.pg_gap_ = np.inf
        self.converged_ = False

    # ----------------------------------------------------------------- solve
    def solve(self, tol=0.1, max_iter=1000, report=None):
        """Dual CD from the current alpha (a true warm start).

        Parameters
        ----------
        tol : float, default=0.1
            Stop when the spread of the projected gradient ``PGmax - PGmin``
            is at most ``tol`` (LIBLINEAR's rule; its default for the dual
            solvers).
        max_iter : int, default=1000
            Outer iterations (passes over the active rows).
        report : callable, default=None
            ``report(step, total, message)`` (a reporter of
            :mod:`birank._progress`): called before the passes (step 0), between
            them (step = the passes run so far; the projected-gradient spread
            against ``tol`` and, with shrinking, the active rows) about once a
            second, after every pass when a pass takes longer, and after them
            (step = the passes run). The passes then run in calls of the
            compiled kernel sized to about half a second each
            (:mod:`birank.solvers._passes`); without ``report``, in one call.
            The result is the same bits either way.

        Returns
        -------
        converged : bool
            False when ``max_iter`` was reached before the tolerance
            (``n_iter_`` and ``pg_gap_`` say how far it got). No warning is
            raised here: the caller decides.
        """
        _check_tol_max_iter(tol, max_iter)
        seed = draw_seed(self._rng)
        if report is not None:
            report(0, None, f"dual CD over {self.n_rows} rows: at most {max_iter} passes, "
                            f"tol={tol:g}")
        passes = Passes(seed, self.n_rows)
        tol, max_iter = float(tol), int(max_iter)
        if self.loss == "logistic":
            def step(until):
                self.pool.cd_run_logistic(self.w, tol, passes, until)
        else:
            squared = self.loss == "squared_hinge"

            def step(until):
                self.pool.cd_run(self.w, squared, tol, self.shrinking, passes, until)
        passes.run(step, max_iter, report, lambda p: self._pass_line(p, tol))
        n_iter, gap = passes.n_iter, passes.gap
        self.n_iter_ = n_iter
        self.pg_gap_ = gap
        self.converged_ = not (n_iter >= max_iter and gap > tol)
        if report is not None:
            report(self.n_iter_, None,
                   f"dual CD: {self.n_iter_} passes, projected-gradient spread "
                   f"{self.pg_gap_:.3g} {'<=' if self.converged_ else '>'} tol={tol:g}")
        return self.converged_

    def _pass_line(self, passes, tol):
        """The progress line between passes: the spread against tol, the active rows."""
        gap = passes.gap
        line = (f"dual CD pass {passes.n_iter}: projected-gradient spread {gap:.3g} "
                f"{'<=' if gap <= tol else '>'} tol={tol:g}")
        if self.shrinking and self.loss != "logistic":
            line += f", {passes.n_active} of {self.n_rows} rows active"
        return line

    def result(self):
        """The state after the last :meth:`solve` as a :class:`SolverResult`.

        ``coef`` is the full ``w`` (threshold last), ``objective`` the primal
        objective, ``lower_bound`` the dual objective (a lower bound on the optimum by
        weak duality), ``info`` the projected-gradient gap (a diagnostic).
        """
        return SolverResult(self.w.copy(), self.n_iter_, self.converged_,
                            self.primal_objective(), self.intercept_,
                            lower_bound=self.dual_objective(), info={"pg_gap": self.pg_gap_})

    def not_converged_message(self, name, max_iter, tol):
        """The sentence a caller puts in its ConvergenceWarning after a failed :meth:`solve`."""
        return (f"{name} did not converge in max_iter={max_iter} iterations "
                f"(projected-gradient spread {self.pg_gap_:.3g} > tol={tol:g}); increase "
                "max_iter or tol.")

    # ------------------------------------------------------------ the pool
    def add_rows(self, a, b, C, check=True):
        """Append rows to the pool (alpha 0: ``w`` unchanged, the next solve is warm)."""
        self.pool.add_rows(a, b, C, check=check)

    def set_weights(self, C):
        """New costs for all rows; alpha is clipped to ``[0, C]`` (hinge), w updated.

        Q_pp does not depend on C, so no merges are needed; the next
        :meth:`solve` continues from the clipped alpha. ``w`` changes only by
        ``sum_p delta_p z_p`` over the clipped rows: when fewer than half of
        the rows with a non-zero alpha are clipped that sum is added to ``w``,
        otherwise ``w`` is rebuilt from all alphas (cheaper, and it also drops
        the rounding accumulated by the incremental updates of :meth:`solve`).
        """
        C = check_costs(C, self.pool.n_rows)
        self.pool.C_[:] = C
        if self.loss == "squared_hinge":
            return  # alpha_p >= 0 only: w is unchanged
        alpha = self.pool.alpha_
        # logistic: the dual's log barrier needs alpha_p < C_p strictly
        cap = C if self.loss == "hinge" else C * (1.0 - 1e-3)
        clipped = np.flatnonzero(alpha > cap)
        if clipped.size == 0:
            return
        delta = cap[clipped] - alpha[clipped]
        alpha[clipped] = cap[clipped]
        if 2 * clipped.size < np.count_nonzero(alpha):
            self.pool.update_w(self.w, clipped, delta)
        else:
            self.pool.rebuild_w(self.w)

    def scale_weights(self, kappa):
        """Multiply every cost ``C_p`` and every ``alpha_p`` by ``kappa > 0``; ``w`` follows.

        ``alpha <= C`` still holds exactly (rounding is monotone), and
        ``w = sum_p alpha_p z_p`` becomes ``kappa w``: O(n_rows + n_features),
        no row of X is read. ActiveRankSVM's bias-corrected weights
        (shen-lin 4.1) change by one common factor between rounds, so this is
        its warm start for the rows already in the pool.
        """
        kappa = float(kappa)
        if not (np.isfinite(kappa) and kappa > 0):
            raise ValueError(f"kappa must be finite and > 0; got {kappa!r}.")
        self.pool.C_[:] *= kappa
        self.pool.alpha_[:] *= kappa
        self.w *= kappa

    # ------------------------------------------------------------ read-outs
    @property
    def coef_(self):
        return self.w[:-1]

    @property
    def intercept_(self):
        return float(-self.w[-1])

    @property
    def alpha_(self):
        return self.pool.alpha_

    @property
    def C_(self):
        return self.pool.C_

    @property
    def rows_(self):
        return self.pool.rows_

    @property
    def n_rows(self):
        return self.pool.n_rows

    def margins(self):
        """``w . z_p`` for every row (including the threshold coordinate)."""
        return self.pool.margins(self.w)

    def pool_matrix(self):
        """The rows as a matrix (n_rows, n_features + 1), see :meth:`PairPool.pool_matrix`."""
        return self.pool.pool_matrix()

    def pool_matrix_size(self):
        """Numbers the pool matrix would store, see :meth:`PairPool.pool_matrix_size`."""
        return self.pool.pool_matrix_size()

    def newton_finish(self, tol, max_iter=1000, report=None):
        """Newton on the pool matrix from the current w (``solve_rows``), or None.

        For a pool dual CD cannot finish (many rows over few features: its dual
        is degenerate and coordinate steps creep). None when the matrix would
        hold more than :data:`MAX_POOL_MATRIX` numbers (dense cells or CSR
        entries), so that the finish never needs more memory than that.
        ``report``: as :func:`~birank.solvers.newton.solve_rows`'s (after every
        Newton iteration).
        """
        if self.loss == "logistic" or self.pool_matrix_size() > MAX_POOL_MATRIX:
            return None  # (no Newton for the logistic loss: its dual CD does not creep)
        return solve_rows(self.pool_matrix(), self.C_, self.loss, w0=self.w, tol=tol,
                          max_iter=max_iter, report=report)

    def primal_objective(self):
        """``1/2 (|w|^2 + theta^2) + sum_p C_p loss(1 - w.z_p)``."""
        if self.loss == "logistic":  # C_p log(1 + exp(-w.z_p))
            return 0.5 * dot(self.w, self.w) + dot(self.C_, np.logaddexp(0.0, -self.margins()))
        xi = np.maximum(0.0, 1.0 - self.margins())
        if self.loss == "squared_hinge":
            xi = xi * xi
        return 0.5 * dot(self.w, self.w) + dot(self.C_, xi)

    def dual_objective(self):
        """``sum alpha - 1/2 |w(alpha)|^2 - sum alpha^2 D_pp`` (the primal value at the optimum)."""
        al = self.alpha_
        w = np.zeros_like(self.w)
        self.pool.rebuild_w(w)
        if self.loss == "logistic":  # Yu, Huang & Lin (2011) eq. (10), sign-flipped
            C = self.C_
            with np.errstate(divide="ignore", invalid="ignore"):
                ent = (np.where(al > 0, al * np.log(al), 0.0)
                       + np.where(C - al > 0, (C - al) * np.log(C - al), 0.0))
            return -0.5 * dot(w, w) - float(ent.sum()) + dot(C, np.log(C))
        val = al.sum() - 0.5 * dot(w, w)
        if self.loss == "squared_hinge":
            val -= float(np.sum(al * al * (0.25 / self.C_)))  # D_pp alpha^2 / 2 = alpha^2 / (4C)
        return float(val)


class PairDualCD(DualCD):
    """A :class:`~birank.solvers.pair_pool.PairPool` on X and its :class:`DualCD` driver.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
    loss : {'hinge', 'squared_hinge', 'logistic'}, default='hinge'
    fit_threshold, compact_rows, pair_rows : bool, default=False
        Passed to the pool (see :class:`~birank.solvers.pair_pool.PairPool`).
    tol : float, default=0.1
    max_iter : int, default=1000
        The defaults of :meth:`solve`.
    shrinking : bool, default=True
    random_state : None, int or numpy Generator

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> solver = PairDualCD(X, tol=1e-8, random_state=0)
    >>> solver.add_rows([0, 2], [1, 1], C=[1.0, 1.0])   # x0 above x1, x2 above x1
    >>> solver.solve()
    True
    >>> solver.coef_.round(6).tolist()
    [1.0, 0.0]
    >>> bool(abs(solver.primal_objective() - solver.dual_objective()) < 1e-8)
    True
    """

    def __init__(self, X, *, loss="hinge", fit_threshold=False, tol=0.1, max_iter=1000,
                 shrinking=True, compact_rows=False, pair_rows=False, random_state=None):
        _check_tol_max_iter(tol, max_iter)
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}; got {loss!r}.")
        pool = PairPool(X, fit_threshold=fit_threshold, compact_rows=compact_rows,
                        pair_rows=pair_rows)
        super().__init__(pool, loss=loss, shrinking=shrinking, random_state=random_state)
        self.tol = float(tol)
        self.max_iter = int(max_iter)

    def solve(self, tol=None, max_iter=None, report=None):
        """:meth:`DualCD.solve` with the constructor's ``tol`` / ``max_iter`` as defaults."""
        return super().solve(self.tol if tol is None else tol,
                             self.max_iter if max_iter is None else max_iter, report=report)


def solve_point_dual_cd(X, y01, cost, *, loss="hinge", fit_intercept=False, tol=0.1,
                        max_iter=1000, random_state=None, report=None):
    """Weighted point-wise SVM by dual coordinate descent (LIBLINEAR's ``-s 1`` / ``-s 3``).

    Every row with a positive cost is a pseudo-pair against the origin
    (:class:`~birank.pairs.PseudoPairs`: ``y_k x_k`` in LIBLINEAR's terms); the
    pool is solved once from zero.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d)
    y01 : ndarray of shape (n,), 1 for the positive class, 0 for the negative.
    cost : ndarray of shape (n,), ``c_i >= 0`` (class weight times sample weight).
    loss, fit_intercept, tol, max_iter, random_state
        As :class:`PairDualCD` (``fit_intercept`` is its ``fit_threshold``).
    report : callable, default=None
        ``report(step, total, message)``, as :meth:`DualCD.solve`'s.

    Returns
    -------
    PairDualCD
        The solved solver: ``coef_``, ``intercept_``, ``converged_``, ``n_iter_``,
        ``primal_objective()``; it does not warn (the caller decides).
    """
    keep = np.flatnonzero(cost > 0)
    a, b = PseudoPairs(y01).decode(keep)
    solver = PairDualCD(X, loss=loss, fit_threshold=fit_intercept, tol=tol,
                        max_iter=max_iter, random_state=random_state)
    solver.add_rows(a, b, cost[keep])
    del a, b, keep  # the pool holds its own rows: O(N) freed before the solve
    solver.solve(report=report)
    return solver
