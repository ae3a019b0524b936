"""Exact ranking metrics in O(N log N): ROC AUC, pairwise accuracy, Kendall tau, MAP, NDCG.

No function here enumerates pairs. Score ties always count as half a
concordant pair (AUC, pairwise accuracy) or are averaged over every order of
the tied rows (NDCG); see each function for the exact definition.

Small inputs never touch numba: the first call of any compiled kernel in a
process costs about 0.75 s of numba start-up (its target initialisation, on top
of about 0.4 s to import it), more than the whole metric on a LETOR file. So the
sweeps are vectorized numpy wherever numpy is exact and not slower than the
sort before them (MAP, NDCG, pairwise accuracy over few label levels), and the
two kernels that are much faster than numpy at scale (the AUC merge, the Fenwick
sweep over many label levels) run only from ``KERNEL_MIN_ROWS`` rows or where no
numpy sweep applies; both paths give the same exact counts.

Examples
--------
>>> from birank.metrics import roc_auc, pairwise_accuracy
>>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
0.75
>>> pairwise_accuracy([1.0, 2.0, 3.0], [0.3, 0.2, 0.9])
0.6666666666666666
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from ._dots import dot
from ._lexsort import lexsort_groups
from ._validation import as_written, check_n_jobs, check_y01, group_codes

if TYPE_CHECKING:
    from typing import Any, Callable, Literal

    from ._typing import ArrayLike

__all__ = [
    "roc_auc",
    "pairwise_accuracy",
    "kendall_tau",
    "mean_average_precision",
    "ndcg_at_k",
    "roc_auc_per_group",
    "optroc_accuracy",
    "best_accuracy_threshold",
    "make_pairwise_scorer",
]


# --------------------------------------------------------------------------- checks
def _as_1d(a, name):
    arr = np.asarray(a)
    if arr.dtype.kind == "c":
        # (a cast to float64 would drop the imaginary part, with numpy's warning only; an
        # object array of complex numbers fails that cast, and is refused as not numeric)
        raise ValueError(f"Complex data not supported: {name} holds complex numbers; "
                         "pass real values.")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}.")
    return arr


def _check_scores(y_score, n, name="y_score"):
    s = _as_1d(y_score, name)
    if s.shape[0] != n:
        raise ValueError(
            f"y_true and {name} have different lengths: {n} and {s.shape[0]}."
        )
    if s.dtype.kind not in "biuf":
        try:
            s = s.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numeric; got dtype {s.dtype}.") from None
    s = np.ascontiguousarray(s, dtype=np.float64)
    if not np.isfinite(s).all():
        bad = int(np.flatnonzero(~np.isfinite(s))[0])
        raise ValueError(
            f"{name} contains NaN or infinite values (first at index {bad}: {s[bad]!r})."
        )
    return s


def _check_weights(sample_weight, n):
    if sample_weight is None:
        return None
    w = _as_1d(sample_weight, "sample_weight")
    if w.shape[0] != n:
        raise ValueError(
            f"sample_weight has length {w.shape[0]}, but y_true has length {n}."
        )
    try:
        w = np.ascontiguousarray(w, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"sample_weight must hold numbers; got dtype {w.dtype}.") from None
    if not np.isfinite(w).all():
        raise ValueError("sample_weight contains NaN or infinite values.")
    if (w < 0).any():
        bad = int(np.flatnonzero(w < 0)[0])
        raise ValueError(
            f"sample_weight must be non-negative; got {float(w[bad])!r} at index {bad}."
        )
    # every metric is a ratio of sums of products of weights: scaled by a power of two
    # (exact) to a largest weight in [0.5, 1), so that no product over- or underflows
    # (weights of 1e-170 or 1e160 gave a ZeroDivisionError or NaN), with the same bits
    # as before for every other scale
    top = float(w.max()) if w.shape[0] else 0.0
    if top > 0.0:
        e = int(np.frexp(top)[1])
        # times 2^-e, one correctly rounded product a weight, as ldexp gives it (the
        # same bits); ldexp itself took 64-84 ms at 10^7 weights, the product about a
        # fifth of that (scratch). 2^-e is a float64 for |e| <= 1022
        w = w * np.ldexp(1.0, -e) if abs(e) <= 1022 else np.ldexp(w, -e)
    return w


def _check_labels_numeric(y_true, name="y_true"):
    y = _as_1d(y_true, name)
    if y.shape[0] == 0:
        raise ValueError(f"{name} is empty.")
    if y.dtype.kind not in "biuf":
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must be numeric for this metric; got dtype {y.dtype}."
            ) from None
    y = np.ascontiguousarray(y, dtype=np.float64)
    if not np.isfinite(y).all():
        raise ValueError(f"{name} contains NaN or infinite values.")
    return y


def _binary_mask(y_true, pos_label=None):
    """Boolean mask of the positive class; exactly two label values required."""
    y = _as_1d(y_true, "y_true")
    if y.shape[0] == 0:
        raise ValueError("y_true is empty.")
    if y.dtype == bool:
        if pos_label is not None and not any(pos_label is v or (
                isinstance(pos_label, (bool, np.bool_, numbers.Integral)) and pos_label == v)
                for v in (False, True)):
            raise ValueError(f"pos_label={pos_label!r} is not one of the label values "
                             "[False, True].")
        mask = y if pos_label is None else y == pos_label
        classes: tuple[Any, ...] | np.ndarray = (False, True)
        n_classes = 1 if (mask.all() or not mask.any()) else 2
    elif y.dtype.kind in "iuf":
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise ValueError("y_true contains NaN.")
        lo, hi = y.min(), y.max()
        if lo == hi:
            n_classes = 1
            classes = (lo,)
        else:
            is_hi = y == hi
            if not (is_hi | (y == lo)).all():
                n_classes = len(np.unique(y))
            else:
                n_classes = 2
            classes = (lo, hi)
        mask = y == hi if pos_label is None else y == pos_label
    else:
        try:
            classes = np.unique(y)
        except TypeError:  # None, pandas' NA, or labels of types that do not compare
            raise ValueError("y_true holds missing values (None, NA) or labels of types that "
                             "do not compare; give two label values of one type.") from None
        n_classes = len(classes)
        if pos_label is None and n_classes == 2:
            pos_label = classes[1]
        mask = y == pos_label if n_classes >= 1 else None
    if n_classes == 1:
        raise ValueError(
            f"y_true has only one class ({as_written(np.asarray(y).ravel()[0])!r}); ROC AUC "
            "needs both a positive and a negative sample."
        )
    if n_classes > 2:
        raise ValueError(
            f"y_true must hold exactly two label values for ROC AUC; got {n_classes} "
            "distinct values. For graded or real-valued labels use pairwise_accuracy."
        )
    if pos_label is not None and not any(
        np.asarray(c == pos_label).item() for c in classes
    ):
        raise ValueError(
            f"pos_label={pos_label!r} is not one of the label values "
            f"{[np.asarray(c).item() for c in classes]}."
        )
    return np.ascontiguousarray(mask, dtype=bool)


# --------------------------------------------------------------------------- ROC AUC
#: from this many rows the compiled kernels run (the AUC merge, the Fenwick sweep, the
#: bucketed cut); below it numpy does the same exact work in less time than numba's
#: first-call start-up (about 0.75 s; the numpy paths take about 10 ms at this size)
KERNEL_MIN_ROWS = 1 << 17


def _twice_mann_whitney(pos_sorted: np.ndarray, neg_sorted: np.ndarray) -> int:
    """``2 U``: twice the count of (positive, negative) score pairs with ``pos > neg``, plus ties.

    Both inputs sorted ascending; an exact integer. One linear merge (the
    kernel) from ``KERNEL_MIN_ROWS`` rows, two binary searches per positive
    (numpy) below: for a positive score s, ``#(neg < s) + #(neg <= s)``.
    """
    if pos_sorted.shape[0] + neg_sorted.shape[0] >= KERNEL_MIN_ROWS:
        from ._kernels.metrics import merge_count_ties

        return int(merge_count_ties(pos_sorted, neg_sorted))
    below = np.searchsorted(neg_sorted, pos_sorted, side="left")
    at_or_below = np.searchsorted(neg_sorted, pos_sorted, side="right")
    return int(below.sum()) + int(at_or_below.sum())


def _sorted_in_place(v: np.ndarray) -> np.ndarray:
    """``v`` (a float64 array the caller owns) in ascending order, in place: the radix
    kernel (:func:`birank._kernels.radix_sort.sort_values`: a fifth of numpy 1.x's
    sort's time; numpy 2's SIMD sort is as fast on continuous scores, faster on many
    ties), one scratch array of ``v``'s size."""
    from ._kernels.radix_sort import sort_values

    sort_values(v, v, np.empty(v.shape[0], dtype=np.uint64))
    return v


