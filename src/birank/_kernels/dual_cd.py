"""Dual coordinate descent on implicit pair rows (Hsieh et al. 2008, Algorithm 1 + 3.2 shrinking).

Problem (one row p per pair or pseudo-pair, computed on the fly from X)::

    min_w  1/2 |w|^2 + sum_p C_p loss(1 - w . z_p),   z_p = x[a_p] - x[b_p] (+ t_p e_theta)

with row index -1 standing for the origin and ``t_p`` the coefficient of the
extra threshold coordinate (shen-lin eq. (8), extended vector ``[-1; x]``: -1
for (k, -1), +1 for (-1, k), 0 for real pairs; all zero without a threshold).
Its dual, as in LIBLINEAR's ``solve_l2r_l1l2_svc``::

    min_alpha  1/2 alpha' (Q + D) alpha - e' alpha,   0 <= alpha_p <= U_p

    hinge:          U_p = C_p,   D_pp = 0
    squared hinge:  U_p = inf,   D_pp = 1 / (2 C_p)

with ``Q_pq = z_p . z_q`` and ``w = sum_p alpha_p z_p`` kept up to date. The
variable names follow the paper: ``QD`` (= Q_pp + D_pp; the pool stores
``Q_pp`` so that new weights need no new merges), ``G`` (partial gradient),
``PG`` (projected gradient). ``X`` is the rows argument of :mod:`.sparse_rows`;
``w`` has ``n_features + 1`` entries, the last being theta (0 when unused).

The pool is stored row-major so that one coordinate step touches two cache
lines of metadata: ``ab[p] = (a_p, b_p)`` (int64) and
``rf[p] = (C_p, Q_pp, alpha_p)`` (float64).

The passes are resumable: everything one pass hands to the next (the random
stream, the visit order ``index`` with the shrunk rows behind the active ones,
the active-set size, last pass's projected-gradient extremes, the pass count)
lives in four arrays made by :func:`start_passes`, and the ``*_run`` kernels
(:func:`dual_cd_run`, :func:`dual_cd_points_run`; the logistic and kernel
solvers' too) run the passes from that state up to a given pass and leave it
there. Any split of the passes into calls gives the same bits as one call up
to ``max_iter``, so a driver can report between calls (``birank.solvers._passes``).
"""

import numpy as np
from numba import njit

from .sparse_rows import (
    csr_row_diff,
    pair_axpy,
    pair_dot_w,
    rng_init,
    rng_shuffle,
    rows_dot,
    split_row_axpy,
    split_row_dot,
    split_rows,
)

_INF = np.inf
#: columns of the float row table
RF_C, RF_Q, RF_ALPHA = 0, 1, 2
#: entries of a run's ``counts`` (int64): passes done, active rows, 1 once the stopping
#: rule is met
CNT_IT, CNT_ACTIVE, CNT_DONE = 0, 1, 2
#: entries of a run's ``pg`` (float64): last pass's projected-gradient extremes as the
#: shrinking test uses them (``PGmax_old``, ``PGmin_old``), last pass's spread
PG_MAX, PG_MIN, PG_GAP = 0, 1, 2


@njit(cache=True, inline="always")
def tcoef(a, b, fit_threshold):
    """Threshold coordinate of row (a, b): shen-lin eq. (8), -1 for (k, -1), +1 for (-1, k)."""
    if not fit_threshold:
        return 0.0
    if b < 0:
        return -1.0
    if a < 0:
        return 1.0
    return 0.0


@njit(cache=True)
def pair_q(X, ab, rf, start, stop, fit_threshold):
    """``Q_pp = |x_a - x_b|^2 + t_p^2`` for rows ``start <= p < stop`` (a new block).

    ``|x_a|^2 + |x_b|^2 - 2 x_a.x_b`` clipped at 0, as :func:`pair_sqnorm`
    computes it, but with the row norms taken here for the two rows only:
    a pool of B pairs touches at most 2B rows, so nothing is done per row of X
    (ActiveRankSVM on 10^7 rows would otherwise spend O(nnz) on norms).
    """
    for p in range(start, stop):
        a, b = ab[p, 0], ab[p, 1]
        t = tcoef(a, b, fit_threshold)
        q = 0.0
        if a >= 0:
            q += rows_dot(X, a, a)
        if b >= 0:
            q += rows_dot(X, b, b)
        if a >= 0 and b >= 0:
            q -= 2.0 * rows_dot(X, a, b)
        if q < 0.0:
            q = 0.0
        rf[p, RF_Q] = q + t * t


