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

import numpy as np

from ._kernels.platt import platt_block_sums
from ._linalg import dot
from ._parallel import Threads

__all__ = ["platt_fit", "platt_line", "platt_midpoint", "platt_objective", "platt_proba",
           "platt_sums", "platt_targets"]

#: rows per block of :func:`platt_sums`: the blocks depend on the number of rows
#: alone and are added in block order, so the sums are the same bits for every
#: ``n_jobs``
PLATT_BLOCK = 1 << 16
#: Newton starts far from the optimum (from the prior, or from Platt's slope for
#: the two slopes) and takes 7-11 passes to land; on every ``k``-th row
#: (``k = min(n // PLATT_WARM_ROWS, PLATT_WARM_STRIDE)``, when ``k >= 4``) those
#: passes are ``k`` times cheaper, and Newton on all rows then starts next to the
#: optimum, converging quadratically in 3-5 passes. Applied recursively, so every
#: stage is at most 64 times the next. WeightedSVM's squared hinge on w8a's 37,311
#: training rows: 766,000 row evaluations before, 444,000 after (scratch count,
#: /work/scratch/s37/pcount.py).
PLATT_WARM_ROWS = 1 << 12
PLATT_WARM_STRIDE = 64


def platt_sums(u, t, w, a, b, threads=None):
    """``(f, g_a, g_b, h_aa, h_ab, h_bb)``: Platt's weighted log-loss at ``z = a u + b``
    against soft targets ``t``, its gradient and Hessian in ``(a, b)``
    (:func:`birank._kernels.platt.platt_block_sums`), the blocks on ``threads``."""
    n = u.shape[0]
    k = max(1, -(-n // PLATT_BLOCK))
    out = np.empty((k, 6))
    a, b = float(a), float(b)
    if threads is None or k == 1:
        platt_block_sums(u, t, w, a, b, PLATT_BLOCK, out, 0, k)
    else:
        threads.run(platt_block_sums,
                    [(u, t, w, a, b, PLATT_BLOCK, out, k0, k1) for k0, k1 in threads.ranges(k)])
    total = out[0].copy()
    for j in range(1, k):
        total += out[j]
    return tuple(float(x) for x in total)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free


def _rms(x, w):
    """Weighted root mean square, scaled by max |x| first: huge scores do not overflow."""
    big = float(np.max(np.abs(x))) if x.size else 0.0
    if big == 0.0 or not np.isfinite(big):
        return big
    u = x / big
    return big * float(np.sqrt(dot(w, u * u) / w.sum()))


def platt_objective(a, scores, targets, weight):
    """Weighted log-loss of ``sigmoid(a s)`` against soft ``targets`` (one side)."""
    z = a * scores
    return dot(weight, np.logaddexp(0.0, z) - targets * z)


def platt_targets(y01, weight):
    """Platt's smoothed targets: ``(N+ + 1)/(N+ + 2)`` for positives, ``1/(N- + 2)`` else."""
    # class totals as dot products with 0/1 indicators (a boolean-mask copy of the
    # weights took twice as long: this runs twice in every two-class fit)
    y01 = np.asarray(y01)
    pos = y01 == 1
    n_pos = float(dot(weight, pos.astype(np.float64)))
    n_neg = float(dot(weight, (y01 == 0).astype(np.float64)))
    return np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


def _slope(s, t, w, max_iter=100, tol=1e-12, threads=None, start=0.0):
    """``argmin_{a >= 0}`` of :func:`platt_objective` on one side (Newton, halving steps),
    from the slope ``start`` (a convex problem: any start >= 0 reaches the optimum)."""
    scale = _rms(s, w) if s.size and w.sum() > 0 else 0.0
    if scale == 0.0 or not np.isfinite(scale):
        return None
    u = np.ascontiguousarray(s / scale)
    t, w = np.ascontiguousarray(t, dtype=np.float64), np.ascontiguousarray(w, dtype=np.float64)
    if dot(w, (0.5 - t) * u) >= 0.0:  # derivative at a = 0 is >= 0: below chance
        return 0.0
    a = start * scale if np.isfinite(start * scale) else 0.0
    return _slope_newton(u, t, w, a, max_iter, tol, threads)[0] / scale


def _warm_stride(n):
    """Stride of the subsample a Newton solve on n rows starts from; 0 for none."""
    k = n // PLATT_WARM_ROWS
    return min(k, PLATT_WARM_STRIDE) if k >= 4 else 0


def _every(k, *arrays):
    return [np.ascontiguousarray(x[::k]) for x in arrays]


def _slope_newton(u, t, w, a, max_iter, tol, threads):
    """The Newton loop of :func:`_slope` on unit-RMS scores ``u``, from slope ``a``;
    ``(slope, passes over u)``.

    A strided subsample (:data:`PLATT_WARM_ROWS`) is solved first. When that took
    more than 4 passes, the start was far (a few percent or more: Newton's error
    squares at every step) and the subsample's optimum is the better start;
    otherwise the start was about as close as the subsample's own sampling error
    (Platt's slope often is) and is kept.
    """
    k = _warm_stride(u.shape[0])
    if k:
        near, passes = _slope_newton(*_every(k, u, t, w), a, max_iter, tol, None)
        if passes > 4:
            a = near
    f, g, _, h, _, _ = platt_sums(u, t, w, a, 0.0, threads)
    passes = 1
    for _ in range(max_iter):
        new = max(a - g / (h + 1e-12), 0.5 * a)  # stay >= 0 (the optimum is > 0 here)
        if abs(new - a) <= tol * max(1.0, a):
            # converged: a step this small is taken without evaluating where it lands
            # (the loop below would not halve it), one pass over the scores less
            a = new
            break
        nf, ng, _, nh, _, _ = platt_sums(u, t, w, new, 0.0, threads)
        passes += 1
        # halve while the loss rises, unless the step promised a decrease below the
        # rounding of f (then f cannot tell) and the gradient shrank: near the optimum
        # a rounding-level rise would otherwise send every step through all the
        # halvings down to tol (dozens of passes on w8a's negative side), creeping
        # instead of landing
        while nf > f and abs(new - a) > tol * max(1.0, a) and not (
                abs(g * (new - a)) <= 1e-12 * abs(f) and abs(ng) < abs(g)):
            new = 0.5 * (a + new)
            nf, ng, _, nh, _, _ = platt_sums(u, t, w, new, 0.0, threads)
            passes += 1
        if abs(new - a) <= tol * max(1.0, a):
            a = new
            break
        a, f, g, h = new, nf, ng, nh
    return a, passes


def _platt_newton(u, t, w, a, b, max_iter, threads):
    """Platt's ``(a, b)`` from a start: Newton with Armijo backtracking (Lin, Lin & Weng
    2007, Algorithm 1), after landing on the optimum of a strided subsample
    (:data:`PLATT_WARM_ROWS`): the same convex problem and stopping rule, so the
    same optimum, in fewer passes over all rows."""
    k = _warm_stride(u.shape[0])
    if k:
        a, b = _platt_newton(*_every(k, u, t, w), a, b, max_iter, None)
    f, g_a, g_b, h_aa, h_ab, h_bb = platt_sums(u, t, w, a, b, threads)
    for _ in range(max_iter):
        if max(abs(g_a), abs(g_b)) <= 1e-13 * w.sum():
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
            sums = platt_sums(u, t, w, a - lr * d_a, b - lr * d_b, threads)
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
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    y01 = np.asarray(y01).reshape(-1)
    w = np.ones(s.shape[0]) if sample_weight is None else \
        np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    if s.size == 0 or w.sum() <= 0:
        return None
    center = dot(w, s) / float(w.sum())
    scale = _rms(s - center, w)
    if scale == 0.0 or not np.isfinite(scale):
        return None
    u = np.ascontiguousarray((s - center) / scale)
    w = np.ascontiguousarray(w)
    t = np.ascontiguousarray(platt_targets(y01, w), dtype=np.float64)
    prior = dot(w, t) / float(w.sum())
    a, b = 0.0, float(np.log(prior / (1.0 - prior)))  # the prior at a = 0
    threads = Threads(n_jobs)
    try:
        a, b = _platt_newton(u, t, w, a, b, max_iter, threads)
    finally:
        threads.close()
    if not a > 0.0:
        return None
    return center - scale * b / a, a / scale


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
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    y01 = np.asarray(y01).reshape(-1)
    w = np.ones(s.shape[0]) if sample_weight is None else \
        np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    t = platt_targets(y01, w)
    # each side's rows by index (np.take), not by boolean mask: 3x faster per array
    neg, pos = np.flatnonzero(s < 0), np.flatnonzero(s > 0)
    threads = Threads(n_jobs)
    try:
        a_neg = _slope(s.take(neg), t.take(neg), w.take(neg), threads=threads, start=start)
        a_pos = _slope(s.take(pos), t.take(pos), w.take(pos), threads=threads, start=start)
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
