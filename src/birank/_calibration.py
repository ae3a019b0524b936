"""Probabilities from decision scores: Platt's sigmoid, one slope on each side of the threshold.

scikit-learn's classifier contract ties ``predict_proba`` to ``predict``:
``argmax(predict_proba(X)) == predict(X) == classes_[decision_function(X) > 0]``,
so the probability must be exactly 1/2 at score 0 (the decision threshold).
Platt's sigmoid ``1 / (1 + exp(-(a s + b)))`` has its 1/2 elsewhere unless
``b = 0``; a single slope through 0 cannot follow a threshold that is not the
posterior's midpoint (e.g. a class-weighted cut). Here the map is

``P(positive | s) = 1 / (1 + exp(-a_neg s))`` for ``s < 0`` and
``1 / (1 + exp(-a_pos s))`` for ``s >= 0``,

continuous, equal to 1/2 at 0, monotone (``a_neg, a_pos >= 0``) and, like
Platt's, with two parameters. Each slope minimizes the (weighted) log-loss of
its side's training scores against Platt's smoothed targets
``t+ = (N+ + 1) / (N+ + 2)`` and ``t- = 1 / (N- + 2)`` (Platt 1999, eq. 5;
they keep a separable side from driving its slope to infinity): a convex
one-dimensional problem solved by safeguarded Newton steps (Lin, Lin & Weng
2007 use Newton with a line search for Platt's two unknowns). A side that
ranks below chance gets slope 0 (probability 1/2). O(N) per step, vectorized.

Where does the threshold come from? For rankers without a learned bias it is
:func:`platt_midpoint`, the score where Platt's own two-parameter sigmoid is
1/2 (``birank.base.decision_cut``): the two slopes then refine Platt's fit
around its own midpoint, and ``predict`` is the label of calibrated
probability above 1/2. A learned bias or a class-weighted decision fixes the
threshold elsewhere, and the two slopes follow it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ._kernels.platt import MOMENTS, platt_block_sums, platt_moments, platt_spread, split_sides
from ._linalg import dot
from ._parallel import Threads

if TYPE_CHECKING:
    from ._typing import FloatArray, NDArray

__all__ = ["PlattRows", "platt_fit", "platt_line", "platt_midpoint", "platt_objective",
           "platt_proba", "platt_sums", "platt_targets"]

#: rows per block of :func:`platt_sums`: the blocks depend on the number of rows
#: alone and are added in block order, so the sums are the same bits for every
#: ``n_jobs``
PLATT_BLOCK = 1 << 16
#: Newton starts far from the optimum (from the prior, or from Platt's slope for
#: the two slopes) and takes 7-11 passes to land; on every ``k``-th row
#: (``k = min(n // PLATT_WARM_ROWS, PLATT_WARM_STRIDE)``, when ``k >= 4``) those
#: passes are ``k`` times cheaper, and Newton on all rows then starts next to the
#: optimum, converging quadratically in 3-5 passes. Applied recursively, so every
#: stage is at most 64 times the next.
PLATT_WARM_ROWS = 1 << 12
PLATT_WARM_STRIDE = 64


class PlattRows(NamedTuple):
    """Platt's rows as the caller holds them, read by the kernels without copies.

    ``u = (s - center) * inv_scale`` (the scores, centred and scaled), targets
    ``t_pos`` where ``pos`` else ``t_neg``, weights ``w`` (an empty array: ``w_pos``
    where ``pos`` else ``w_neg``, :func:`_arrays`) of sum ``weight``.
    """

    s: FloatArray
    pos: NDArray[np.bool_]
    w: FloatArray
    center: float
    inv_scale: float
    t_pos: float
    t_neg: float
    weight: float
    w_pos: float = 1.0
    w_neg: float = 1.0

    @property
    def n(self) -> int:
        return int(self.s.shape[0])

    def every(self, k: int) -> PlattRows:
        """Every k-th row (copies: a strided subsample is read k times faster)."""
        w = np.ascontiguousarray(self.w[::k])
        s = np.ascontiguousarray(self.s[::k])
        pos = np.ascontiguousarray(self.pos[::k])
        if w.size:
            weight = float(w.sum())
        else:
            n_pos = int(np.count_nonzero(pos))
            weight = n_pos * self.w_pos + (s.shape[0] - n_pos) * self.w_neg
        return self._replace(s=s, pos=pos, w=w, weight=float(weight))


def _blocks(kernel, n, columns, args, threads):
    """``kernel(*args, PLATT_BLOCK, out, k0, k1)`` over the fixed blocks of n rows (on
    ``threads``): the ``(blocks, columns)`` array of their results."""
    k = max(1, -(-n // PLATT_BLOCK))
    out = np.empty((k, columns))
    if threads is None or k == 1:
        kernel(*args, PLATT_BLOCK, out, 0, k)
    else:
        threads.run(kernel, [(*args, PLATT_BLOCK, out, k0, k1) for k0, k1 in threads.ranges(k)])
    return out


def _in_block_order(out):
    total = out[0].copy()
    for j in range(1, out.shape[0]):
        total += out[j]
    return total


def platt_sums(rows, a, b, threads=None):
    """``(f, g_a, g_b, h_aa, h_ab, h_bb)``: Platt's weighted log-loss of :class:`PlattRows`
    at ``z = a u + b``, its gradient and Hessian in ``(a, b)``
    (:func:`birank._kernels.platt.platt_block_sums`), the blocks on ``threads``."""
    out = _blocks(platt_block_sums, rows.n, 6,
                  (rows.s, rows.pos, rows.w, rows.w_pos, rows.w_neg, rows.center, rows.inv_scale,
                   rows.t_pos, rows.t_neg, float(a), float(b)), threads)
    return tuple(float(x) for x in _in_block_order(out))


def _moments(s, pos, w, threads):
    """``(weight of pos, weight of the rest, weighted sum of s, max s, min s)``; ``w``: the
    weights as :func:`_arrays` gives them."""
    out = _blocks(platt_moments, s.shape[0], MOMENTS, (s, pos, *w), threads)
    wp, wn, ws = (float(x) for x in _in_block_order(out[:, :3]))
    return wp, wn, ws, float(out[:, 3].max()), float(out[:, 4].min())


def _rows(s, pos, w, center, t_pos, t_neg, threads, moments):
    """:class:`PlattRows` scaled to unit weighted RMS about ``center``, and the sign of the
    log-loss's slope derivative at slope 0; None when the scores are constant
    (or the weights 0)."""
    wp, wn, _, hi, lo = moments
    weight = wp + wn
    big = max(hi - center, center - lo)  # the largest |s - center|: max, min are exact
    if not weight > 0.0 or not big > 0.0 or not np.isfinite(big):  # (no rows: weight 0)
        return None
    q, chance = _in_block_order(_blocks(platt_spread, s.shape[0], 2,
                                        (s, pos, *w, center, big, t_pos, t_neg), threads))
    scale = big * float(np.sqrt(q / weight))
    if not scale > 0.0 or not np.isfinite(scale) or not np.isfinite(1.0 / scale):
        return None
    return PlattRows(s, pos, w[0], float(center), 1.0 / scale, t_pos, t_neg, weight,
                     w[1], w[2]), float(chance)


def _targets(wp, wn):
    """Platt's smoothed targets (Platt 1999, eq. 5) from the class weights."""
    return (wp + 1.0) / (wp + 2.0), 1.0 / (wn + 2.0)