def _twice_mann_whitney_pieces(s, mask, n_threads):
    """``(2 U, n_pos, n_neg)`` of scores ``s`` and the positive class's ``mask``, on
    ``n_threads`` threads (1: none).

    The rows are cut into ``n_threads`` pieces; each piece's scores are split by
    class into one copy (:func:`birank._kernels.metrics.split_classes`, one pass)
    and each class sorted in place, all pieces at once (the kernels release the
    GIL); then every (positive piece, negative piece) pair is merged. The count is
    an exact integer, so the result is the same for every number of threads.
    """
    from ._kernels.metrics import split_classes
    from ._parallel import even_runs

    out = np.empty(s.shape[0])

    def piece(p0, p1):
        a = p0 + int(split_classes(s, mask, out, p0, p1))
        return _sorted_in_place(out[p0:a]), _sorted_in_place(out[a:p1])

    runs = even_runs(s.shape[0], n_threads)
    if len(runs) == 1:
        pos, neg = piece(*runs[0])
        return _twice_mann_whitney(pos, neg), pos.shape[0], neg.shape[0]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(n_threads) as pool:
        parts = list(pool.map(lambda run: piece(*run), runs))
        u2 = sum(pool.map(lambda ab: _twice_mann_whitney(*ab),
                          [(a, b) for a, _ in parts for _, b in parts]))
    return u2, sum(a.shape[0] for a, _ in parts), sum(b.shape[0] for _, b in parts)


#: sorted positions a piece of the weighted AUC's pass covers (then on to the end of
#: its last tie block): the pieces depend on the scores alone, so their sums, added in
#: piece order, give the same value for every ``n_jobs``
WEIGHTED_PIECE = 1 << 16


def _weighted_sums(s, mask, w, n_threads):
    """``(numerator, positive weight, negative weight)`` of the weighted AUC from
    ``KERNEL_MIN_ROWS`` rows: the radix argsort of the scores, then one pass over the
    sorted rows in pieces of whole tie blocks on ``n_threads`` threads
    (:func:`birank._kernels.metrics.weighted_tie_pieces`), each piece's sums offset
    by the negative weight of the pieces before it. With threads the sort runs over
    chunks on them (:class:`birank._chunked_sort.ChunkedSort`, the order of the
    sequential radix argsort, which is 1.5x faster on one thread at 10^7 rows)."""
    from ._chunked_sort import ChunkedSort
    from ._kernels.metrics import signed_weights, weighted_tie_pieces
    from ._kernels.radix_sort import argsort_scores, radix_scratch
    from ._parallel import Threads

    n = s.shape[0]
    ss = np.empty(n)
    order = np.empty(n, dtype=np.int64)
    threads = Threads(n_threads)
    try:
        if threads.n > 1:
            ChunkedSort(n, threads=threads).argsort(s, order, radix_scratch(n), ss)
        else:
            argsort_scores(s, order, radix_scratch(n), sorted_out=ss)
        cuts = np.arange(0, n, WEIGHTED_PIECE)
        inside = np.zeros(cuts.shape[0], dtype=bool)  # a cut inside a tie block moves past it
        inside[1:] = ss[cuts[1:]] == ss[cuts[1:] - 1]
        cuts[inside] = np.searchsorted(ss, ss[cuts[inside]], side="right")
        starts = np.unique(np.append(cuts, n)).astype(np.int64)
        k = starts.shape[0] - 1
        out = np.empty((k, 3))
        rows = np.empty(n)  # each row's weight signed by its class, in parts on the threads
        threads.run(signed_weights, [(mask, w, rows, p0, p1) for p0, p1 in threads.ranges(n)])
        signed = np.empty(n)  # (the same in sorted order)
        threads.run(weighted_tie_pieces, [(order, ss, rows, starts, signed, out, k0, k1)
                                          for k0, k1 in threads.ranges(k)])
    finally:
        threads.close()
    neg, pos, local = out[:, 0], out[:, 1], out[:, 2]
    neg_total = np.cumsum(neg)  # (cumsum is sequential)
    neg_before = np.concatenate(([0.0], neg_total[:-1]))
    num = float(np.cumsum(local + pos * neg_before)[-1])
    return num, float(np.cumsum(pos)[-1]), float(neg_total[-1])


