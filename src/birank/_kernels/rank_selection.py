"""Per-query scoring loops of the active rank-learning strategies (donmez-carbonell).

Every kernel receives an unlabeled pool sorted by (query, score ascending, row):
positions ``qptr[q] .. qptr[q + 1] - 1`` hold the ``m`` documents of query ``q``,
lowest score first. The document at position ``t`` has rank
``r = t - qptr[q] + 1``, so the lowest score has rank ``r_min = 1`` and the
highest ``r_max = m`` ("the most relevant examples have the highest rank",
donmez-carbonell after eq. 7). Each kernel writes one value per position.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def largest_gap_ranks(s, qptr, out):
    """Rank threshold estimate of donmez-carbonell Fig. 2, one per query.

    ``out[q] = argmax_{i = 1..m-1} |f(x_i) - f(x_{i+1})|`` as a 1-based rank
    (the first, i.e. lowest, maximiser on ties); -1 when the query has fewer
    than two documents (no gap exists).
    """
    for q in range(qptr.shape[0] - 1):
        out[q] = _largest_gap(s, qptr[q], qptr[q + 1])


@njit(cache=True, inline="always")
def _largest_gap(s, a, b):
    """1-based rank i maximising |s[a+i] - s[a+i-1]| over positions a..b-1 (first on ties)."""
    best = -1.0
    arg = -1
    for t in range(a, b - 1):
        gap = abs(s[t + 1] - s[t])  # Fig. 2 step 2
        if gap > best:  # strict: the lowest rank wins ties
            best = gap
            arg = t - a + 1
    return arg


@njit(cache=True, inline="always")
def _sigmoid(z):
    # 1 / (1 + exp(-z)) without overflow warnings for large |z|
    if z >= 0.0:
        return 1.0 / (1.0 + np.exp(-z))
    e = np.exp(z)
    return e / (1.0 + e)


@njit(cache=True)
def lossmin_scores(s, qptr, lam, out):
    """Normalized expected hinge rank loss of donmez-carbonell eq. (7), per document.

    With ``i`` the largest-gap rank of Fig. 2 and ``c = f(x_i)`` its score, the
    rank threshold is ``theta = i + 1/2`` (half way between ranks i and i + 1:
    the definition after eq. 1 with the decision threshold at ``c``) and the
    calibrated posterior is ``P(+1 | x) = sigmoid(f(x) - c)`` (see
    :func:`birank.active_learning.threshold.calibrated_posterior` for why the
    printed form is corrected). Then::

        P(+1|x) [1/2 - (r - theta)]_+ / |1 - theta| (1 - lam)
          + P(-1|x) [1/2 + (r - theta)]_+ / |m - theta| lam

    A query with one document gets 0 (it has no gap; it is taken anyway when
    its pool is not larger than the per-query budget).
    """
    lossmin_ablation_scores(s, qptr, lam, True, True, out)


@njit(cache=True)
def lossmin_ablation_scores(s, qptr, lam, normalized, calibrated, out):
    """:func:`lossmin_scores` with two of its pieces switchable (the report's ablations).

    ``normalized=False`` is eq. (6): ``P(+1|x) [1/2 - (r - theta)]_+ + P(-1|x)
    [1/2 + (r - theta)]_+`` (no division by the rank range, no lam).
    ``calibrated=False`` uses eq. (8) uncalibrated, ``P(+1|x) = sigmoid(f(x))``
    (boundary at score 0) instead of the sigmoid shifted to the threshold
    document. Both True is :func:`lossmin_scores` exactly.
    """
    for q in range(qptr.shape[0] - 1):
        a, b = qptr[q], qptr[q + 1]
        m = b - a
        if m < 2:
            for t in range(a, b):
                out[t] = 0.0
            continue
        i_hat = _largest_gap(s, a, b)  # Fig. 2 step 3
        # f(x_theta_hat): the score of the document of rank i_hat (eq. 8 calibrated there)
        c = s[a + i_hat - 1] if calibrated else 0.0
        theta = i_hat + 0.5
        den_low = theta - 1.0  # |r_min - theta| >= 1/2
        den_high = m - theta  # |r_max - theta| >= 1/2
        for t in range(a, b):
            d = (t - a + 1) - theta
            p_pos = _sigmoid(s[t] - c)
            p_neg = _sigmoid(c - s[t])
            lo = 0.5 - d
            hi = 0.5 + d
            v = 0.0
            if normalized:
                if lo > 0.0:
                    v += p_pos * lo / den_low * (1.0 - lam)  # eq. (7), first term
                if hi > 0.0:
                    v += p_neg * hi / den_high * lam  # eq. (7), second term
            else:  # eq. (6)
                if lo > 0.0:
                    v += p_pos * lo
                if hi > 0.0:
                    v += p_neg * hi
            out[t] = v


@njit(cache=True)
def _largest_gaps(s, a, b, k):
    """The 1-based ranks of the ``k`` largest neighbouring gaps in positions a..b-1,
    ascending (lowest rank first among equal gaps, as :func:`_largest_gap`)."""
    m = b - a
    gaps = np.empty(m - 1)
    for t in range(m - 1):
        gaps[t] = -abs(s[a + t + 1] - s[a + t])
    order = np.argsort(gaps, kind="mergesort")  # stable: lower rank first on ties
    ranks = np.sort(order[:k]) + 1
    return ranks


@njit(cache=True)
def lossmin_multilevel_scores(s, qptr, lam, n_thresholds, out):
    """Multi-level LossMin: eq. (7) averaged over one rank threshold per level boundary.

    donmez-carbonell section 2 (footnote 2 and after eq. 6) leave multi-level
    ratings to future work, noting that they mean "multiple thresholds ... with
    uncertain points being specific to each threshold". With ``L`` relevance
    levels there are ``K = L - 1`` boundaries; in a query of ``m`` documents we
    take the ``min(K, m - 1)`` largest score gaps (Fig. 2 with K gaps instead of
    one) as the rank thresholds ``theta_1 < ... < theta_K`` (``theta_j = i_j +
    1/2``), calibrate ``P(y >= level j | x) = sigmoid(f(x) - f(x_{i_j}))`` at
    each, and score a document by the mean over j of eq. (7) for the binary
    question "is y at least level j":

        P_j(+1|x) [1/2 - (r - theta_j)]_+ / |1 - theta_j| (1 - lam)
          + P_j(-1|x) [1/2 + (r - theta_j)]_+ / |m - theta_j| lam

    With ``K = 1`` this is :func:`lossmin_scores` exactly.
    """
    for q in range(qptr.shape[0] - 1):
        a, b = qptr[q], qptr[q + 1]
        m = b - a
        if m < 2:
            for t in range(a, b):
                out[t] = 0.0
            continue
        k = n_thresholds if n_thresholds < m - 1 else m - 1
        ranks = _largest_gaps(s, a, b, k)
        for t in range(a, b):
            out[t] = 0.0
        for j in range(k):
            i_hat = ranks[j]
            c = s[a + i_hat - 1]
            theta = i_hat + 0.5
            den_low = theta - 1.0
            den_high = m - theta
            for t in range(a, b):
                d = (t - a + 1) - theta
                lo = 0.5 - d
                hi = 0.5 + d
                v = 0.0
                if lo > 0.0:
                    v += _sigmoid(s[t] - c) * lo / den_low * (1.0 - lam)
                if hi > 0.0:
                    v += _sigmoid(c - s[t]) * hi / den_high * lam
                out[t] += v / k


@njit(cache=True)
def neighbor_gaps(s, qptr, out):
    """Score distance of each document to its nearest neighbour in the same query.

    The document pairs with the closest scores (Yu 2005, the *Uncertain*
    baseline) are the neighbouring pairs of the sorted order with the smallest
    gaps; a document's value is the smaller of its two neighbouring gaps
    (``inf`` when the query has one document).
    """
    for q in range(qptr.shape[0] - 1):
        a, b = qptr[q], qptr[q + 1]
        for t in range(a, b):
            g = np.inf
            if t > a:
                g = s[t] - s[t - 1]
            if t + 1 < b and s[t + 1] - s[t] < g:
                g = s[t + 1] - s[t]
            out[t] = g


@njit(cache=True)
def _count_below(sorted_vals, lo, hi, x):
    """(count < x, count == x) among sorted_vals[lo:hi], by two binary searches."""
    left = lo + np.searchsorted(sorted_vals[lo:hi], x, side="left")
    right = lo + np.searchsorted(sorted_vals[lo:hi], x, side="right")
    return left - lo, right - left


@njit(cache=True)
def ranking_error_entropy(s, qptr, pos_s, pos_ptr, neg_s, neg_ptr, out):
    """Entropy of a document's label under the bipartite ranking error it would add.

    For query ``q`` the labeled relevant scores are ``pos_s[pos_ptr[q]:pos_ptr[q+1]]``
    and the labeled non-relevant ones ``neg_s[neg_ptr[q]:neg_ptr[q+1]]``, each
    sorted ascending. Labelled relevant, a document at score ``x`` adds the
    fraction of labeled non-relevant documents scored above it to the bipartite
    ranking error (Freund et al. 2003; ties count 1/2); labelled non-relevant,
    the fraction of labeled relevant documents scored below it. With these two
    errors ``e_pos``, ``e_neg`` the label distribution is
    ``P(+1) = sigmoid(e_neg - e_pos)`` and the value is its entropy in bits.
    A side without labeled documents adds no error.
    """
    for q in range(qptr.shape[0] - 1):
        a, b = qptr[q], qptr[q + 1]
        p0, p1 = pos_ptr[q], pos_ptr[q + 1]
        n0, n1 = neg_ptr[q], neg_ptr[q + 1]
        n_pos = p1 - p0
        n_neg = n1 - n0
        for t in range(a, b):
            x = s[t]
            e_pos = 0.0
            e_neg = 0.0
            if n_neg > 0:
                below, tied = _count_below(neg_s, n0, n1, x)
                above = n_neg - below - tied
                e_pos = (above + 0.5 * tied) / n_neg
            if n_pos > 0:
                below, tied = _count_below(pos_s, p0, p1, x)
                e_neg = (below + 0.5 * tied) / n_pos
            p = _sigmoid(e_neg - e_pos)
            out[t] = -(p * np.log2(p) + (1.0 - p) * np.log2(1.0 - p))