@njit(cache=True)
def pair_margins(X, w, ab, n_rows, fit_threshold):
    """``w . z_p`` for the first ``n_rows`` rows (theta is ``w[-1]``)."""
    theta = w[w.shape[0] - 1]
    out = np.empty(n_rows)
    for p in range(n_rows):
        a, b = ab[p, 0], ab[p, 1]
        out[p] = pair_dot_w(X, w, a, b) + tcoef(a, b, fit_threshold) * theta
    return out


@njit(cache=True)
def rebuild_w(X, w, ab, rf, n_rows, fit_threshold):
    """``w = sum_p alpha_p z_p`` (overwrites w)."""
    w[:] = 0.0
    theta = 0.0
    for p in range(n_rows):
        al = rf[p, RF_ALPHA]
        if al != 0.0:
            a, b = ab[p, 0], ab[p, 1]
            pair_axpy(X, w, al, a, b)
            theta += al * tcoef(a, b, fit_threshold)
    if fit_threshold:
        # (without the flag, w[-1] is whatever the rows hold there: 0, or theta
        # when the threshold is a stored column of the rows, see PairDualCD(pair_rows))
        w[w.shape[0] - 1] = theta


@njit(cache=True)
def update_w(X, w, ab, rows, delta, fit_threshold):
    """``w += sum_k delta_k z_{rows_k}`` (theta in ``w[-1]``): w after a few alphas changed."""
    last = w.shape[0] - 1
    for k in range(rows.shape[0]):
        p = rows[k]
        a, b = ab[p, 0], ab[p, 1]
        pair_axpy(X, w, delta[k], a, b)
        w[last] += delta[k] * tcoef(a, b, fit_threshold)


@njit(cache=True, inline="always")
def _projected_gradient(G, alpha_p, U, PGmax_old, PGmin_old, shrinking):
    """LIBLINEAR's projected gradient of row p; ``(PG, shrink)``, shrink: the row
    is at a bound, its gradient points outside by more than last pass's extreme
    (Hsieh et al. 2008, section 3.2), so it leaves the active set."""
    if alpha_p == 0.0:
        if G > PGmax_old and shrinking:
            return 0.0, True
        return (G, False) if G < 0.0 else (0.0, False)
    if alpha_p == U:
        if G < PGmin_old and shrinking:
            return 0.0, True
        return (G, False) if G > 0.0 else (0.0, False)
    return G, False


@njit(cache=True, inline="always")
def _new_alpha(G, alpha_p, U, QD):
    """The coordinate minimizer clipped to ``[0, U]`` (``QD = Q_pp + D_pp``)."""
    if QD > 0.0:
        new = alpha_p - G / QD
        if new < 0.0:
            new = 0.0
        elif new > U:
            new = U
        return new
    # z_p = 0 (hinge): the dual is linear in alpha_p, go to the bound G points at
    return U if G < 0.0 else 0.0


@njit(cache=True, inline="always")
def _after_pass(PGmax_new, PGmin_new, active_size, n_rows, tol):
    """LIBLINEAR's stopping rule after a pass: ``(done, active_size, PGmax_old,
    PGmin_old, gap)``; a pass within tol on a shrunk set is followed by one on all rows."""
    gap = PGmax_new - PGmin_new if active_size > 0 else 0.0
    if gap <= tol:
        if active_size == n_rows:
            return True, active_size, _INF, -_INF, gap
        return False, n_rows, _INF, -_INF, gap
    PGmax_old = PGmax_new if PGmax_new > 0.0 else _INF
    PGmin_old = PGmin_new if PGmin_new < 0.0 else -_INF
    return False, active_size, PGmax_old, PGmin_old, gap