def roc_auc(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None,
            pos_label: Any = None, n_jobs: int | None = None) -> float:
    """Area under the ROC curve, exact (Mann-Whitney), score ties counted 1/2.

    ``AUC = sum_{i pos, j neg} w_i w_j ([s_i > s_j] + 1/2 [s_i = s_j])
    / ((sum_{pos} w) (sum_{neg} w))``, computed in O(N log N) by sorting; the
    unweighted value is an exact ratio of integers. Equals
    :func:`sklearn.metrics.roc_auc_score`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Exactly two distinct label values (e.g. {0, 1}, {-1, 1}, booleans or
        strings); the larger one is the positive class unless ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Finite scores; higher means more likely positive.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; a pair weighs ``w_i * w_j``.
    pos_label : scalar, default=None
        The label value of the positive class.
    n_jobs : int, default=None
        Threads, from ``KERNEL_MIN_ROWS`` rows (scikit-learn's meaning: None is 1
        unless a joblib context says otherwise, -1 all cores). Without
        ``sample_weight`` they split the scores by class, sort and merge them; the
        count is exact, so the value is the same for every ``n_jobs``. With
        ``sample_weight`` the scores are sorted over fixed chunks on the threads (one
        stable order whatever ``n_jobs``) and the weights summed over pieces of whole
        tie blocks fixed by the scores, added in order: the same value for every
        ``n_jobs`` too.

    Returns
    -------
    auc : float in [0, 1]
        The (weighted) fraction of (positive, negative) pairs ranked in the
        right order, tied scores counting 1/2.

    Raises
    ------
    ValueError
        One class only, more than two classes, NaN/inf scores, length mismatch,
        negative weights or a class with zero total weight.

    Examples
    --------
    >>> from birank.metrics import roc_auc
    >>> roc_auc([-1, 1, 1, -1], [0.2, 0.9, 0.2, 0.1])
    0.875
    """
    check_n_jobs(n_jobs)  # (whatever the size and weights)
    mask = _binary_mask(y_true, pos_label)
    n = mask.shape[0]
    s = _check_scores(y_score, n)
    w = _check_weights(sample_weight, n)
    if w is None:
        if n >= KERNEL_MIN_ROWS:  # (None: a joblib context's count, as scikit-learn)
            from ._parallel import effective_n_jobs

            u2, n_pos, n_neg = _twice_mann_whitney_pieces(s, mask, effective_n_jobs(n_jobs))
        else:
            n_pos = int(np.count_nonzero(mask))
            n_neg = n - n_pos
            u2 = _twice_mann_whitney(np.sort(s[mask]), np.sort(s[~mask]))
        return float(u2 / (2.0 * n_pos * n_neg))
    if n >= KERNEL_MIN_ROWS:
        from ._parallel import effective_n_jobs

        num, w_pos_total, w_neg_total = _weighted_sums(s, mask, w, effective_n_jobs(n_jobs))
    else:
        num = None
        w_pos_total = float(w[mask].sum())
        w_neg_total = float(w[~mask].sum())
    if w_pos_total <= 0 or w_neg_total <= 0:
        raise ValueError(
            "sample_weight gives zero total weight to the "
            f"{'positive' if w_pos_total <= 0 else 'negative'} class; AUC is undefined."
        )
    if num is not None:  # (the ratio over the classes' weights summed by the same
        # pass: all scores tied then give 1/2 exactly)
        return num / (w_pos_total * w_neg_total)
    # tie order is irrelevant: tie blocks are summed below
    order = np.argsort(s)
    ss = s[order]
    wp = np.where(mask, w, 0.0)[order]
    wn = np.where(mask, 0.0, w)[order]
    starts = np.concatenate(([0], np.flatnonzero(ss[1:] != ss[:-1]) + 1))
    pos_b = np.add.reduceat(wp, starts)
    neg_b = np.add.reduceat(wn, starts)
    neg_below = np.cumsum(neg_b) - neg_b
    num = dot(pos_b, neg_below + 0.5 * neg_b)
    return num / (w_pos_total * w_neg_total)