def _arrays(scores, y01, sample_weight):
    """Scores, positive mask and weights as the kernels read them: the weights are
    ``(w, w_pos, w_neg)``, ``w`` a weight per row, or empty when every row of a class
    has the same weight (``w_pos``, ``w_neg``: 1 and 1 without weights). Class weights
    (``class_weight``, and the loss's class costs of the threshold) are the common
    case: the kernels then read no weight array, and the log-loss takes its logs per
    chunk of rows (:func:`birank._kernels.platt.platt_block_sums`)."""
    s = np.ascontiguousarray(scores, dtype=np.float64).reshape(-1)
    pos = np.ascontiguousarray(np.asarray(y01).reshape(-1) == 1)
    none = np.zeros(0)
    if sample_weight is None:
        return s, pos, (none, 1.0, 1.0)
    w = np.ascontiguousarray(sample_weight, dtype=np.float64).reshape(-1)
    w_pos, w_neg = _one_value(w[pos]), _one_value(w[~pos])
    if w_pos is None or w_neg is None:
        return s, pos, (w, 1.0, 1.0)
    return s, pos, (none, w_pos, w_neg)


def _one_value(v):
    """The value every entry of ``v`` has (1.0 for none), or None when they differ."""
    if v.size == 0:
        return 1.0
    first = float(v[0])
    return first if bool(np.all(v == first)) else None


