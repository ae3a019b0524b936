"""Rank threshold estimation (donmez-carbonell Fig. 2) and posterior calibration (eq. 8).

Pools are handled query by query: :func:`sort_pool` orders the rows by
(query, score ascending, row) once, and every per-query loop runs in a numba
kernel of :mod:`birank._kernels.rank_selection` over that order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels.rank_selection import largest_gap_ranks
from .._validation import group_codes

if TYPE_CHECKING:
    from .._typing import ArrayLike, FloatArray, IntArray

__all__ = ["sort_pool", "rank_thresholds", "sigmoid_posterior", "calibrated_posterior"]


def _as_scores(scores):
    s = np.ascontiguousarray(scores, dtype=np.float64).reshape(-1)
    if not np.isfinite(s).all():
        raise ValueError("scores must be finite; got NaN or inf (diverged ranker?).")
    return s



def sort_pool(scores: ArrayLike, groups: ArrayLike | None = None,
              ) -> tuple[IntArray, IntArray, IntArray]:
    """Order rows by (query, score ascending, row index).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite scores (NaN or inf raise ValueError).
    groups : array-like of shape (n,), default=None
        Query of each row; None means one query.

    Returns
    -------
    order : ndarray of int64, shape (n,)
        Row indices; ``scores[order]`` is ascending within each query.
    qptr : ndarray of int64, shape (n_queries + 1,)
        Query ``q`` occupies ``order[qptr[q]:qptr[q + 1]]`` (queries in sorted id order).
    codes : ndarray of int64, shape (n,)
        The query number (0..n_queries-1) of every row.

    Examples
    --------
    >>> from birank.active_learning import sort_pool
    >>> order, qptr, codes = sort_pool([0.5, 0.1, 0.9, 0.3], groups=[7, 7, 2, 2])
    >>> order.tolist(), qptr.tolist(), codes.tolist()
    ([3, 2, 1, 0], [0, 2, 4], [1, 1, 0, 0])
    """
    s = _as_scores(scores)
    codes = group_codes(groups, s.shape[0])
    order = np.lexsort((np.arange(s.shape[0]), s, codes)).astype(np.int64)
    counts = np.bincount(codes, minlength=int(codes.max()) + 1 if codes.size else 0)
    qptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return order, qptr, codes


def rank_thresholds(scores: ArrayLike, groups: ArrayLike | None = None,
                    ) -> tuple[IntArray, FloatArray]:
    """Estimated rank threshold of each query by the largest score gap (Fig. 2).

    The documents of a query are sorted by ascending score, ``x_1 < ... < x_m``;
    the threshold is ``i = argmax_{i=1..m-1} |f(x_i) - f(x_{i+1})|`` (the lowest
    such rank on ties): the estimated rank of the highest non-relevant document,
    i.e. the rank threshold ``theta = i + 1/2`` of eq. (1).

    Parameters
    ----------
    scores : array-like of shape (n,)
    groups : array-like of shape (n,), default=None
        Query of each row; None means one query.

    Returns
    -------
    ranks : ndarray of int64, shape (n_queries,)
        The 1-based rank ``i`` per query (queries in sorted id order); -1 for a
        query with a single document.
    threshold_scores : ndarray of float64, shape (n_queries,)
        ``f(x_i)``, the score used to calibrate the posterior (NaN when ``i = -1``).

    Examples
    --------
    >>> from birank.active_learning import rank_thresholds
    >>> ranks, thr = rank_thresholds([0.1, 3.0, 0.4, 2.5])
    >>> ranks.tolist(), thr.tolist()
    ([2], [0.4])
    """
    s = _as_scores(scores)
    order, qptr, _ = sort_pool(s, groups)
    ss = s[order]
    ranks = np.empty(qptr.shape[0] - 1, dtype=np.int64)
    largest_gap_ranks(ss, qptr, ranks)
    thr = np.full(ranks.shape[0], np.nan)
    ok = ranks > 0
    thr[ok] = ss[qptr[:-1][ok] + ranks[ok] - 1]
    return ranks, thr


def sigmoid_posterior(scores: ArrayLike) -> FloatArray:
    """Uncalibrated ``P(y = +1 | x) = 1 / (1 + exp(-f(x)))`` of donmez-carbonell eq. (8).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite ranker scores ``f(x)`` (NaN or inf raise ValueError).

    Returns
    -------
    posterior : ndarray of float64, shape (n,)
        ``P(y = +1 | x)`` in [0, 1], computed without overflow in either tail.

    Examples
    --------
    >>> from birank.active_learning import sigmoid_posterior
    >>> sigmoid_posterior([0.0, 2.0]).round(4).tolist()
    [0.5, 0.8808]
    """
    s = _as_scores(scores)
    e = np.exp(-np.abs(s))  # never overflows; keeps relative precision in both tails
    return np.where(s >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def calibrated_posterior(scores: ArrayLike, threshold_score: float) -> FloatArray:
    """Calibrated ``P(y = +1 | x)`` with the estimated threshold score (after eq. 8).

    The paper prints ``P(y | x) = 1 / (1 + exp(-y f(x) + f(x_theta)))``. Taken
    literally, ``P(+1 | x) + P(-1 | x) = sigmoid(f - c) + sigmoid(-f - c)``,
    which is not 1 unless ``c = f(x_theta) = 0``: not a distribution. The
    calibration it describes moves the decision boundary of eq. (8) to the
    threshold document, i.e. shifts the score before the sign of the label
    is applied: ``P(y | x) = 1 / (1 + exp(-y (f(x) - f(x_theta))))``. Then the
    two probabilities sum to 1 and the threshold document gets exactly 1/2,
    as a boundary should. We use this corrected form (typo: a missing
    ``y`` factor, i.e. parentheses, on ``f(x_theta)``).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite ranker scores ``f(x)`` (NaN or inf raise ValueError).
    threshold_score : float
        ``f(x_theta)``, the score of the threshold document (e.g. from
        :func:`rank_thresholds`).

    Returns
    -------
    posterior : ndarray of float64, shape (n,)
        ``P(y = +1 | x)``; ``P(y = -1 | x)`` is one minus it.

    Examples
    --------
    >>> from birank.active_learning import calibrated_posterior
    >>> calibrated_posterior([0.4, 1.4], 0.4).round(4).tolist()
    [0.5, 0.7311]
    """
    s = _as_scores(scores)
    return sigmoid_posterior(s - float(threshold_score))