# --------------------------------------------------------------------------- pairwise
def _pair_counts(y_true, y_score, groups, sample_weight):
    """(concordant, tied-score, total) weights over pairs with different labels."""
    y = _check_labels_numeric(y_true)
    n = y.shape[0]
    s = _check_scores(y_score, n)
    w = _check_weights(sample_weight, n)
    if w is None:
        w = np.ones(n)
    g = group_codes(groups, n)
    # label ranks, contiguous within each group (1-based for the Fenwick tree)
    oy = lexsort_groups((y,), g)
    gy, yy = g[oy], y[oy]
    new = np.empty(n, dtype=bool)
    new[0] = True
    new[1:] = (gy[1:] != gy[:-1]) | (yy[1:] != yy[:-1])
    rank_sorted = np.cumsum(new)
    yrank = np.empty(n, dtype=np.int64)
    yrank[oy] = rank_sorted
    gnew = np.empty(n, dtype=bool)
    gnew[0] = True
    gnew[1:] = gy[1:] != gy[:-1]
    gfirst_rank = rank_sorted[gnew]  # per group code (codes are sorted 0..G-1)
    gstart = gfirst_rank[g]
    n_ranks = int(rank_sorted[-1])
    # totals per group: pairs with different labels = (W^2 - sum_label W_l^2) / 2
    wy = w[oy]
    lab_sum = np.add.reduceat(wy, np.flatnonzero(new))
    grp_sum = np.add.reduceat(wy, np.flatnonzero(gnew))
    total = 0.5 * (dot(grp_sum, grp_sum) - dot(lab_sum, lab_sum))
    # sweep by (group, score, label)
    os_ = lexsort_groups((y, s), g)
    gs, ss, ys, ws = g[os_], s[os_], y[os_], w[os_]
    bnew = np.empty(n, dtype=bool)
    bnew[0] = True
    bnew[1:] = (gs[1:] != gs[:-1]) | (ss[1:] != ss[:-1])
    lnew = bnew.copy()
    lnew[1:] |= ys[1:] != ys[:-1]
    block_start = np.concatenate((np.flatnonzero(bnew), [n])).astype(np.int64)
    blk_sum = np.add.reduceat(ws, block_start[:-1])
    blk_lab_sum = np.add.reduceat(ws, np.flatnonzero(lnew))
    tied = 0.5 * (dot(blk_sum, blk_sum) - dot(blk_lab_sum, blk_lab_sum))
    conc = _concordant_weight(os_, block_start, ys, gs, ws, w, yrank, gstart, n_ranks)
    return conc, tied, total


#: below ``KERNEL_MIN_ROWS`` rows and with at most this many distinct labels (binary,
#: graded relevance) the concordant weight is one vectorized pass per label level;
#: otherwise (large inputs, real-valued labels) the Fenwick kernel
LEVEL_SWEEP_MAX_LEVELS = 16


def _concordant_weight(order, block_start, y_sorted, g_sorted, w_sorted, w, yrank, gstart,
                       n_ranks):
    """``sum w_i w_j`` over pairs of one group with ``y_j < y_i`` and ``s_j < s_i`` (strictly).

    ``order`` visits rows by (group, score, label) and ``block_start`` delimits its
    (group, score) tie blocks; the ``*_sorted`` arrays are in that order. Over L
    label levels, the pairs whose larger label is level l weigh
    ``sum_{y_i = l} w_i (C_l(b_i) - C_l(g_i))``, with ``C_l`` the running weight of
    the rows below level l in that order, ``b_i`` the start of row i's tie block and
    ``g_i`` of its group: O(N L) in numpy. Large inputs and many levels use the
    Fenwick sweep (O(N log L), :func:`birank._kernels.metrics.concordant_weight`).
    """
    n = order.shape[0]
    levels = np.unique(y_sorted) if n < KERNEL_MIN_ROWS else None
    if levels is None or levels.shape[0] > LEVEL_SWEEP_MAX_LEVELS:
        from ._kernels.metrics import concordant_weight

        return float(concordant_weight(order.astype(np.int64), block_start, yrank, gstart, w,
                                       n_ranks))
    block_of = np.repeat(block_start[:-1], np.diff(block_start))  # tie-block start per row
    gnew = np.ones(n, dtype=bool)
    gnew[1:] = g_sorted[1:] != g_sorted[:-1]
    group_of = np.flatnonzero(gnew)[np.cumsum(gnew) - 1]  # group start per row
    total = 0.0
    for level in levels[1:]:  # (the lowest level is below nothing)
        below = np.concatenate(([0.0], np.cumsum(np.where(y_sorted < level, w_sorted, 0.0))))
        at = np.flatnonzero(y_sorted == level)
        total += dot(w_sorted[at], below[block_of[at]] - below[group_of[at]])
    return total


def pairwise_accuracy(y_true: ArrayLike, y_score: ArrayLike, groups: ArrayLike | None = None,
                      *, sample_weight: ArrayLike | None = None) -> float:
    """Fraction of correctly ordered pairs among pairs with different labels.

    Over pairs (i, j) with ``y_i > y_j`` (lin-jan-lin section III), a pair is
    concordant when ``s_i > s_j``; a pair with tied scores counts 1/2::

        acc = (sum_conc w_i w_j + 1/2 sum_tied w_i w_j) / sum_{y_i != y_j} w_i w_j

    For binary labels this equals :func:`roc_auc`. With ``groups``, only pairs
    inside the same group are formed and the result is the overall ratio over
    all within-group pairs (not a mean of per-group ratios). O(N log N): a
    sweep in score order with a Fenwick tree over label ranks.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Real-valued or graded labels.
    y_score : array-like of shape (n_samples,)
        Finite scores; higher means ranked higher.
    groups : array-like of shape (n_samples,), default=None
        Query id of each row; rows of a group need not be contiguous.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative; a pair weighs ``w_i * w_j``.

    Returns
    -------
    accuracy : float in [0, 1]
        The (weighted) fraction of pairs with different labels ordered like
        their labels, tied scores counting 1/2.

    Raises
    ------
    ValueError
        If no pair has different labels (within a group), or on bad input.

    Examples
    --------
    >>> from birank.metrics import pairwise_accuracy
    >>> pairwise_accuracy([3, 1, 2, 2], [0.9, 0.1, 0.5, 0.5])
    1.0
    >>> pairwise_accuracy([1, 2, 1, 2], [0.5, 0.1, 0.2, 0.9], groups=[0, 0, 1, 1])
    0.5
    """
    conc, tied, total = _pair_counts(y_true, y_score, groups, sample_weight)
    if total <= 0:
        raise ValueError(
            "y_true has no pair of rows with different labels"
            + (" within a group" if groups is not None else "")
            + " (or those pairs have zero weight); pairwise accuracy is undefined."
        )
    return (conc + 0.5 * tied) / total