def _slope(s, pos, w, t_pos, t_neg, max_iter=100, tol=1e-12, threads=None, start=0.0):
    """``argmin_{a >= 0}`` of :func:`platt_objective` on one side (Newton, halving steps),
    from the slope ``start`` (a convex problem: any start >= 0 reaches the optimum);
    None for no row (or no weight), 0.0 below chance. ``w``: as :func:`_arrays`."""
    found = _rows(s, pos, w, 0.0, t_pos, t_neg, threads, _moments(s, pos, w, threads))
    if found is None:
        return None
    rows, chance = found
    if chance >= 0.0:  # derivative at a = 0 is >= 0: below chance
        return 0.0
    a = start / rows.inv_scale if np.isfinite(start / rows.inv_scale) else 0.0
    return _slope_newton(rows, a, max_iter, tol, threads)[0] * rows.inv_scale


def _warm_stride(n):
    """Stride of the subsample a Newton solve on n rows starts from; 0 for none."""
    k = n // PLATT_WARM_ROWS
    return min(k, PLATT_WARM_STRIDE) if k >= 4 else 0


def _slope_newton(rows, a, max_iter, tol, threads):
    """The Newton loop of :func:`_slope` on unit-RMS :class:`PlattRows`, from slope ``a``;
    ``(slope, passes over the rows)``.

    A strided subsample (:data:`PLATT_WARM_ROWS`) is solved first. When that took
    more than 4 passes, the start was far (a few percent or more: Newton's error
    squares at every step) and the subsample's optimum is the better start;
    otherwise the start was about as close as the subsample's own sampling error
    (Platt's slope often is) and is kept.
    """
    k = _warm_stride(rows.n)
    if k:
        near, passes = _slope_newton(rows.every(k), a, max_iter, tol, None)
        if passes > 4:
            a = near
    f, g, _, h, _, _ = platt_sums(rows, a, 0.0, threads)
    passes = 1
    for _ in range(max_iter):
        new = max(a - g / (h + 1e-12), 0.5 * a)  # stay >= 0 (the optimum is > 0 here)
        if abs(new - a) <= tol * max(1.0, a):
            # converged: a step this small is taken without evaluating where it lands
            # (the loop below would not halve it), one pass over the scores less
            a = new
            break
        nf, ng, _, nh, _, _ = platt_sums(rows, new, 0.0, threads)
        passes += 1
        # halve while the loss rises, unless the step promised a decrease below the
        # rounding of f (then f cannot tell) and the gradient shrank: near the optimum
        # a rounding-level rise would otherwise send every step through all the
        # halvings down to tol (dozens of passes on w8a's negative side), creeping
        # instead of landing
        while nf > f and abs(new - a) > tol * max(1.0, a) and not (
                abs(g * (new - a)) <= 1e-12 * abs(f) and abs(ng) < abs(g)):
            new = 0.5 * (a + new)
            nf, ng, _, nh, _, _ = platt_sums(rows, new, 0.0, threads)
            passes += 1
        if abs(new - a) <= tol * max(1.0, a):
            a = new
            break
        a, f, g, h = new, nf, ng, nh
    return a, passes


