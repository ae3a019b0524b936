"""Pegasos-style SGD for combined ranking and classification (Sculley 2010, CRR).

Objective (the CRR objective of Sculley 2010, "Combined regression and
ranking", with sofia-ml's hinge in place of the squared regression loss)::

    lambda/2 |w|^2 + (1 - p) E_k[ sw_k loss(y_k w.x_k) ] + p E_(i,j)[ sw_i sw_j loss(w.(x_i - x_j)) ]

with ``k`` a uniform random point (labels y in {-1, +1}) and ``(i, j)`` a
uniform random (positive, negative) pair; ``p`` is the rank-step probability.
Step t (1-based, counted over both kinds of step) is sofia-ml's
``sgd-svm`` step with ``eta_t = 1 / (lambda t)``::

    m = y w.x                       (margin before the step)
    w <- (1 - eta lambda) w         (L2 shrink)
    w <- w + eta sw g(m) y x        (g = -dloss/dm: hinge 1[m < 1], squared hinge 2 max(0, 1-m))
    w <- min(1, 1/(sqrt(lambda)|w|)) w      (only with projection: Pegasos)

``w`` is stored as ``scale * v`` (Shalev-Shwartz et al. 2007) so the shrink is
O(1) and a sparse step costs O(nnz(x)). ``v`` has ``n_features + 1`` entries;
the last is the weight of the constant bias feature 1 (sofia-ml adds it unless
``--no_bias_term``), used only when ``use_bias`` is true and cancelling in
pair steps.
"""

import math

import numpy as np

from numba import njit, types
from numba.extending import overload

from .losses import HINGE
from .sparse_rows import _xorshift_step, row_dot_w, stored


@njit(cache=True, inline="always")
def _dloss(loss, m):
    """``-d loss / d m`` at margin m."""
    if loss == HINGE:
        return 1.0 if m < 1.0 else 0.0
    r = 1.0 - m
    return 2.0 * r if r > 0.0 else 0.0


def axpy_norm(X, v, c, a, nsq, track=True):
    """``v += c x_a``; returns ``|v|^2`` updated from the changed coordinates only
    (``track=False``: the plain update, ``nsq`` returned as given)."""
    if isinstance(X, tuple):
        data, indices, indptr = X
        for k in range(indptr[a], indptr[a + 1]):
            j = indices[k]
            old = v[j]
            new = old + c * stored(data, k)
            v[j] = new
            if track:
                nsq += new * new - old * old
    else:
        for j in range(X.shape[1]):
            old = v[j]
            new = old + c * X[a, j]
            v[j] = new
            if track:
                nsq += new * new - old * old
    return nsq


@overload(axpy_norm)
def _axpy_norm_ov(X, v, c, a, nsq, track=True):
    # |v|^2 is kept only for the projection (track); without it the update is the
    # plain axpy (8% of a step); unsigned indices: no negative-index test
    if isinstance(X, types.BaseTuple):
        def sparse_impl(X, v, c, a, nsq, track=True):
            data, indices, indptr = X
            for k in range(indptr[a], indptr[a + 1]):
                j = np.uint64(indices[k])
                old = v[j]
                new = old + c * stored(data, k)
                v[j] = new
                if track:
                    nsq += new * new - old * old
            return nsq
        return sparse_impl

    def dense_impl(X, v, c, a, nsq, track=True):
        for j in range(X.shape[1]):
            old = v[j]
            new = old + c * X[a, j]
            v[j] = new
            if track:
                nsq += new * new - old * old
        return nsq
    return dense_impl