@njit(cache=True, inline="always")
def _store_state(counts, pg, it, active_size, done, PGmax_old, PGmin_old, gap):
    """Leave a run's state (the loop's variables) in ``counts`` and ``pg``
    (:func:`start_passes`)."""
    counts[CNT_IT] = it
    counts[CNT_ACTIVE] = active_size
    counts[CNT_DONE] = 1 if done else 0
    pg[PG_MAX] = PGmax_old
    pg[PG_MIN] = PGmin_old
    pg[PG_GAP] = gap


@njit(cache=True)
def start_passes(seed, n_rows):
    """The state a run of passes carries from one pass to the next, before the first:
    ``(rng, index, counts, pg)``.

    ``rng``: the xorshift state from ``seed`` (:func:`.sparse_rows.rng_init`);
    ``index``: the visit order, ``0 .. n_rows - 1`` (the active rows first, then
    the shrunk ones); ``counts``: ``(passes done, active rows, done)`` (entries
    :data:`CNT_IT`, :data:`CNT_ACTIVE`, :data:`CNT_DONE`); ``pg``: ``(PGmax_old,
    PGmin_old, gap)`` (:data:`PG_MAX`, :data:`PG_MIN`, :data:`PG_GAP`), ``(inf,
    -inf, 0)`` before the first pass.
    """
    rng = rng_init(seed)
    index = np.empty(n_rows, dtype=np.int64)  # (np.arange: one more overload to compile)
    for i in range(n_rows):
        index[i] = i
    counts = np.zeros(3, dtype=np.int64)
    counts[CNT_ACTIVE] = n_rows
    pg = np.empty(3)
    pg[PG_MAX] = _INF
    pg[PG_MIN] = -_INF
    pg[PG_GAP] = 0.0
    return rng, index, counts, pg


@njit(cache=True)
def dual_cd_run(X, w, ab, rf, n_rows, squared, fit_threshold, tol, shrinking, rng, index,
                counts, pg, until):
    """Dual CD from the current alpha (``w`` must equal sum_p alpha_p z_p on entry),
    from the state ``rng, index, counts, pg`` (:func:`start_passes`) until pass
    ``until`` (a total, not a number of passes more) or the stopping rule; the state
    is left after the last pass run (``counts[CNT_IT]``: the passes done, ``until``
    when the tolerance was not met; ``pg[PG_GAP]``: the last pass's ``PGmax -
    PGmin``). Any split of the passes into calls gives the same bits as one call.

    Each outer iteration visits the active rows in a fresh random order
    (Fisher-Yates from the seed of ``rng``). With ``shrinking`` a row at a bound
    whose gradient points outside by more than last iteration's extreme projected
    gradient leaves the active set (Hsieh et al. 2008, section 3.2). The loop
    stops when ``PGmax - PGmin <= tol`` on the active set and, if rows were
    shrunk, again on all rows (LIBLINEAR's rule).

    The rows argument is split once (:func:`.sparse_rows.split_rows`) and the passes
    (:func:`_pair_passes`) read the rows through :func:`.sparse_rows.split_row_dot` and
    :func:`.sparse_rows.split_row_axpy`, compiled for the one layout present, rather than
    through the layout-dispatched primitives: called once or twice a step, those cost a
    third of a pass on 2 x 10^5 a9a pairs, up to a fifth on generated rows of 20 features
    (same bits; ``benchmarks/bench_point_kernel.py pairs``).
    """
    dense, data, indices, indptr = split_rows(X)
    _pair_passes(dense, data, indices, indptr, w, ab, rf, n_rows, squared, fit_threshold,
                 tol, shrinking, rng, index, counts, pg, until)