def _platt_newton(rows, a, b, max_iter, threads):
    """Platt's ``(a, b)`` from a start: Newton with Armijo backtracking (Lin, Lin & Weng
    2007, Algorithm 1), after landing on the optimum of a strided subsample
    (:data:`PLATT_WARM_ROWS`): the same convex problem and stopping rule, so the
    same optimum, in fewer passes over all rows."""
    k = _warm_stride(rows.n)
    if k:
        a, b = _platt_newton(rows.every(k), a, b, max_iter, None)
    f, g_a, g_b, h_aa, h_ab, h_bb = platt_sums(rows, a, b, threads)
    for _ in range(max_iter):
        if max(abs(g_a), abs(g_b)) <= 1e-13 * rows.weight:
            break
        h_aa, h_bb = h_aa + 1e-12, h_bb + 1e-12
        det = h_aa * h_bb - h_ab * h_ab
        d_a, d_b = (h_bb * g_a - h_ab * g_b) / det, (h_aa * g_b - h_ab * g_a) / det
        if abs(d_a) + abs(d_b) <= 1e-12 * (1.0 + abs(a) + abs(b)):
            # quadratic region: the full Newton step lands on the optimum to rounding, so
            # equal problems (weights vs repeated rows) give the same cut to ~1e-15
            a, b = a - d_a, b - d_b
            break
        lr = 1.0
        while lr > 1e-10:  # Armijo backtracking on the Newton direction
            sums = platt_sums(rows, a - lr * d_a, b - lr * d_b, threads)
            if sums[0] <= f - 1e-4 * lr * (g_a * d_a + g_b * d_b):
                break
            if abs(sums[0] - f) <= 1e-13 * abs(f) and \
                    max(abs(sums[1]), abs(sums[2])) < max(abs(g_a), abs(g_b)):
                break  # f flat to rounding near the optimum: the gradient decides
            lr *= 0.5
        else:
            break
        a, b = a - lr * d_a, b - lr * d_b
        f, g_a, g_b, h_aa, h_ab, h_bb = sums
    return a, b


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free


def platt_objective(a, scores, targets, weight):
    """Weighted log-loss of ``sigmoid(a s)`` against soft ``targets`` (one side)."""
    z = a * scores
    return dot(weight, np.logaddexp(0.0, z) - targets * z)


def platt_targets(y01, weight):
    """Platt's smoothed targets per row: ``(N+ + 1)/(N+ + 2)`` for positives,
    ``1/(N- + 2)`` else (the calibration itself keeps the two values, :func:`_targets`)."""
    y01 = np.asarray(y01)
    pos = y01 == 1
    t_pos, t_neg = _targets(float(dot(weight, pos.astype(np.float64))),
                            float(dot(weight, (y01 == 0).astype(np.float64))))
    return np.where(pos, t_pos, t_neg)


def platt_midpoint(scores, y01, sample_weight=None, max_iter=100, *, n_jobs=None):
    """The score where Platt's sigmoid ``1 / (1 + exp(-(a s + b)))`` is 1/2: ``-b / a``.

    See :func:`platt_line`, which also returns the slope; None when it does.
    """
    line = platt_line(scores, y01, sample_weight, max_iter, n_jobs=n_jobs)
    return None if line is None else line[0]


