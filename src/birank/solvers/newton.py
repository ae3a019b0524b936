"""Truncated Newton for the all-pairs squared-hinge RankSVM.

Problem (Lee & Lin 2014, "Large-scale linear RankSVM", eq. (3) with L2 loss;
Chapelle & Keerthi 2010)::

    min_w  f(w) = 1/2 |w|^2 + C * sum_{(i,j): y_i > y_j, same group}
                     c_ij * max(0, 1 - w.(x_i - x_j))^2,   c_ij = sw_i * sw_j

``PairObjective`` evaluates f, its gradient and generalized-Hessian products
``(I + C X' L X) v`` (L: Laplacian of the active pair graph at the current w)
in O(N log N + nnz) through the sweeps of :mod:`birank._kernels.pair_sweep`.
``newton_cg`` is a line-search truncated Newton method: the direction is
conjugate gradients on ``H d = -g`` (diagonally preconditioned, see
``PairObjective.precondition_from``; as LIBLINEAR >= 2.2 does for TRON, Hsia, Chiang
& Lin 2018, here with a cheap O(nnz) estimate of the pair-Hessian diagonal)
stopped when ``|r| <= eta_k |g|`` with the
forcing term ``eta_k = min(0.1, sqrt(|g| / |g_0|))`` (Eisenstat & Walker
choice 2 style; superlinear near the optimum), then a backtracking Armijo line
search on f (each trial costs one sort and one sweep; X d is the CG steps' X p
summed with their step lengths, no product). After each step the new gradient
and the next preconditioner take their three products with X' in one pass over
X (``grad_and_diag``; the same bits), and the hinge's certificate reuses the
gradient's (``benchmarks/bench_fused_products.py``).
Stopping rule as LIBLINEAR's primal solvers: ``|grad f(w)| <= tol * |grad f(0)|``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._kernels.labels import ranks_in_order, two_values
from .._kernels.losses import HINGE, SQUARED_HINGE
from .._kernels.pair_sweep_ops import csr_rows_gram_matvec, signed_unit_rows
from .._linalg import (RowOperator, dot, grad_diag_rmatvec, is_indicator, matvec, norm,
                       rmatvec, sq_rmatvec)
from .._kernels.pair_sweep import (ONE_LEVEL_MAX_BITS, WORK_ROWS, binary_signed_weights,
                                   count_pairs, level_cache, sweep_hess_vec,
                                   sweep_hess_vec_binary, sweep_loss_grad, sweep_loss_grad_binary,
                                   two_label_diag_rows)
from .._kernels.dense_products import dense_sq_rmatvec
from .._kernels.vector_ops import add_scaled, multiply, squared_hinge_rows
from .._kernels.radix_sort import (RADIX_MIN, argsort_groups, argsort_scores, radix_scratch,
                                   sort_by_segment)
from .._lexsort import group_bounds, lexsort_groups, rows_by_group
from .._parallel import BlockedProducts, effective_n_jobs
from .._validation import codes_of
from .group_threads import GroupSweeps
from .level_threads import LevelSweeps
from .two_label_sweep import TwoLabelSweep
from ._result import SolverResult

__all__ = ["PairObjective", "RowsObjective", "HuberPairObjective", "newton_cg",
           "hinge_by_smoothing", "solve_rows"]



def _sq_rmatvec(X, D, indicator=False):
    """``sum_p D_p x_pd^2`` for every column d: O(nnz) (``indicator``: as
    :func:`birank._linalg.matvec`); a C-contiguous dense X in one pass over its
    rows, no ``X o X`` (:func:`birank._kernels.dense_products.dense_sq_rmatvec`)."""
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.flags.c_contiguous and (
            X.dtype == np.float64 or X.dtype == np.float32):
        return dense_sq_rmatvec(X, np.ascontiguousarray(D, dtype=np.float64).reshape(-1),
                                np.empty(X.shape[1]))
    return sq_rmatvec(X, D, indicator=indicator)


def dense_if_dense_in_fact(X):
    """A float64 CSR matrix with at least 2/3 of its entries stored, as a dense array.

    Its dense form is then no larger (8 bytes an entry against 12 a stored one),
    and the products the Newton solvers repeat run on contiguous rows without
    index reads: 1.5-2x faster on MQ2008 (46 features, all stored). Other
    inputs are returned as they are.
    """
    if (sp.issparse(X) and X.format == "csr" and X.dtype == np.float64
            and 3 * X.nnz >= 2 * X.shape[0] * X.shape[1] and X.shape[1] > 0):
        return np.ascontiguousarray(X.toarray())
    return X


def _is_f64_csr(X):
    return (sp.issparse(X) and X.format == "csr" and X.dtype == np.float64
            and X.indices.dtype == X.indptr.dtype)


class _Products:
    """``X v`` and ``X' u`` of ``self.X``, on threads when ``products`` is set."""

    #: a :class:`birank._parallel.BlockedProducts` (``n_jobs`` given, CSR X) or None
    products = None
    #: every stored value of a CSR X is 1 (:func:`birank._linalg.is_indicator`): the
    #: products do not read them
    indicator = False

    def _set_products(self, X, n_jobs):
        """``self.X = X``, its indicator check, and its products on threads for n_jobs."""
        self.X = X
        self.indicator = is_indicator(X)
        if n_jobs is not None and sp.issparse(X) and X.format == "csr":
            # products over fixed row blocks: the same bits for every n_jobs
            self.products = BlockedProducts(X, n_jobs, indicator=self.indicator)

    def mv(self, v):
        if self.products is None:
            return matvec(self.X, v, indicator=self.indicator)
        return self.products.matvec(v)

    def rmv(self, u):
        if self.products is None:
            return rmatvec(self.X, u, indicator=self.indicator)
        return self.products.rmatvec(u)

    def sq_rmv(self, u):
        """``(X o X)' u``, the diagonal of ``X' diag(u) X``."""
        if self.products is None:
            return _sq_rmatvec(self.X, u, indicator=self.indicator)
        return self.products.rmatvec(u, squared=True)

    def grad_diag_rmv(self, u, D, with_mean=True):
        """``(X' u, X' D, (X o X)' D)`` (the second None without ``with_mean``): the
        gradient's and the diagonal preconditioner's products at one point, in one
        pass over a CSR X, the same bits as :meth:`rmv` and :meth:`sq_rmv`."""
        if self.products is not None:
            return self.products.grad_diag(u, D, with_mean=with_mean)
        if isinstance(self.X, RowOperator):  # (on Dask: one round trip, not three)
            return self.X.grad_diag(u, D, with_mean=with_mean)
        if sp.issparse(self.X) and self.X.format == "csr":
            return grad_diag_rmatvec(self.X, u, D, with_mean=with_mean,
                                     indicator=self.indicator)
        return self.rmv(u), (self.rmv(D) if with_mean else None), self.sq_rmv(D)