@njit(cache=True)
def _pair_passes(dense, data, indices, indptr, w, ab, rf, n_rows, squared, fit_threshold, tol,
                 shrinking, state, index, counts, pg, until):
    """The passes of :func:`dual_cd_run` on X's dense rows or CSR arrays (the other None:
    numba drops the branches of the absent layout when it compiles)."""
    active_size = counts[CNT_ACTIVE]
    PGmax_old = pg[PG_MAX]
    PGmin_old = pg[PG_MIN]
    last = w.shape[0] - 1
    it = counts[CNT_IT]
    gap = pg[PG_GAP]
    done = counts[CNT_DONE] != 0
    while it < until and not done:
        PGmax_new = -_INF
        PGmin_new = _INF
        rng_shuffle(index, active_size, state)  # random permutation of the active rows
        s = 0
        while s < active_size:
            p = index[s]
            ap = ab[p, 0]
            bp = ab[p, 1]
            Cp = rf[p, RF_C]
            alpha_p = rf[p, RF_ALPHA]
            tp = tcoef(ap, bp, fit_threshold)
            if squared:
                U = _INF
                Dp = 0.5 / Cp
            else:
                U = Cp
                Dp = 0.0
            # G = (Q alpha + D alpha - e)_p = w . z_p - 1 + D_pp alpha_p
            if bp < 0:
                G = split_row_dot(dense, data, indices, indptr, w, ap)
            elif ap < 0:
                G = -split_row_dot(dense, data, indices, indptr, w, bp)
            else:
                G = (split_row_dot(dense, data, indices, indptr, w, ap)
                     - split_row_dot(dense, data, indices, indptr, w, bp))
            G += tp * w[last] - 1.0 + Dp * alpha_p
            PG, shrink = _projected_gradient(G, alpha_p, U, PGmax_old, PGmin_old, shrinking)
            if shrink:  # swap row p behind the active rows
                active_size -= 1
                index[s], index[active_size] = index[active_size], p
                continue
            if PG > PGmax_new:
                PGmax_new = PG
            if PG < PGmin_new:
                PGmin_new = PG
            if abs(PG) > 1e-12:
                new = _new_alpha(G, alpha_p, U, rf[p, RF_Q] + Dp)
                rf[p, RF_ALPHA] = new
                d = new - alpha_p
                if d != 0.0:  # w += d z_p, as pair_axpy
                    if ap >= 0:
                        split_row_axpy(dense, data, indices, indptr, w, d, ap)
                    if bp >= 0:
                        split_row_axpy(dense, data, indices, indptr, w, -d, bp)
                    w[last] += d * tp
            s += 1
        it += 1
        done, active_size, PGmax_old, PGmin_old, gap = _after_pass(
            PGmax_new, PGmin_new, active_size, n_rows, tol)
    _store_state(counts, pg, it, active_size, done, PGmax_old, PGmin_old, gap)