def kendall_tau(y_true: ArrayLike, y_score: ArrayLike, groups: ArrayLike | None = None,
                *, sample_weight: ArrayLike | None = None) -> float:
    """Kendall's tau as lin-jan-lin define it: ``2 * pairwise_accuracy - 1``.

    Pairs with equal labels are left out and tied scores count 1/2, so this is
    (concordant - discordant) / (pairs with different labels) -- a tau-b-like
    variant, not :func:`scipy.stats.kendalltau`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Real-valued or graded labels.
    y_score : array-like of shape (n_samples,)
        Finite scores; higher means ranked higher.
    groups : array-like of shape (n_samples,), default=None
        Query id of each row; only pairs within a group are formed (rows of a
        group need not be contiguous). None means one group.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative; a pair weighs ``w_i * w_j``.

    Returns
    -------
    tau : float in [-1, 1]
        1 when every pair with different labels is ordered correctly, -1 when
        every one is reversed.

    Raises
    ------
    ValueError
        If no pair has different labels (within a group), or on bad input (as
        :func:`pairwise_accuracy`).

    Examples
    --------
    >>> from birank.metrics import kendall_tau
    >>> kendall_tau([1, 2, 3], [3.0, 2.0, 1.0])
    -1.0
    """
    return 2.0 * pairwise_accuracy(y_true, y_score, groups, sample_weight=sample_weight) - 1.0


# --------------------------------------------------------------------------- per query
_NO_REL = {"skip": None, "zero": 0.0, "one": 1.0}


_CONVENTIONS = ("standard", "letor")
_GAINS = ("exp", "linear")


def _check_convention(convention):
    if convention not in _CONVENTIONS:
        raise ValueError(f"convention must be 'standard' or 'letor'; got {convention!r}.")


def _per_query_prep(y_true, y_score, groups, ties="average"):
    """Rows sorted by (query, score descending) -> (y, g, order, q_start, blocks).

    ``ties="average"``: ``blocks`` delimits runs of equal score (tied rows share
    their positions); ``ties="order"``: every row is its own block and tied rows
    keep their input order (the sort is stable), as the LETOR script ranks them.
    """
    y = _check_labels_numeric(y_true)
    n = y.shape[0]
    s = _check_scores(y_score, n)
    g = group_codes(groups, n)
    order = lexsort_groups((-s,), g)
    gs, ss = g[order], s[order]
    qnew = np.empty(n, dtype=bool)
    qnew[0] = True
    qnew[1:] = gs[1:] != gs[:-1]
    bnew = qnew.copy()
    bnew[1:] |= ss[1:] != ss[:-1]
    if ties == "order":
        bnew[:] = True
    q_start = np.concatenate((np.flatnonzero(qnew), [n])).astype(np.int64)
    blocks = np.concatenate((np.flatnonzero(bnew), [n])).astype(np.int64)
    return y, g, order, q_start, blocks


def _block_queries(q_start, blocks):
    """(query of each tie block, first block of each query): the blocks refine the queries."""
    block_query = np.searchsorted(q_start, blocks[:-1], side="right") - 1
    return block_query, np.searchsorted(blocks[:-1], q_start[:-1])


def _average_precision_per_query(rel, q_start, blocks):
    """AP of each query (NaN without a relevant row); rows sorted by (query, score descending).

    ``q_start`` delimits the queries and ``blocks`` the runs of equal score (every
    query start is a block start). Tied rows enter the ranking together, as in
    ``sklearn.metrics.average_precision_score``: a block ending at rank r adds
    ``(relevant in it / R) * (relevant up to r / r)``. Vectorized: the sort before
    it costs more than this sweep.
    """
    block_query, first_block = _block_queries(q_start, blocks)
    seen = np.concatenate(([0], np.cumsum(rel)))  # relevant rows before each position
    n_rel = seen[q_start[1:]] - seen[q_start[:-1]]
    start = q_start[block_query]  # first row of each block's query
    end = blocks[1:]
    in_block = seen[end] - seen[blocks[:-1]]
    with np.errstate(invalid="ignore", divide="ignore"):  # (queries without relevant rows)
        gain = np.where(in_block > 0, in_block / n_rel[block_query]
                        * ((seen[end] - seen[start]) / (end - start)), 0.0)
        ap = np.add.reduceat(gain, first_block)
    ap[n_rel == 0] = np.nan
    return ap


def _ndcg_per_query(gain_by_score, gain_ideal, q_start, blocks, cum_discount):
    """NDCG of each query with tie-averaged gains (NaN where the ideal DCG is 0).

    ``gain_by_score``: gains of the rows sorted by (query, score descending);
    ``gain_ideal``: sorted by (query, gain descending); ``cum_discount[p]`` is the
    sum of the (cut-off) discounts of positions 0..p-1. A tie block over
    positions [a, b) adds mean(gain) * (discounts of [a, b)), the expected DCG
    over every order of the tied rows.
    """
    block_query, first_block = _block_queries(q_start, blocks)
    lengths = np.diff(q_start)
    position = np.arange(gain_ideal.shape[0]) - np.repeat(q_start[:-1], lengths)
    idcg = np.add.reduceat(gain_ideal * np.diff(cum_discount)[position], q_start[:-1])
    a = blocks[:-1] - q_start[block_query]  # block start and end, positions in the query
    b = blocks[1:] - q_start[block_query]
    block_gain = np.add.reduceat(gain_by_score, blocks[:-1])
    dcg = np.add.reduceat(block_gain / (b - a) * (cum_discount[b] - cum_discount[a]),
                          first_block)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(idcg > 0, dcg / idcg, np.nan)


def _reduce_queries(values, no_relevant, name):
    if no_relevant not in _NO_REL:
        raise ValueError(
            f"no_relevant must be one of 'skip', 'zero', 'one'; got {no_relevant!r}."
        )
    empty = np.isnan(values)
    fill = _NO_REL[no_relevant]
    if fill is None:
        if empty.all():
            raise ValueError(
                f"no query has a relevant item, so {name} is undefined "
                "(queries without relevant items are skipped; see no_relevant)."
            )
        return float(values[~empty].mean())
    return float(np.where(empty, fill, values).mean())