class _WeightSpace(_Products):
    """Weight-space methods of a loss given its score-space primitives.

    A subclass has ``X``, ``C``, ``grad_s`` and ``diag`` (kept by
    ``loss_at_scores``), ``hess_scores(u)`` and ``precondition_from(D, m, q, C)``
    (the diagonal preconditioner at active degrees D from ``m = X' D``, taken only
    when ``diag_needs_mean``, and ``q = (X o X)' D``).
    """

    def scores(self, w):
        return self.mv(w)

    def fun_grad(self, w, s=None):
        """f(w), its gradient (subgradient with the active set for hinge) and the loss."""
        if s is None:
            s = self.scores(w)
        loss = self.loss_at_scores(s)
        return 0.5 * dot(w, w) + self.C * loss, self.grad_from_last(w), loss

    def grad_from_last(self, w):
        return w + self.C * self.rmv(self.grad_s)

    def hess_vec(self, v):
        """(I + C X' H X) v with the active set of the last evaluation."""
        return self.hess_vec_scores(v)[0]

    def hess_vec_scores(self, v):
        """``(hess_vec(v), X v)``: conjugate gradients sums the scores of its steps
        into those of the direction, which then costs no product."""
        u = self.scores(v)
        return v + self.C * self.rmv(self.hess_scores(u)), u

    def grad_and_diag(self, w):
        """``(grad_from_last(w), M)``, M the diagonal preconditioner at the last active
        set, their products with X' in one pass.

        After a Newton step both are wanted at the new point: three products with
        X' (two for the rows' objective) become one read of X, the same bits as
        three.
        """
        D = self.diag
        G, m, q = self.grad_diag_rmv(self.grad_s, D, self.diag_needs_mean)
        return w + self.C * G, self.precondition_from(D, m, q, self.C)