@njit(cache=True)
def dual_cd_points_run(dense, data, indices, indptr, binary, w, ab, rf, n_rows, squared,
                       fit_threshold, tol, shrinking, state, index, counts, pg, until):
    """:func:`dual_cd_run` for pools of pseudo-pairs only: the point-wise SVM, from the
    state ``state, index, counts, pg`` (:func:`start_passes`: ``state`` is its ``rng``)
    until pass ``until`` (a total) or the stopping rule, the state left after the
    last pass.

    Every row is ``(k, -1)`` (``z = x_k``, threshold coefficient -1) or
    ``(-1, k)`` (``z = -x_k``, +1): LIBLINEAR's ``y_k x_k`` with ``y_k = +-1``.
    The same algorithm, random stream and arithmetic as :func:`dual_cd_run`
    (so the same alphas and w bit for bit), in the loop of LIBLINEAR's
    ``solve_l2r_l1l2_svc``: one row read for ``w . x_k``, one for the update,
    no per-step dispatch on the row kind. The bounds U and diagonal D of the
    loss are fixed per call (hinge: C_p, 0; squared hinge: inf, 1 / (2 C_p)).

    The rows of X are ``dense`` (C-contiguous, n x d; ``data``, ``indices``,
    ``indptr`` None) or, when ``dense`` is None, the CSR arrays
    (:func:`~.sparse_rows.split_rows`). Numba drops the branches of the layout
    whose arguments are None when it compiles, so each layout gets its own
    loop, rather than calling the layout-dispatched primitives of
    :mod:`.sparse_rows`: a helper taking arrays, called in this loop, made a
    pass on a9a 1.4-2x slower, even inlined (scratch A/B). Against
    :func:`dual_cd_run` on the same pool this kernel takes 0.65-0.77x the time per
    pass on dense rows and 0.37-0.85x on CSR rows
    (``benchmarks/bench_point_kernel.py``).

    Two things LIBLINEAR does not do, both leaving the arithmetic unchanged:

    * ``binary``: every stored value is 1 (a9a, w8a, bag-of-words indicators;
      :func:`all_ones`), so ``data`` is not read: ``w_j * 1.0 == w_j``
      exactly, and half the memory traffic per row is saved.
    * loads are issued ahead of the random visit order, which no hardware
      prefetcher follows, as a pipeline: the pool row three steps ahead (its
      ``ab`` and ``rf`` entries), the ``indptr`` entry of the row two steps
      ahead, the first index and value of the row of X one step ahead; each
      stage's address comes from lines the stage before fetched a step
      earlier, so no look-ahead load waits on a miss. Two stages (pool row two
      ahead, X row one ahead) cut the time per pass on 10^5 random rows by
      15-20%; the third and the value took another 10% off 300 passes on 10^6
      random rows (scratch A/B runs; numba has no prefetch intrinsic, the
      loads are kept alive through ``touched``, which enters the stored gap
      as ``0.0 * touched``).
    """
    active_size = counts[CNT_ACTIVE]
    PGmax_old = pg[PG_MAX]
    PGmin_old = pg[PG_MIN]
    last = w.shape[0] - 1
    thr = 1.0 if fit_threshold else 0.0
    it = counts[CNT_IT]
    gap = pg[PG_GAP]
    done = counts[CNT_DONE] != 0
    touched = 0
    while it < until and not done:
        PGmax_new = -_INF
        PGmin_new = _INF
        rng_shuffle(index, active_size, state)
        s = 0
        while s < active_size:
            # look-ahead pipeline (see the docstring): each stage reads what the stage
            # before loaded one step earlier, so none of these loads waits on a miss
            if s + 3 < active_size:  # pool row three steps ahead: its (a, b) and weights
                pn = index[s + 3]
                touched += ab[pn, 0] + (rf[pn, RF_ALPHA] > 0.0)
            # (the layout is tested by a None argument alone, one condition a line: numba
            # drops the branch of the other layout when it compiles)
            if indptr is not None:
                if s + 2 < active_size:  # two steps ahead: where its CSR row starts
                    pn = index[s + 2]
                    touched += indptr[ab[pn, 0] + ab[pn, 1] + 1]
            if s + 1 < active_size:  # the next row of X: its first index and value
                pn = index[s + 1]
                kn = ab[pn, 0] + ab[pn, 1] + 1
                if dense is not None:
                    if dense.shape[1] > 0:  # (rows of no features: nothing to load)
                        touched += dense[kn, 0] > 0.0
                if indptr is not None:
                    l0 = indptr[kn]
                    if l0 < indptr[kn + 1]:
                        touched += indices[l0]
                        if not binary:
                            touched += data[l0] > 0.0
            p = index[s]
            # one of a_p, b_p is -1 (the origin), so the point is a_p + b_p + 1; no
            # branch on the class: in a random order it would be mispredicted often
            k = ab[p, 0] + ab[p, 1] + 1
            yk = 1.0 - 2.0 * (ab[p, 0] < 0)
            Cp = rf[p, RF_C]
            alpha_p = rf[p, RF_ALPHA]
            if squared:
                U = _INF
                Dp = 0.5 / Cp
            else:
                U = Cp
                Dp = 0.0
            dot = 0.0
            lo = hi = np.uint64(0)
            if dense is not None:
                for j in range(dense.shape[1]):
                    dot += w[j] * dense[k, j]
            if indptr is not None:
                lo = np.uint64(indptr[k])
                hi = np.uint64(indptr[k + 1])
                if binary:
                    for q in range(lo, hi):
                        dot += w[np.uint64(indices[q])]
                else:
                    for q in range(lo, hi):
                        dot += w[np.uint64(indices[q])] * data[q]
            # G = y_k w.x_k + t_p theta - 1 + D_pp alpha_p, t_p = -y_k (shen-lin eq. (8))
            G = yk * dot
            G += -yk * thr * w[last] - 1.0 + Dp * alpha_p
            PG, shrink = _projected_gradient(G, alpha_p, U, PGmax_old, PGmin_old, shrinking)
            if shrink:  # swap row p behind the active rows
                active_size -= 1
                index[s], index[active_size] = index[active_size], p
                continue
            if PG > PGmax_new:
                PGmax_new = PG
            if PG < PGmin_new:
                PGmin_new = PG
            if abs(PG) > 1e-12:
                new = _new_alpha(G, alpha_p, U, rf[p, RF_Q] + Dp)
                rf[p, RF_ALPHA] = new
                d = new - alpha_p
                if d != 0.0:
                    c = yk * d  # exactly d or -d, as pair_axpy's row_axpy(X, w, -d, k)
                    if dense is not None:
                        for j in range(dense.shape[1]):
                            w[j] += c * dense[k, j]
                    if indptr is not None:
                        if binary:
                            for q in range(lo, hi):
                                w[np.uint64(indices[q])] += c
                        else:
                            for q in range(lo, hi):
                                w[np.uint64(indices[q])] += c * data[q]
                    w[last] += d * (-yk * thr)
            s += 1
        it += 1
        done, active_size, PGmax_old, PGmin_old, gap = _after_pass(
            PGmax_new, PGmin_new, active_size, n_rows, tol)
    _store_state(counts, pg, it, active_size, done, PGmax_old, PGmin_old, gap + 0.0 * touched)