def mean_average_precision(y_true: ArrayLike, y_score: ArrayLike,
                           groups: ArrayLike | None = None, *,
                           relevance_threshold: float = 1.0,
                           no_relevant: Literal["skip", "zero", "one"] = "skip",
                           convention: Literal["standard", "letor"] = "standard") -> float:
    """Mean over queries of average precision (AP).

    A row is relevant when ``y_true >= relevance_threshold`` (trec_eval's
    ``-l`` rule, and :class:`~birank.ActiveRankLearner`'s). Rows are ranked by
    decreasing score within their query. Tied scores enter the ranking
    together, as in :func:`sklearn.metrics.average_precision_score`::

        AP = sum over tie blocks b of (rel_b / R) * (rel_<=b / rows_<=b)

    which is the usual AP when there are no ties.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Relevance labels (binary or graded).
    y_score : array-like of shape (n_samples,)
        Finite scores; higher means ranked higher.
    groups : array-like of shape (n_samples,), default=None
        Query id of each row (rows need not be contiguous); None means one query.
    relevance_threshold : float, default=1.0
        Labels greater than or equal to it are relevant: the minimum relevance
        judgement of a relevant document, as trec_eval's ``-l`` (default 1).
        On integer grades the default is the rule ``label > 0``. It replaces
        ``threshold`` (labels strictly above it relevant, default 0.0): on
        integer grades ``threshold=t`` is ``relevance_threshold=t + 1``.
    no_relevant : {"skip", "zero", "one"}, default="skip"
        What a query without relevant rows contributes: ``"skip"`` leaves it out
        of the mean; ``"zero"``/``"one"`` count it as 0 or 1. trec_eval and the
        LETOR evaluation script count it as 0 (``"zero"``).
    convention : {"standard", "letor"}, default="standard"
        ``"letor"`` ranks tied scores in input order (as the LETOR 3.0/4.0
        evaluation script, whose sort is stable) instead of entering them
        together. ``convention="letor", no_relevant="zero"`` is the script's MAP.

    Returns
    -------
    map : float in [0, 1]
        The mean of the queries' AP (see ``no_relevant`` for queries without
        a relevant row).

    Examples
    --------
    >>> from birank.metrics import mean_average_precision
    >>> mean_average_precision([1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.5, 0.1],
    ...                        groups=[0, 0, 0, 1, 1])
    0.6666666666666666
    >>> mean_average_precision([2, 1, 0], [0.9, 0.8, 0.7], relevance_threshold=2)
    1.0
    """
    _check_convention(convention)
    if isinstance(relevance_threshold, bool) or not isinstance(
            relevance_threshold, numbers.Real) or not np.isfinite(relevance_threshold):
        raise ValueError(f"relevance_threshold must be a finite number (labels >= it are "
                         f"relevant); got {relevance_threshold!r}.")
    y, _, order, q_start, blocks = _per_query_prep(
        y_true, y_score, groups, ties="order" if convention == "letor" else "average")
    rel = (y[order] >= relevance_threshold).astype(np.int64)
    return _reduce_queries(_average_precision_per_query(rel, q_start, blocks), no_relevant,
                           "mean average precision")


def ndcg_at_k(y_true: ArrayLike, y_score: ArrayLike, groups: ArrayLike | None = None, *,
              k: int | None = 10, no_relevant: Literal["skip", "zero", "one"] = "skip",
              gain: Literal["exp", "linear"] = "exp",
              convention: Literal["standard", "letor"] = "standard") -> float:
    """Mean over queries of NDCG@k with graded gains ``2**rel - 1`` (or ``rel``).

    ``DCG@k = sum_{p=1..k} (2**rel_p - 1) / log2(p + 1)`` over the rows ranked
    by decreasing score; the ideal DCG ranks by decreasing label. Tied scores
    get the mean gain of their tie block (the expected DCG over every order
    of the tied rows), as ``sklearn.metrics.ndcg_score(ignore_ties=False)``;
    so ``ndcg_at_k(y, s, k=k) == ndcg_score([2**y - 1], [s], k=k)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Graded relevance (non-negative); rows with label 0 have gain 0.
    y_score : array-like of shape (n_samples,)
        Finite scores; higher means ranked higher.
    groups : array-like of shape (n_samples,), default=None
        Query id of each row (rows need not be contiguous); None means one query.
    k : int or None, default=10
        Cut-off; None uses every position.
    no_relevant : {"skip", "zero", "one"}, default="skip"
        What a query whose ideal DCG is 0 (no row with a positive label)
        contributes: skipped from the mean, or counted as 0 or 1.
    gain : {"exp", "linear"}, default="exp"
        The gain of a row with label ``rel``: ``2**rel - 1`` (Burges et al. 2005;
        LETOR, LightGBM, scikit-learn's ndcg_score on ``2**y - 1``) or ``rel``
        (Jarvelin and Kekalainen 2002; trec_eval, ``sklearn.metrics.ndcg_score(y)``).
    convention : {"standard", "letor"}, default="standard"
        ``"letor"``: the LETOR 3.0/4.0 evaluation script's NDCG@k -- positions
        1 and 2 undiscounted and position p >= 3 discounted by ``1/log2(p)``;
        tied scores ranked in input order; a query with fewer than k rows
        scores 0 (the script leaves NDCG@k undefined for it and averages it as
        0). With ``no_relevant="zero"`` it is the script's number.

    Returns
    -------
    ndcg : float in [0, 1]
        The mean of the queries' NDCG@k (see ``no_relevant`` for queries
        whose ideal DCG is 0).

    Examples
    --------
    >>> from birank.metrics import ndcg_at_k
    >>> round(ndcg_at_k([2, 0, 1], [0.1, 0.2, 0.3], k=3), 4)
    0.6885
    """
    _check_convention(convention)
    if gain not in _GAINS:
        raise ValueError(f"gain must be 'exp' or 'linear'; got {gain!r}.")
    letor = convention == "letor"
    y, g, order, q_start, blocks = _per_query_prep(
        y_true, y_score, groups, ties="order" if letor else "average")
    if (y < 0).any():
        raise ValueError("y_true must be non-negative relevance grades for ndcg_at_k.")
    if k is not None and (
        not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1
    ):
        raise ValueError(f"k must be a positive int or None; got {k!r}.")
    if gain == "exp" and y.shape[0] and y.max() >= 1024:
        raise ValueError(f"gain='exp' needs labels below 1024 (2**y overflows float64); "
                         f"got {y.max():g}. Use gain='linear' for such grades.")
    gains = np.exp2(y) - 1.0 if gain == "exp" else y.astype(np.float64)
    ideal_order = lexsort_groups((-y,), g)
    lengths = np.diff(q_start)
    max_len = int(lengths.max())
    pos = np.arange(max_len, dtype=np.float64)
    # 0-based position p: standard discount 1/log2(p + 2); LETOR 1/log2(max(p + 1, 2))
    disc = 1.0 / np.log2(np.maximum(pos + 1.0, 2.0) if letor else pos + 2.0)
    if k is not None:
        disc[k:] = 0.0
    cum = np.concatenate(([0.0], np.cumsum(disc)))
    vals = _ndcg_per_query(gains[order], gains[ideal_order], q_start, blocks, cum)
    if letor and k is not None:
        vals[lengths < k] = 0.0
    return _reduce_queries(vals, no_relevant, "NDCG")