def label_ranks(y, gid, n_groups, seg=None):
    """``(lab, nlab)``: each row's label rank inside its group (0 = lowest label) and
    each group's number of distinct labels (``seg``: :func:`birank._lexsort.group_bounds`,
    if the caller has them)."""
    n = y.shape[0]
    if n_groups == 1 and n:
        # one group of at most two labels (RankSVM's binary problem): one scan, no sort
        k, _, hi = two_values(y)
        if k == 1 or k == 2:
            lab = (y == hi) if k == 2 else np.zeros(n, dtype=bool)
            return lab.astype(np.int64), np.array([k], dtype=np.int64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    lab = np.empty(n, dtype=np.int64)
    nlab = np.empty(n_groups, dtype=np.int64)
    if n_groups == 1 and n >= RADIX_MIN:  # the sort hands the labels in order
        order, ys = np.empty(n, dtype=np.int64), np.empty(n)
        argsort_scores(y, order, sorted_out=ys)
        ranks_in_order(ys, _ONE_GROUP, order, lab, nlab)
    else:
        # rows by group, then label (stable; from RADIX_MIN rows by radix passes: numpy's
        # lexsort took 0.15 s of a 10^6-row fit's 0.22 s of label ranks)
        order = lexsort_groups((y,), gid, seg)
        gs = _ONE_GROUP if n_groups == 1 else np.ascontiguousarray(gid, dtype=np.int64)[order]
        ranks_in_order(y[order], gs, order, lab, nlab)
    return lab, nlab


#: ``ranks_in_order``'s group ids for one group (none)
_ONE_GROUP = np.empty(0, dtype=np.int64)


#: rows from which a problem with groups sorts and sweeps its groups on threads
#: (``n_jobs`` > 1): where the serial sort turns from a sort per group to the radix
#: sort of all scores; below, a fit's passes take a few milliseconds
GROUP_THREADS_MIN = RADIX_MIN


class PairObjective(_WeightSpace):
    """All-pairs RankSVM loss on ``(X, y, groups, sample_weight)`` with work arrays.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n, d), float64.
    y : ndarray of shape (n,), float64 (any ordered values; ties form no pair).
    groups : ndarray of shape (n,) or None.
    sample_weight : ndarray of shape (n,) float64 or None; pair weight is the product.
    C : float.
    loss_kind : 0 squared hinge, 1 hinge.
    theta : float, the margin (``pair_sweep.sweep_loss_grad``).
    n_jobs : int or None, threads (None: the serial sweeps).
    one_level_max_bits : int, label ranks of up to this many bits are swept in one
        level (``pair_sweep.level_cache``; smaller values exercise the levels on
        small data).
    """

    def __init__(self, X, y, groups=None, sample_weight=None, C=1.0, loss_kind=SQUARED_HINGE,
                 theta=1.0, n_jobs=None, one_level_max_bits=ONE_LEVEL_MAX_BITS):
        n = X.shape[0]
        self._set_products(dense_if_dense_in_fact(X), n_jobs)
        self.theta = float(theta)
        self.C = float(C)
        self.loss_kind = int(loss_kind)
        self.sw = (np.ones(n) if sample_weight is None
                   else np.ascontiguousarray(sample_weight, dtype=np.float64))
        # all weights 1: the many-label sweeps skip reading them (same numbers, faster)
        self.unit_weights = sample_weight is None or bool(np.all(self.sw == 1.0))
        if groups is None:
            gid = np.zeros(n, dtype=np.int64)
            n_groups = 1
            self.seg = np.array([0, n], dtype=np.int64)
        else:
            gid = codes_of(groups)
            n_groups = int(gid.max()) + 1 if n else 0
            self.seg = group_bounds(gid)
        y = np.asarray(y, dtype=np.float64)
        lab, nlab = label_ranks(y, gid, n_groups, self.seg)
        self.lab = lab
        self.nlab = nlab
        self.single = n_groups == 1
        # one group of at most two labels: ranked against the upper rows' thresholds,
        # no sort of every row (two_label_sweep; bench_limit.py --parts at 10^6 rows:
        # sort + sweep 0.98 -> 0.54-0.69x the bare products, loss + gradient 1.83 ->
        # 1.46-1.79x, Hessian product 1.17 -> 1.00-1.08x); on threads with n_jobs
        self.two_label = None
        if n and self.single and int(nlab[0]) <= 2:
            self.two_label = TwoLabelSweep(lab != 0, self.sw, self.unit_weights, n_jobs)
        self._diag = np.empty(n)  # row order; see the ``diag`` property
        self._diag_in_rows = False
        self.hv_s = np.empty(n)
        self.grad_s = np.empty(n)
        if self.two_label is not None:
            self.n_pairs = self.two_label.n_pairs
            self.order = None  # (HuberPairObjective's shared sort: none here)
            self.levels = level_cache(nlab, 0, one_level_max_bits)
            self.level_sweeps = None
            return
        members = (np.arange(n, dtype=np.int64) if n_groups == 1
                   else rows_by_group(gid, self.seg))
        self.n_pairs = count_pairs(members, self.seg, lab, nlab)
        # rows grouped by segment (row order within each), for argsort_groups; one group
        # sorts with argsort alone
        self.members = None if self.single else members
        threads = n_jobs is not None and effective_n_jobs(n_jobs) > 1
        # more than one thread, groups (query ids): the sort, the sweeps and the Hessian
        # product over runs of whole groups on threads (group_threads.GroupSweeps: the
        # same bits), from GROUP_THREADS_MIN rows
        self.group_sweeps = None
        if threads and not self.single and n >= GROUP_THREADS_MIN:
            self.group_sweeps = GroupSweeps(members, self.seg, nlab, n_jobs)
        # serially, segments are sorted by one radix argsort of all scores, then a
        # stable counting sort by group (O(n), no per-group allocation)
        serial_groups = not self.single and self.group_sweeps is None
        self.gid = gid if serial_groups else None
        self.order_all = np.empty(n, dtype=np.int64) if serial_groups else None
        self.sort_scratch = None if self.group_sweeps is not None else radix_scratch(n)
        # the two-label sweeps' one gather (every segment of more labels: never read)
        self.bw = (binary_signed_weights(lab, self.sw) if np.any(nlab <= 2)
                   else np.empty(0))
        # work arrays, reused by every evaluation
        self.order = np.empty(n, dtype=np.int64)
        self.ptr_hi = np.empty(n, dtype=np.int64)
        self.ptr_lo = np.empty(n, dtype=np.int64)
        # many-label segments' sweep state; its levels set the label digits
        self.levels = level_cache(nlab, n, one_level_max_bits)
        self.work = np.zeros((WORK_ROWS if len(self.levels) else WORK_ROWS - 1, n + 1))
        del members
        # more than one thread, one group of more labels: the loss sweep and the
        # Hessian product's replay on threads (level_threads.LevelSweeps: the same
        # bits as on one thread, where it would only add passes, pass "lo"'s own sums)
        self.level_sweeps = None
        if threads and self.single and len(self.levels):
            self.level_sweeps = LevelSweeps(lab, int(nlab[0]), n_jobs, len(self.levels))

    # -- score-space primitives ----------------------------------------------
    def loss_at_scores(self, s):
        """Sort, sweep; returns the pair loss and keeps grad_s / active set."""
        if self.two_label is not None:
            return self.sweep_sorted(s)
        if self.single:  # the sort writes s[order] where the many-label sweep keeps it
            n = s.shape[0]
            if self.level_sweeps is not None:  # on the threads
                self.level_sweeps.argsort(s, self.order, self.sort_scratch, self.work[5, :n])
            else:
                argsort_scores(s, self.order, self.sort_scratch, sorted_out=self.work[5, :n])
            return self.sweep_sorted(s, scores_sorted=True)
        elif self.group_sweeps is not None:  # a sort per group on the threads
            self.group_sweeps.argsort(s, self.order, self.work[5, :s.shape[0]])
            return self.sweep_sorted(s, scores_sorted=True)
        elif s.shape[0] < RADIX_MIN:  # small groups: a sort per group, writing s[order]
            argsort_groups(s, self.members, self.seg, self.order, self.work[5, :s.shape[0]])
            return self.sweep_sorted(s, scores_sorted=True)
        else:
            argsort_scores(s, self.order_all, self.sort_scratch)
            sort_by_segment(self.order_all, self.gid, self.seg, self.order)
        return self.sweep_sorted(s)

    def sweep_sorted(self, s, loss_kind=None, scores_sorted=False):
        """The sweep alone, with ``self.order`` already sorting ``s`` (``scores_sorted``:
        and ``self.work[5]`` holding ``s[self.order]``)."""
        kind = self.loss_kind if loss_kind is None else loss_kind
        if self.two_label is not None:  # (no sort: s is ranked against thresholds)
            self._diag_in_rows = True
            return self.two_label.loss_grad(s, kind, self.theta, self.grad_s, self._diag)
        self._diag_in_rows = False
        if self.level_sweeps is not None:  # one group of more labels, on threads
            return self.level_sweeps.loss_grad(s, self.order, self.lab, self.sw,
                                               self.unit_weights, kind, self.theta,
                                               scores_sorted, self.grad_s, self._diag,
                                               self.work, self.levels)
        if self.group_sweeps is not None:  # groups, on threads
            return self.group_sweeps.loss_grad(s, self.order, self.lab, self.sw, self.bw, kind,
                                               self.grad_s, self._diag, self.ptr_hi,
                                               self.ptr_lo, self.work, self.levels, self.theta,
                                               self.unit_weights, scores_sorted)
        if not len(self.levels):  # at most two labels a group: the two-label kernel alone
            return sweep_loss_grad_binary(s, self.order, self.seg, self.nlab, self.bw, kind,
                                          self.grad_s, self._diag, self.ptr_hi, self.ptr_lo,
                                          self.work, self.theta, scores_sorted)
        return sweep_loss_grad(s, self.order, self.seg, self.lab, self.nlab,
                               self.sw, self.bw, kind, self.grad_s, self._diag,
                               self.ptr_hi, self.ptr_lo, self.work, self.levels, self.theta,
                               self.unit_weights, scores_sorted)

    def hinge_sweep_sorted(self, s):
        """The hinge pair loss at ``s`` (``self.order`` sorting it), leaving the last
        sweep's state (score gradient, diagonal, the Hessian replay's sorted copy of
        the diagonal) as it was: same sort, same active pairs, only the coefficients
        differ."""
        sorted_diag = self.work[4].copy() if self.two_label is None else None
        kept = (self.grad_s.copy(), self._diag.copy(), self._diag_in_rows)
        loss = self.sweep_sorted(s, loss_kind=HINGE)
        self.grad_s[:], self._diag[:], self._diag_in_rows = kept
        if sorted_diag is not None:
            self.work[4] = sorted_diag
        return loss

    @property
    def diag(self):
        """The generalized Hessian's diagonal w.r.t. the scores at the last sweep, in row
        order: ``2 w_p`` times row p's weighted count of active partners (squared
        hinge; ``w_p`` times it for the hinge). The two-label sweeps keep it in sorted
        order only (the Hessian product reads it there); it is put in row order here,
        when the preconditioner asks (once per Newton step, not at every loss
        evaluation of the line search)."""
        if not self._diag_in_rows:
            if self.group_sweeps is not None:
                self.group_sweeps.diag_rows(self.order, self.work, self._diag)
            else:
                two_label_diag_rows(self.order, self.seg, self.nlab, self.work, self._diag)
            self._diag_in_rows = True
        return self._diag

    def hess_scores(self, u):
        """Generalized Hessian of the pair loss w.r.t. the scores times u (last active set)."""
        if self.two_label is not None:
            return self.two_label.hess_vec(u, self._diag, self.hv_s)
        if self.group_sweeps is not None:
            return self.group_sweeps.hess(u, self.order, self.sw, self._diag, self.ptr_hi,
                                          self.ptr_lo, self.hv_s, self.work, self.levels,
                                          self.unit_weights)
        if not len(self.levels) or self.level_sweeps is not None:
            sweep_hess_vec_binary(u, self.order, self.seg, self.nlab, self._diag, self.ptr_hi,
                                  self.ptr_lo, self.hv_s, self.work)
            if self.level_sweeps is not None:  # (hv_s is diag u for its rows)
                self.level_sweeps.hess(u, self.levels, self.sw, self.unit_weights, self.hv_s)
            return self.hv_s
        sweep_hess_vec(u, self.order, self.seg, self.lab, self.nlab, self.sw,
                       self._diag, self.ptr_hi, self.ptr_lo, self.hv_s, self.work, self.levels,
                       self.unit_weights)
        return self.hv_s

    #: :meth:`precondition_from` takes ``X' D`` (the D-weighted column means)
    diag_needs_mean = True

    def precondition_from(self, D, m, q, C):
        """``1 + C sum_p D_p (x_pd - m_d)^2`` for active degrees D (m: D-weighted mean),
        given ``m = X' D`` (the D-weighted column sums) and ``q = (X o X)' D``.

        With D_p the weighted active degree of row p, ``x' L x <= 2 sum_p D_p
        (x_p - m)^2`` for any shift m (L annihilates constants): O(nnz).
        """
        sD = float(D.sum())
        if sD <= 0.0:
            return np.ones(self.X.shape[1])
        return 1.0 + C * np.maximum(q - m * m / sD, 0.0)


#: rows from which :class:`ScoreVectors` splits ``x + a y`` among the products' threads
SCORE_PARTS_MIN = 1 << 16
#: ``add_scaled``'s empty ``x``: ``0.0 + a y``
_NO_ROWS = np.empty(0)


class ScoreVectors:
    """``x + a y`` on row-length vectors (scores), written into buffers that the Newton
    loop keeps, in parts on the products' threads (``obj.products``, when set).

    Each entry is ``x_p + (a y_p)`` as numpy computes ``x + a * y``
    (:func:`birank._kernels.vector_ops.add_scaled`), so the bits depend neither on
    the parts nor on the threads; numpy would make two temporaries of every row,
    on one thread.
    """

    def __init__(self, obj=None):
        products = getattr(obj, "products", None)
        self.threads = None if products is None else products.threads
        self._buffers = {}

    def buffer(self, name, like):
        """A float64 buffer of ``like``'s length, the same one for ``name`` each call."""
        b = self._buffers.get(name)
        if b is None or b.shape[0] != like.shape[0]:
            b = self._buffers[name] = np.empty(like.shape[0])
        return b

    def rows(self, kernel, n, *args):
        """``kernel(*args, p0, p1)`` over the rows ``0 .. n-1``, in parts on the threads
        (a kernel of :mod:`birank._kernels.vector_ops`: each row computed alone)."""
        if self.threads is None or n < SCORE_PARTS_MIN:
            kernel(*args, 0, n)
        else:
            self.threads.run(kernel, [(*args, p0, p1) for p0, p1 in self.threads.ranges(n)])

    def add_scaled(self, out, x, a, y):
        """``out = x + a y`` (``x`` empty: ``0.0 + a y``); returns ``out``."""
        y = np.ascontiguousarray(y, dtype=np.float64).reshape(-1)
        self.rows(add_scaled, out.shape[0], out, x, float(a), y)
        return out


def _cg(hess_vec_scores, g, rtol, max_cg, M=None, vectors=None):
    """(Preconditioned) conjugate gradients for H d = -g, stopped when |r| <= rtol.

    ``M`` is a diagonal preconditioner (approximate diag(H)) or None.
    ``hess_vec_scores(p)`` gives ``(H p, X p)`` (``X p`` None where the product
    does not form it); returns ``(d, steps, X d)``, the last summed from the
    steps' ``X p`` as d is from the p (None when some step had none): the scores
    of the direction without a product with X, equal to ``X d`` to rounding.
    ``vectors``: the :class:`ScoreVectors` that sums them (into its buffer "xd").
    """
    vectors = ScoreVectors() if vectors is None else vectors
    d = np.zeros_like(g)
    xd = _NO_ROWS  # X d: 0 while d is (no step yet); None once a step has no X p
    r = -g.copy()
    z = r / M if M is not None else r
    p = z.copy()
    rz = dot(r, z)
    rnorm = norm(r)
    it = 0
    while it < max_cg and rnorm > rtol:
        Hp, xp = hess_vec_scores(p)
        pHp = dot(p, Hp)
        if pHp <= 0.0:  # cannot happen for I + PSD; guard against round-off
            break
        alpha = rz / pHp
        d += alpha * p
        if xp is None or xd is None:
            xd = None
        else:  # (the first step adds to 0.0, as the sum from zero would)
            xd = vectors.add_scaled(vectors.buffer("xd", xp), xd, alpha, xp)
        r -= alpha * Hp
        rnorm = norm(r)
        z = r / M if M is not None else r
        rz_new = dot(r, z)
        p *= rz_new / rz
        p += z
        rz = rz_new
        it += 1
    return d, it, (xd if xd is not None and it else None)


def newton_cg(obj, w0, tol=1e-4, max_iter=100, report=None, max_cg=None, precondition=True,
              stop=None):
    """Minimize ``obj`` (a :class:`PairObjective`) by line-search truncated Newton.

    ``stop(w, s, rel_grad)``, if given, is called after every iteration with the
    new w, its scores (``obj`` was last evaluated there) and ``|g| / |g_0|``;
    True ends the run.

    Returns
    -------
    SolverResult
        ``coef`` = w, ``objective`` = f, ``info`` with the gradient norms and CG counts.
    """
    w = np.array(w0, dtype=np.float64, copy=True)
    d_feat = w.shape[0]
    if max_cg is None:
        max_cg = max(50, 2 * d_feat)
    s = np.ascontiguousarray(obj.scores(w), dtype=np.float64)
    vectors = ScoreVectors(obj)  # trial scores and the direction's, in kept buffers
    s_try = np.empty_like(s)
    # reference gradient norm: at w = 0, as LIBLINEAR (|grad f(0)| = C |X' grad_s(0)|)
    gnorm0 = norm(obj.fun_grad(np.zeros_like(w))[1]) if np.any(w) else None
    f = 0.5 * dot(w, w) + obj.C * obj.loss_at_scores(s)  # (fun_grad's f)
    if precondition:  # the gradient and the first preconditioner in one pass over X
        g, M = obj.grad_and_diag(w)
    else:
        g, M = obj.grad_from_last(w), None
    gnorm = norm(g)
    if gnorm0 is None:
        gnorm0 = gnorm
    total_cg = 0
    converged = stopped = False
    n_iter = 0
    reason = "max_iter reached"
    if gnorm <= tol * gnorm0 or gnorm0 == 0.0:
        return SolverResult(w, 0, True, f, info={"gnorm": gnorm, "gnorm0": gnorm0, "cg": 0})
    for n_iter in range(1, max_iter + 1):
        eta = min(0.1, np.sqrt(gnorm / gnorm0))
        # no CG residual far below the stopping tolerance: after a full step the new
        # gradient is about the residual (exactly so for a quadratic), so
        # |r| <= tol |g_0| / 2 reaches the stop; solving further only costs products
        d, ncg, z = _cg(obj.hess_vec_scores, g, max(eta * gnorm, 0.5 * tol * gnorm0), max_cg,
                        M, vectors)
        total_cg += ncg
        gd = dot(g, d)
        if gd >= 0.0:  # not a descent direction (round-off); fall back to -g
            d = -g
            gd = -gnorm * gnorm
            z = None
        if z is None:
            z = obj.scores(d)
        ww, wd, dd = dot(w, w), dot(w, d), dot(d, d)
        step = 1.0
        while True:
            loss_t = obj.loss_at_scores(vectors.add_scaled(s_try, s, step, z))
            f_t = 0.5 * (ww + 2.0 * step * wd + step * step * dd) + obj.C * loss_t
            if f_t <= f + 1e-4 * step * gd or step < 1e-12:
                break
            step *= 0.5
        w += step * d
        s, s_try = s_try, s  # (the accepted trial: s + step z)
        f_old = f
        f = f_t
        if precondition:  # the next step's preconditioner, in the gradient's pass over X
            g, M = obj.grad_and_diag(w)
        else:
            g = obj.grad_from_last(w)
        gnorm = norm(g)
        if report is not None:
            report(n_iter, None, f"f={f:.10g} |g|={gnorm:.3e} cg={ncg} step={step:g}")
        if gnorm <= tol * gnorm0:
            converged = True
            break
        if stop is not None and stop(w, s, gnorm / gnorm0):
            converged = stopped = True
            break
        if step < 1e-12 or f_old - f <= 1e-15 * abs(f):
            # no progress possible in floating point. Converged if the gradient is near
            # the tolerance, or if the Newton model promised no decrease that float64
            # could show (|g.d| / 2, the model's decrease, within the rounding of f):
            # a tolerance below that is met as well as arithmetic allows, and whether
            # the last rounding let |g| dip under it is luck, not progress
            converged = gnorm <= 10 * tol * gnorm0 or -0.5 * gd <= 1e-14 * abs(f)
            if not converged:
                reason = "no progress in floating point (tol too small)"
            break
    else:
        reason = "max_iter reached"
    return SolverResult(w, n_iter, converged, f, reason="" if converged else reason,
                        stopped_early=stopped,
                        info={"gnorm": gnorm, "gnorm0": gnorm0, "cg": total_cg})


class RowsObjective(_WeightSpace):
    """Squared-hinge loss over explicit weighted rows: ``sum_p c_p max(0, theta - z_p.w)^2``.

    The same interface as :class:`PairObjective` (score-space primitives, then
    weight-space ones), for a matrix Z whose rows are the pair vectors
    themselves: ActiveRankSVM's chosen pool. Two of these make a
    :class:`HuberPairObjective`, so :func:`hinge_by_smoothing` solves the
    weighted hinge problem ``1/2|w|^2 + sum_p c_p max(0, 1 - z_p.w)`` with a
    certified duality gap; its Hessian is ``I + Z' D Z`` with D diagonal.

    Parameters
    ----------
    Z : ndarray or CSR matrix of shape (n_rows, d), float64.
    cost : ndarray of shape (n_rows,), the c_p > 0.
    n_jobs : int or None
        Threads for the products with a CSR Z (:class:`birank._parallel.BlockedProducts`:
        the same bits for every value); the Hessian product then reads every row.
    """

    def __init__(self, Z, cost, C=1.0, theta=1.0, n_jobs=None):
        self.X = Z
        if n_jobs is not None and sp.issparse(Z) and Z.format == "csr":
            self.products = BlockedProducts(Z, n_jobs)
        self.cost = np.ascontiguousarray(cost, dtype=np.float64)
        self.C = float(C)
        self.theta = float(theta)
        self.loss_kind = SQUARED_HINGE
        n = Z.shape[0]
        self.order = None  # no sort: HuberPairObjective shares it, unused here
        self.grad_s = np.zeros(n)
        self.diag = np.zeros(n)
        self._rows = self._row_diag = self._rows_of = None
        self._unit_rows = None  # signed_unit_rows(Z), checked at the first Hessian product
        self.vectors = ScoreVectors(self)  # the passes over the rows, on the products' threads

    def loss_at_scores(self, s):
        return self.sweep_sorted(s)

    def sweep_sorted(self, s, loss_kind=None):
        """Loss at the scores; the squared hinge also keeps grad_s and the active diagonal
        (new arrays each time: :meth:`hess_vec_scores` knows a diagonal by identity)."""
        kind = self.loss_kind if loss_kind is None else loss_kind
        if kind == HINGE:
            return dot(self.cost, np.maximum(self.theta - s, 0.0))
        s = np.ascontiguousarray(s, dtype=np.float64).reshape(-1)
        n = s.shape[0]
        r, self.grad_s, self.diag = np.empty(n), np.empty(n), np.empty(n)
        # r, grad_s and diag in one pass, as numpy's np.maximum(theta - s, 0), -2 cost r
        # and where(r > 0, 2 cost, 0) give them; then r * r in place
        self.vectors.rows(squared_hinge_rows, n, s, self.cost, self.theta, r, self.grad_s,
                          self.diag)
        self.vectors.rows(multiply, n, r, r, r)
        return dot(self.cost, r)

    def hinge_sweep_sorted(self, s):
        """The hinge loss at ``s``; the last squared-hinge state is not touched."""
        return self.sweep_sorted(s, loss_kind=HINGE)

    def hess_scores(self, u):
        u = np.ascontiguousarray(u, dtype=np.float64).reshape(-1)
        out = np.empty(u.shape[0])
        self.vectors.rows(multiply, u.shape[0], out, self.diag, u)
        return out

    def hess_vec_scores(self, v):
        """``(I + C Z_A' D_A Z_A) v``: a float64 CSR Z reads its active rows alone, once
        (then no ``Z v``: None)."""
        X = self.X
        if not _is_f64_csr(X) or self.products is not None:
            return super().hess_vec_scores(v)
        if self._rows_of is not self.diag:  # the active rows of the current diagonal
            self._rows = np.flatnonzero(self.diag)
            self._row_diag = self.diag[self._rows]
            self._rows_of = self.diag
        if self._unit_rows is None:
            self._unit_rows = bool(signed_unit_rows(X.data, X.indptr))
        v = np.ascontiguousarray(v, dtype=np.float64)
        # rows of +-1 (binary features times a label): the values are not read
        out = csr_rows_gram_matvec(None if self._unit_rows else X.data, X.indices, X.indptr,
                                   self._rows, self._row_diag, v, np.zeros(X.shape[1]))
        return v + self.C * out, None

    #: :meth:`precondition_from` needs ``(Z o Z)' D`` alone
    diag_needs_mean = False

    def precondition_from(self, D, m, q, C):
        """``diag(I + C Z' diag(D) Z)``, exact, given ``q = (Z o Z)' D``."""
        return 1.0 + C * q


class HuberPairObjective(_Products):
    """Huber-smoothed pair hinge as a difference of two squared hinges.

    With the Huber loss ``h_delta(xi) = xi^2 / (2 delta)`` for ``0 <= xi < delta``
    and ``xi - delta / 2`` beyond, for ``xi = 1 - d``:

        h_delta(1 - d) = ((1 - d)_+^2 - (1 - delta - d)_+^2) / (2 delta)

    (check: for d <= 1 - delta the right side is ((1-d)^2 - (1-d-delta)^2) /
    (2 delta) = (1 - d) - delta / 2). So the smoothed objective
    ``1/2|w|^2 + C sum c_p h_delta(1 - d_p)`` is ``1/2|w|^2 + C/(2 delta) *
    (L_1 - L_{1-delta})`` with ``L_theta`` the squared-hinge pair loss at margin
    theta: two sweeps on one sort; its generalized Hessian is the band Laplacian
    ``(L_1 - L_{1-delta}) / (2 delta)``, so :func:`newton_cg` applies as is.
    """

    def __init__(self, obj1, obj2, C, delta):
        self.o1, self.o2 = obj1, obj2
        self.X = obj2.X = obj1.X  # (obj2's own copy of a densified X is not kept)
        self.products = obj2.products = obj1.products
        self.indicator = obj2.indicator = obj1.indicator
        obj2.order = obj1.order  # one sort serves both margins
        self.set_delta(C, delta)
        self._sweeps = 0  # loss evaluations so far: what the kept X' product belongs to
        self._kept_rmv = (-1, None)  # (evaluation, X'(g_1 - g_{1-delta})) of the last gradient

    def set_delta(self, C, delta):
        self.C_hinge = float(C)
        self.delta = float(delta)
        self.C = self.C_hinge / (2.0 * self.delta)
        self.o2.theta = 1.0 - self.delta

    def scores(self, w):
        return self.mv(w)

    def loss_at_scores(self, s):
        self._sweeps += 1
        l1 = self.o1.loss_at_scores(s)
        l2 = self.o2.sweep_sorted(s)
        return l1 - l2

    def fun_grad(self, w, s=None):
        if s is None:
            s = self.scores(w)
        loss = self.loss_at_scores(s)
        f = 0.5 * dot(w, w) + self.C * loss
        return f, self.grad_from_last(w), loss

    def grad_from_last(self, w):
        G = self.rmv(self.o1.grad_s - self.o2.grad_s)
        self._kept_rmv = (self._sweeps, G)
        return w + self.C * G

    def hess_vec(self, v):
        return self.hess_vec_scores(v)[0]

    def hess_vec_scores(self, v):
        u = self.scores(v)
        h = self.o1.hess_scores(u).copy()
        h -= self.o2.hess_scores(u)
        return v + self.C * self.rmv(h), u

    def grad_and_diag(self, w):
        """``(grad_from_last(w), M)`` with one pass over X (as
        :meth:`_WeightSpace.grad_and_diag`)."""
        D = self.o1.diag - self.o2.diag  # the band's degrees, >= 0
        G, m, q = self.grad_diag_rmv(self.o1.grad_s - self.o2.grad_s, D)
        self._kept_rmv = (self._sweeps, G)
        return w + self.C * G, self.o1.precondition_from(D, m, q, self.C)

    def certificate(self, w, s, current=False):
        """Hinge primal P(w) and a dual lower bound D(alpha) <= P*, both exact.

        alpha_p = C c_p clip((1 - d_p) / delta, 0, 1) is feasible for the hinge
        dual ``max sum alpha - 1/2 |sum alpha_p z_p|^2, 0 <= alpha_p <= C c_p``;
        ``sum alpha_p = C/delta (H_1 - H_{1-delta})`` with ``H_theta`` the hinge
        pair loss at margin theta, and ``sum alpha_p z_p = -C/(2 delta) X'(g_1 -
        g_{1-delta})`` with the squared-hinge score gradients g.

        ``current=True`` says the last evaluation was at ``s`` (as after a
        Newton step), so its sort and squared-hinge sweeps are reused.
        """
        C, delta = self.C_hinge, self.delta
        if not current:
            self.loss_at_scores(s)  # squared-hinge sweeps at both margins
        sweep, G = self._kept_rmv
        if sweep != self._sweeps:  # (after a Newton step the gradient's product is this one)
            G = self.rmv(self.o1.grad_s - self.o2.grad_s)
        w_alpha = -(C / (2.0 * delta)) * G
        h1 = self.o1.hinge_sweep_sorted(s)
        h2 = self.o2.hinge_sweep_sorted(s)
        dual = (C / delta) * (h1 - h2) - 0.5 * dot(w_alpha, w_alpha)
        primal = 0.5 * dot(w, w) + C * h1
        return primal, dual


def hinge_by_smoothing(obj1, obj2, C, tol=1e-4, max_iter=1000, report=None, delta0=0.1,
                       shrink=0.1, min_delta=1e-12, newton_tol=1e-8, w0=None):
    """Exact all-pairs hinge RankSVM by Huber smoothing with a certified gap.

    Minimizes the Huber-smoothed objective by :func:`newton_cg` (warm-started)
    for delta = delta0, delta0 * shrink, ...; after every Newton iteration the
    exact hinge primal value P(w) and the dual value D(alpha(w)) of a feasible
    dual point (see :meth:`HuberPairObjective.certificate`; it reuses the
    iteration's sort and sweeps) bound the optimum: D <= P* <= P(w). Stops when
    ``P - D <= tol * P``, returning the best w. Since P_hinge - P_huber <= C
    delta / 2 * (weighted number of active pairs), the gap closes as delta
    shrinks. Certifying every iterate (not only each stage's last) stops the
    run at the first iterate that meets ``tol``, mid-stage if it comes there.
    delta0 = 0.1: on a9a the stage at delta = 1 never certified anything and
    cost a third of the Newton iterations.

    ``obj1``, ``obj2``: squared-hinge :class:`PairObjective` (or
    :class:`RowsObjective`) on the same data. ``max_iter`` bounds the total
    number of Newton iterations; ``w0`` is the starting point (default 0).

    Returns
    -------
    SolverResult
        ``coef`` = the best w, ``objective`` = its hinge primal P, the certified
        ``lower_bound`` and the ``reason`` for stopping ('' if converged);
        ``widths``: the smoothing widths the run went through.
    """
    hub = HuberPairObjective(obj1, obj2, C, delta0)
    w = np.zeros(obj1.X.shape[1]) if w0 is None else np.array(w0, dtype=np.float64)
    best = {"w": w, "p": np.inf, "d": -np.inf, "gap": np.inf}
    n_iter = 0
    delta = delta0
    widths = []
    steps = [0]  # Newton steps so far, the current stage's included (the progress count)

    def certify(w, s, current):
        """Both bounds at w (kept if better); True when the gap is certified."""
        if current:  # called after a Newton step of the running stage
            steps[0] += 1
        p, d = hub.certificate(w, s, current=current)
        if p < best["p"]:
            best["w"], best["p"] = w.copy(), p
        best["d"] = max(best["d"], d)
        gap = (best["p"] - best["d"]) / best["p"] if best["p"] > 0 else 0.0
        best["gap"] = gap
        if report is not None:
            report(steps[0], None, f"delta={delta:.1e} P={best['p']:.10g} "
                                 f"lower={best['d']:.10g} gap={gap:.2e}")
        return gap <= tol

    while n_iter < max_iter and delta >= min_delta:
        hub.set_delta(C, delta)
        widths.append(delta)
        # every Newton iteration is certified (its sort and squared sweeps reused), so
        # the run stops at the first certified iterate, mid-stage if need be
        stage = newton_cg(hub, w, tol=newton_tol, max_iter=max_iter - n_iter,
                          stop=lambda w_k, s_k, g_k: certify(w_k, s_k, True))
        w = stage.coef
        n_iter += stage.n_iter
        steps[0] = n_iter  # (a stage's last step, ending on its own test, certifies below)
        if stage.n_iter == 0 or not stage.stopped_early:
            # the stage ended on its own test (or did not move): certify its last iterate
            certify(w, hub.scores(w), False)
        if best["gap"] <= tol:
            break
        delta *= shrink
    converged = best["gap"] <= tol
    best_w, best_p, best_d = best["w"], best["p"], best["d"]
    reason = ("" if converged else
              "max_iter reached" if n_iter >= max_iter else
              f"smoothing width below {min_delta:g} without certifying the gap "
              "(tol too small for floating point)")
    return SolverResult(best_w, n_iter, converged, best_p, lower_bound=best_d, reason=reason,
                        widths=tuple(widths))


def solve_rows(Z, cost, loss="hinge", w0=None, tol=1e-4, max_iter=1000, report=None):
    """``min_w 1/2|w|^2 + sum_p cost_p loss(1 - z_p.w)`` over explicit rows Z, by Newton.

    The primal counterpart of dual coordinate descent, for pools where the
    dual is degenerate (many rows over few features: dual CD then creeps).
    ``'squared_hinge'``: :func:`newton_cg` to ``|grad| <= tol |grad(0)|``.
    ``'hinge'``: :func:`hinge_by_smoothing` to a certified relative duality
    gap ``<= tol``. ``report(step, total, message)``, if given, is called after
    every Newton iteration, as by those two.

    Returns
    -------
    SolverResult
        With ``dual_coef``: a feasible dual point alpha (one per row) for the
        returned w (see :func:`_rows_dual_point`).
    """
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    if loss == "squared_hinge":
        res = newton_cg(RowsObjective(Z, cost), np.zeros(Z.shape[1]) if w0 is None else w0,
                        tol=tol, max_iter=max_iter, report=report)
        widths = ()
    else:
        res = hinge_by_smoothing(RowsObjective(Z, cost), RowsObjective(Z, cost), 1.0, tol=tol,
                                 max_iter=max_iter, w0=w0, report=report)
        widths = res.widths
    res.dual_coef = _rows_dual_point(Z, cost, res.coef, loss, widths)
    return res


def _rows_dual_point(Z, cost, w, loss, widths):
    """A dual point for the primal ``w`` of :func:`solve_rows`.

    Squared hinge: the KKT point ``alpha_p = 2 cost_p xi_p`` (``w = sum alpha_p
    z_p`` at the optimum). Hinge: ``alpha_p = cost_p clip(xi_p / delta, 0, 1)`` is
    feasible for every smoothing width delta (:meth:`HuberPairObjective.certificate`);
    the w returned need not come from the last width's stage, so the best dual
    value over the widths the run went through is kept, each alpha scaled by the
    t in [0, 1] maximizing the dual along it.
    """
    slack = 1.0 - matvec(Z, w)
    if loss == "squared_hinge":
        return 2.0 * cost * np.maximum(slack, 0.0)
    best, best_dual = np.zeros_like(slack), 0.0
    for delta in widths:
        alpha = cost * np.clip(slack / delta, 0.0, 1.0)
        w_alpha = rmatvec(Z, alpha)  # sum_p alpha_p z_p
        norm2, total = dot(w_alpha, w_alpha), float(alpha.sum())
        t = 1.0 if norm2 == 0.0 else min(1.0, total / norm2)
        dual = t * total - 0.5 * t * t * norm2
        if dual > best_dual:
            best, best_dual = t * alpha, dual
    return best