@njit(cache=True)
def all_ones(data):
    """Whether every stored value is exactly 1 (stops at the first that is not)."""
    for v in data:
        if v != 1.0:
            return False
    return True


@njit(cache=True)
def map_local_rows(rows, local_of, n_local, new_rows):
    """Local ids of the global row ids in ``rows`` (``-1``, the origin, stays ``-1``).

    ``local_of[g]`` is the local id of global row ``g`` or ``-1`` when it has
    no local copy yet; such rows get the next ids in order of first use (so
    the two rows of a pair tend to be adjacent) and are listed in
    ``new_rows``. Returns the local ids (same shape as ``rows``) and the
    number of new rows.
    """
    out = np.empty_like(rows)
    n_new = 0
    for p in range(rows.shape[0]):
        for c in range(rows.shape[1]):
            g = rows[p, c]
            if g < 0:
                out[p, c] = -1
                continue
            loc = local_of[g]
            if loc < 0:
                loc = n_local + n_new
                local_of[g] = loc
                new_rows[n_new] = g
                n_new += 1
            out[p, c] = loc
    return out, n_new


@njit(cache=True)
def gather_csr_rows(data, indices, indptr, rows, ldata, lind, lptr, start):
    """Append CSR rows ``rows`` of X to the local copy as local rows ``start, start + 1, ...``."""
    nz = lptr[start]
    for k in range(rows.shape[0]):
        r = rows[k]
        for q in range(indptr[r], indptr[r + 1]):
            ldata[nz] = data[q]
            lind[nz] = indices[q]
            nz += 1
        lptr[start + k + 1] = nz


@njit(cache=True)
def merge_pair_rows(data, indices, indptr, a, b, t, t_col, zdata, zind, zptr, start):
    """Append the pair vectors ``z_k = x[a_k] - x[b_k]`` (+ ``t_k`` in column ``t_col``).

    One sorted merge of two CSR rows per pair (:func:`.sparse_rows.csr_row_diff`:
    row ``-1`` is the origin, entries that cancel exactly are dropped). The
    rows go to the CSR buffers ``zdata, zind, zptr`` as rows ``start,
    start + 1, ...``; ``zptr[start]``
    must hold the entries already stored. The caller sizes the buffers for
    ``nnz(x_a) + nnz(x_b) + 1`` entries per pair.
    """
    nz = zptr[start]
    for k in range(a.shape[0]):
        nz = csr_row_diff(data, indices, indptr, a[k], b[k], zind, zdata, nz)
        if t[k] != 0.0:
            zdata[nz] = t[k]
            zind[nz] = t_col
            nz += 1
        zptr[start + k + 1] = nz