def roc_auc_per_group(y_true: ArrayLike, y_score: ArrayLike, groups: ArrayLike, *,
                      pos_label: Any = None) -> tuple[float, int]:
    """Mean over groups of each group's ROC AUC, and how many groups entered the mean.

    A group's AUC is the fraction of its (positive, negative) pairs ordered by
    the scores, ties counting half -- :func:`roc_auc` within the group. Groups
    holding one class only have no AUC and are left out (their number is
    ``n_groups_total - n_groups_used``). This differs from :func:`roc_auc` on the
    pooled rows, which also compares rows of different groups.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Exactly two distinct label values over all rows (as :func:`roc_auc`);
        the larger one is the positive class unless ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Finite scores; higher means more likely positive.
    groups : array-like of shape (n_samples,)
        Query id of each row (rows of a group need not be contiguous).
    pos_label : scalar, default=None
        The label value of the positive class.

    Returns
    -------
    auc : float
        NaN when no group holds both classes.
    n_groups_used : int
        The number of groups holding both classes (those in the mean).

    Examples
    --------
    >>> from birank.metrics import roc_auc_per_group
    >>> roc_auc_per_group([0, 1, 0, 1, 1], [0.1, 0.9, 0.3, 0.2, 0.5], [0, 0, 1, 1, 1])
    (0.75, 2)
    """
    pos = _binary_mask(y_true, pos_label)
    n = pos.shape[0]
    s = _check_scores(y_score, n)
    g = group_codes(groups, n)
    order = lexsort_groups((s,), g)  # ascending score within group
    gs, ss, ps = g[order], s[order], pos[order]
    new_g = np.ones(n, dtype=bool)
    new_g[1:] = gs[1:] != gs[:-1]
    new_b = new_g.copy()
    new_b[1:] |= ss[1:] != ss[:-1]
    b_id = np.cumsum(new_b) - 1
    b_start = np.flatnonzero(new_b)
    b_end = np.append(b_start[1:], n)
    g_start = np.flatnonzero(new_g)[np.cumsum(new_g) - 1]  # start of each row's group
    # mid-rank (1-based, within the group) of each row's tie block
    rank = (b_start[b_id] + b_end[b_id] - 1) / 2.0 - g_start + 1.0
    gid = np.cumsum(new_g) - 1
    n_pos = np.bincount(gid, weights=ps).astype(np.float64)
    n_all = np.bincount(gid).astype(np.float64)
    n_neg = n_all - n_pos
    rank_sum = np.bincount(gid, weights=rank * ps)
    ok = (n_pos > 0) & (n_neg > 0)
    if not ok.any():
        return float("nan"), 0
    auc = (rank_sum[ok] - n_pos[ok] * (n_pos[ok] + 1) / 2.0) / (n_pos[ok] * n_neg[ok])
    return float(auc.mean()), int(ok.sum())


# --------------------------------------------------------------------------- OPTROC
def optroc_accuracy(y_true: ArrayLike, y_score: ArrayLike, *, pos_label: Any = None) -> float:
    """Classification accuracy at the optimal operating point of the ROC curve.

    The best accuracy over every score threshold (predict positive when the
    score exceeds it; thresholds fall between distinct scores, plus
    "all positive" and "all negative"), i.e. the "accuracy at OPTROC" of
    khalid-ray-chitsaz Table 4. It uses the labels it is evaluated on, so it
    is an optimistic, threshold-free summary like AUC.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Exactly two distinct label values (as :func:`roc_auc`); the larger one
        is the positive class unless ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Finite scores; higher means more likely positive.
    pos_label : scalar, default=None
        The label value of the positive class.

    Returns
    -------
    accuracy : float in [0, 1]
        The fraction of rows classified correctly at the best cut
        (:func:`best_accuracy_threshold`).

    Raises
    ------
    ValueError
        One class only, more than two classes, NaN/inf scores or lengths that
        differ.

    Examples
    --------
    >>> from birank.metrics import optroc_accuracy
    >>> optroc_accuracy([0, 0, 1, 1, 0], [0.1, 0.2, 0.6, 0.7, 0.65])
    0.8
    """
    mask = _binary_mask(y_true, pos_label)
    s = _check_scores(y_score, mask.shape[0])
    return best_accuracy_threshold(mask.astype(np.int64), s)[1]