def platt_line(scores, y01, sample_weight=None, max_iter=100, *, n_jobs=None):
    """``(-b / a, a)``: where Platt's sigmoid ``1 / (1 + exp(-(a s + b)))`` is 1/2, and its
    slope per unit of score.

    ``(a, b)`` minimize the weighted log-loss against Platt's smoothed targets
    (Platt 1999, eq. 5), by Newton's method with a backtracking line search on
    the two unknowns (Lin, Lin & Weng 2007, Algorithm 1), scores scaled to unit
    RMS. This is the decision threshold: above it the calibrated probability of
    the positive class exceeds 1/2, so ``predict`` maximizes the expected
    accuracy under the calibrated model. None when the fitted slope is not
    positive (scores no better than chance) or the scores are constant.
    ``n_jobs``: threads for the passes over the scores (the same result for every
    value, :func:`platt_sums`).
    """
    s, pos, w = _arrays(scores, y01, sample_weight)
    threads = Threads(n_jobs)
    try:
        moments = _moments(s, pos, w, threads)
        wp, wn, ws, _, _ = moments
        if not wp + wn > 0.0:
            return None
        t_pos, t_neg = _targets(wp, wn)
        found = _rows(s, pos, w, ws / (wp + wn), t_pos, t_neg, threads, moments)
        if found is None:
            return None
        rows = found[0]
        prior = (wp * t_pos + wn * t_neg) / rows.weight
        # from the prior at a = 0
        a, b = _platt_newton(rows, 0.0, float(np.log(prior / (1.0 - prior))), max_iter,
                             threads)
    finally:
        threads.close()
    if not a > 0.0:
        return None
    return rows.center - b / (a * rows.inv_scale), a * rows.inv_scale


def platt_fit(scores, y01, sample_weight=None, *, n_jobs=None, start=0.0):
    """``(a_neg, a_pos)``: the slopes below and above the threshold (score 0).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Decision scores (the threshold at 0).
    y01 : array-like of shape (n,)
        1 for the positive class, 0 for the negative one.
    sample_weight : array-like of shape (n,), default=None
    n_jobs : int, default=None
        Threads for the passes over the scores (the same slopes for every value).
    start : float, default=0.0
        The slopes' starting point (Newton on a convex problem: the same optimum
        from any start >= 0; a nearby one, such as Platt's own slope from
        :func:`platt_line`, takes fewer passes).
    """
    s, pos, w = _arrays(scores, y01, sample_weight)
    n = s.shape[0]
    threads = Threads(n_jobs)
    try:
        t_pos, t_neg = _targets(*_moments(s, pos, w, threads)[:2])
        # each side's rows copied once (one pass, into one buffer: below 0 at the front,
        # above at the back), then read by every Newton pass of its slope
        rw = w[0]
        s_side, pos_side, w_side = np.empty(n), np.empty(n, dtype=np.bool_), np.empty(rw.size)
        below, above = split_sides(s, pos, rw, s_side, pos_side, w_side)
        a_neg, a_pos = [_slope(s_side[lo:hi], pos_side[lo:hi],
                               (w_side[lo:hi], *w[1:]) if rw.size else w,
                               t_pos, t_neg, threads=threads, start=start)
                        for lo, hi in ((0, below), (n - above, n))]
    finally:
        threads.close()
    # a side with no training score borrows the other side's slope
    a_neg = a_pos if a_neg is None else a_neg
    a_pos = a_neg if a_pos is None else a_pos
    return (0.0 if a_neg is None else a_neg), (0.0 if a_pos is None else a_pos)


def platt_proba(scores, a_neg, a_pos):
    """``(n, 2)`` array ``[1 - p, p]``, ``p = sigmoid(a s)`` with ``a = a_neg`` below 0."""
    s = np.asarray(scores, dtype=np.float64)
    p = _sigmoid(np.where(s < 0, a_neg, a_pos) * s)
    # argmax must equal predict (s > 0) even where a s rounds to 0 or a slope is 0
    p = np.where(s > 0, np.maximum(p, np.nextafter(0.5, 1.0)), np.minimum(p, 0.5))
    return np.column_stack([1.0 - p, p])