@njit(cache=True)
def crr_sgd(X, y_pm, sw, pos, neg, w, lam, t0, n_steps,
            rank_prob, loss, projection, use_bias, state):
    """Run ``n_steps`` CRR steps from ``w`` (updated in place), global steps ``t0+1 ..``.

    Parameters
    ----------
    X : rows argument of :mod:`.sparse_rows` (dense array or CSR tuple)
    y_pm : float64 array, labels in {-1, +1} per row
    sw : float64 array, per-row weights (all ones when unweighted)
    pos, neg : int64 arrays, the rows of each class (pairs are drawn from pos x neg)
    w : float64 array of length n_features + 1 (last = bias weight)
    state : int64 array of 4, xorshift128 state (advanced in place)

    Returns
    -------
    n_rank : int
        How many of the steps were rank (pair) steps.
    """
    n = y_pm.shape[0]
    n_pos = pos.shape[0]
    n_neg = neg.shape[0]
    d = w.shape[0] - 1
    v = w.copy()
    scale = 1.0
    nsq = 0.0
    for j in range(v.shape[0]):
        nsq += v[j] * v[j]
    # Pegasos' ball |w| <= 1/sqrt(lambda) when asked. The squared hinge is always kept
    # in |w| <= sqrt(2/lambda): the optimum lies there (lambda/2 |w*|^2 <= F(w*) <= F(0)
    # = 1, each mean loss being 1 at w = 0), and without it the unbounded gradient
    # (2 (1 - m)) at the first steps of size 1/(lambda t) runs w to inf, then NaN
    project = projection or loss != HINGE
    radius_sq = 1.0 / lam if projection else 2.0 / lam
    n_rank = 0
    # the xorshift128 words in locals (the stream of sparse_rows.rng_uniform /
    # rng_int): through ``state`` every store to v would force them to be reloaded
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for step in range(n_steps):
        t = t0 + step + 1
        eta = 1.0 / (lam * t)
        rank = False
        if n_pos > 0 and n_neg > 0:
            s0, s1, s2, s3 = _xorshift_step(s0, s1, s2, s3)
            rank = s0 * 2.3283064365386963e-10 < rank_prob  # 2**-32
        yi = 1.0
        if rank:
            n_rank += 1
            s0, s1, s2, s3 = _xorshift_step(s0, s1, s2, s3)
            i = pos[(s0 * n_pos) >> 32]
            s0, s1, s2, s3 = _xorshift_step(s0, s1, s2, s3)
            k = neg[(s0 * n_neg) >> 32]
            m = scale * (row_dot_w(X, v, i)
                         - row_dot_w(X, v, k))
            wt = sw[i] * sw[k]
        else:
            s0, s1, s2, s3 = _xorshift_step(s0, s1, s2, s3)
            i = (s0 * n) >> 32
            k = -1
            yi = y_pm[i]
            s = row_dot_w(X, v, i)
            if use_bias:
                s += v[d]
            m = yi * scale * s
            wt = sw[i]
        # L2 shrink: w <- (1 - eta lambda) w
        shrink = 1.0 - eta * lam
        if shrink <= 0.0:
            # t = 1 with eta = 1/lambda: w becomes 0 (sofia-ml clamps the factor at 1e-7
            # instead; both leave w = 0 at the first step of a fit, where w is 0 already)
            v[:] = 0.0
            scale = 1.0
            nsq = 0.0
        else:
            scale *= shrink
        g = _dloss(loss, m) * wt
        if g != 0.0:
            c = eta * g / scale
            if rank:
                nsq = axpy_norm(X, v, c, i, nsq, project)
                nsq = axpy_norm(X, v, -c, k, nsq, project)
            else:
                c *= yi
                nsq = axpy_norm(X, v, c, i, nsq, project)
                if use_bias:
                    old = v[d]
                    v[d] = old + c
                    nsq += v[d] * v[d] - old * old
        if project:
            wsq = scale * scale * nsq
            if wsq > radius_sq:
                scale *= math.sqrt(radius_sq / wsq)
        if scale < 1e-9:  # fold the scale into v before it underflows
            for j in range(v.shape[0]):
                v[j] *= scale
            nsq = 0.0
            for j in range(v.shape[0]):
                nsq += v[j] * v[j]
            scale = 1.0
    for j in range(v.shape[0]):
        w[j] = scale * v[j]
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return n_rank