def best_accuracy_threshold(y_true: ArrayLike, y_score: ArrayLike, *,
                            sample_weight: ArrayLike | None = None) -> tuple[float, float]:
    """Score cut with the highest (weighted) training accuracy.

    This is the optimal operating point of the ROC curve for accuracy.
    Predicting positive for ``score > threshold``; cuts are only placed between
    distinct score values, halfway. Rows of zero weight take no part, so a
    weight of k is the same as k copies of the row. O(N) expected without
    weights from ``KERNEL_MIN_ROWS`` rows (bucketing, see
    :func:`birank._kernels.metrics.best_cut_buckets`), O(N log N) otherwise.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        1 (or True) for the positive class, 0 (or False) for the negative one.
    y_score : array-like of shape (n_samples,)
        Finite scores.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.

    Returns
    -------
    threshold : float
        The cut: rows scoring above it are predicted positive (halfway between
        two distinct scores, or 1 beyond the extreme scores).
    accuracy : float
        Weighted fraction of rows classified correctly at that cut.

    Raises
    ------
    ValueError
        Labels other than 0 and 1, NaN/inf scores, lengths that differ, negative
        or non-finite weights, no row of positive weight.

    Examples
    --------
    >>> from birank.metrics import best_accuracy_threshold
    >>> threshold, accuracy = best_accuracy_threshold([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> round(threshold, 4), accuracy
    (0.6, 0.75)
    >>> threshold, accuracy = best_accuracy_threshold([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.9],
    ...                                               sample_weight=[1, 1, 1, 3])
    >>> round(threshold, 4), round(accuracy, 4)
    (0.6, 0.8333)
    """
    pos = np.ascontiguousarray(check_y01(y_true, "y_true"))
    if pos.shape[0] == 0:
        raise ValueError("y_true is empty.")
    sc = _as_1d(y_score, "y_score")
    if sc.shape[0] != pos.shape[0]:
        raise ValueError(f"y_true and y_score have different lengths: {pos.shape[0]} and "
                         f"{sc.shape[0]}.")
    sc = np.ascontiguousarray(sc, dtype=np.float64)
    if not np.isfinite(sc).all():
        raise ValueError("y_score must be finite to choose a threshold; got NaN or inf "
                         "(diverged model or non-finite input).")
    checked_weight = _check_weights(sample_weight, pos.shape[0])
    if checked_weight is None and sc.shape[0] >= KERNEL_MIN_ROWS:
        from ._kernels.metrics import best_cut_buckets

        thr, n_correct = best_cut_buckets(sc, pos)
        return float(thr), n_correct / sc.shape[0]
    # (fewer rows: the sort below costs less than the kernel's start-up)
    weight = np.ones(sc.shape[0]) if checked_weight is None else checked_weight
    keep = weight > 0
    pos01, sc, weight = pos[keep].astype(np.int64), sc[keep], weight[keep]
    n = sc.shape[0]
    if n == 0:
        raise ValueError("sample_weight is 0 for every row: no row to choose a cut on.")
    order = np.argsort(-sc)  # tie order is irrelevant: cuts fall between distinct values
    s, yy, ww = sc[order], pos01[order], weight[order]
    total, w_pos = ww.sum(), (ww * yy).sum()
    # predicting the top k as positive: correct = tp(k) + (negative weight beyond k)
    tp = np.concatenate((np.zeros(1), np.cumsum(ww * yy)))
    fp = np.concatenate((np.zeros(1), np.cumsum(ww * (1 - yy))))
    correct = tp + (total - w_pos) - fp
    # a cut after position k-1 is only valid where s[k-1] > s[k]
    valid = np.ones(n + 1, dtype=bool)
    valid[1:n] = s[:-1] > s[1:]
    correct = np.where(valid, correct, -1.0)
    best = int(np.argmax(correct))
    if best == 0:
        thr = s[0] + 1.0
    elif best == n:
        thr = s[-1] - 1.0
    else:
        thr = 0.5 * (s[best - 1] + s[best])
    return float(thr), float(correct[best] / total)
# --------------------------------------------------------------------------- scorers
def _pairwise_accuracy_score(y_true, y_score, groups=None):
    return pairwise_accuracy(y_true, y_score, groups=groups)


def make_pairwise_scorer(*, request_groups: bool = True) -> Callable[..., float]:
    """A scikit-learn scorer of pairwise accuracy, within query groups when given them.

    For model selection of rankers trained on per-query pairs: scoring a fold
    on all pairs across queries would reward what the model never learned.
    The scorer ranks by ``decision_function`` and is
    :func:`pairwise_accuracy` (ROC AUC for binary labels without groups).

    With metadata routing on (``sklearn.set_config(enable_metadata_routing=True)``)
    and ``request_groups``, the scorer asks for ``groups``, so
    ``GridSearchCV(..., scoring=make_pairwise_scorer()).fit(X, y, groups=g)``
    scores each test fold within its own queries (the estimator asks for them
    with ``set_fit_request(groups=True)``, the splitter, e.g. ``GroupKFold``,
    by itself). Without routing, the scorer is returned without the request
    and scores over all pairs when scikit-learn calls it (called directly, it
    still takes ``groups``).

    Parameters
    ----------
    request_groups : bool, default=True

    Returns
    -------
    scorer : callable ``scorer(estimator, X, y, groups=None)``

    Examples
    --------
    >>> import numpy as np
    >>> from birank import RankSVM
    >>> from birank.metrics import make_pairwise_scorer
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 1, 0, 1])
    >>> scorer = make_pairwise_scorer(request_groups=False)
    >>> model = RankSVM().fit(X, y, groups=[0, 0, 1, 1])
    >>> float(scorer(model, X, y, groups=[0, 0, 1, 1]))
    1.0
    """
    from sklearn import get_config
    from sklearn.metrics import make_scorer

    if get_config().get("enable_metadata_routing", False):
        scorer = make_scorer(_pairwise_accuracy_score, response_method="decision_function")
        return scorer.set_score_request(groups=True) if request_groups else scorer
    # without routing scikit-learn's scorers refuse extra arguments: a plain callable
    return _pairwise_scorer


def _pairwise_scorer(estimator, X, y, groups=None):
    """Pairwise accuracy of ``estimator.decision_function(X)`` (within ``groups``)."""
    return pairwise_accuracy(y, estimator.decision_function(X), groups=groups)
