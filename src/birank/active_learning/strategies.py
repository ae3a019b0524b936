"""Query strategies of donmez-carbonell section 3.1: informativeness of unlabeled documents.

Every function returns one value per pool row, **larger = more informative**,
computed query by query (documents compete only with documents of their own
query); :func:`select_per_query` then takes the ``k`` best of every query.

- ``lossmin`` -- the paper's method: normalized expected hinge rank loss, eq. (7),
  with the largest-gap threshold of Fig. 2 and the calibrated posterior.
- ``lossmin-multilevel`` -- the paper's projected extension to multi-level
  ratings (footnote 2): eq. (7) averaged over one rank threshold per boundary
  between relevance levels (the largest score gaps), see
  :func:`birank._kernels.rank_selection.lossmin_multilevel_scores`.
- ``entropy`` -- Rajaram et al. (2007) as the paper describes it: the most
  confusing documents under the bipartite ranking error (Freund et al. 2003).
  Our reading: a document's label has the Gibbs distribution of the ranking
  error each label would add against the query's labeled documents, and its
  entropy is the value (see :func:`birank._kernels.rank_selection.ranking_error_entropy`).
- ``uncertain`` -- Yu (2005): documents in the pairs with the closest scores;
  value = minus the gap to the nearest score in the same query.
- ``diverse`` -- Amini et al. (2006): disagreement between the current ranker and
  randomized hypotheses (rankers trained on random folds of the labeled set);
  value = mean absolute difference of normalized within-query ranks.
- ``random`` -- uniform random values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels.rank_selection import lossmin_multilevel_scores as _lossmin_ml_kernel
from .._kernels.rank_selection import lossmin_scores as _lossmin_kernel
from .._kernels.rank_selection import neighbor_gaps, ranking_error_entropy
from .._validation import check_random_state, group_codes
from .threshold import sort_pool

if TYPE_CHECKING:
    from .._typing import ArrayLike, FloatArray, IntArray, RandomStateLike

__all__ = ["STRATEGIES", "lossmin_scores", "lossmin_multilevel_scores", "entropy_scores", "uncertain_scores",
           "diverse_scores", "random_scores", "within_query_ranks", "select_per_query"]

STRATEGIES = ("lossmin", "lossmin-multilevel", "entropy", "uncertain", "diverse", "random")


def _scatter(order, values_sorted):
    out = np.empty_like(values_sorted)
    out[order] = values_sorted
    return out


def lossmin_scores(scores: ArrayLike, groups: ArrayLike | None = None, *,
                   above_threshold_weight: float = 0.6) -> FloatArray:
    """LossMin informativeness of every pool row: donmez-carbonell Fig. 1 steps 2-4.

    Within each query the unlabeled documents are ranked by ascending score
    (rank 1 = lowest), the rank threshold is the largest score gap (Fig. 2), the
    posterior is the sigmoid calibrated at the threshold document, and the value
    is the normalized expected hinge rank loss of eq. (7) with trade-off
    ``above_threshold_weight``.
    Ties in score are ranked by row order.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Current ranker's scores of the unlabeled pool.
    groups : array-like of shape (n,), default=None
        Query of each row; None means one query.
    above_threshold_weight : float in (0, 1), default=0.6
        Weight of documents ranked above the threshold (eq. 7; the paper uses 0.6).

    Returns
    -------
    values : ndarray of shape (n,)

    Examples
    --------
    >>> from birank.active_learning import lossmin_scores
    >>> lossmin_scores([0.0, 1.0, 3.0]).round(4).tolist()
    [0.1434, 0.1333, 0.143]
    """
    order, qptr, _ = sort_pool(scores, groups)
    s = np.asarray(scores, dtype=np.float64).reshape(-1)[order]
    out = np.empty_like(s)
    _lossmin_kernel(np.ascontiguousarray(s), qptr, float(above_threshold_weight), out)
    return _scatter(order, out)


def lossmin_multilevel_scores(scores: ArrayLike, groups: ArrayLike | None = None, *,
                              n_levels: int = 3, above_threshold_weight: float = 0.6,
                              ) -> FloatArray:
    """Multi-level LossMin: eq. (7) averaged over ``n_levels - 1`` rank thresholds.

    Within each query the ``min(n_levels - 1, m - 1)`` largest score gaps are the
    thresholds between relevance levels (Fig. 2 with several gaps); each gets
    its calibrated posterior and its eq. (7) term, and a document's value is
    their mean. ``n_levels=2`` is :func:`lossmin_scores`. The paper's projected
    extension to multi-level ratings (footnote 2); ``ActiveRankLearner(strategy=
    "lossmin-multilevel")`` passes the number of levels in its labeled set. Ties
    in score are ranked by row order.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Current ranker's scores of the unlabeled pool.
    groups : array-like of shape (n,), default=None
        Query of each row; None means one query.
    n_levels : int >= 2, default=3
        Relevance levels assumed per query: ``n_levels - 1`` thresholds (3: the
        grades 0, 1, 2 of LETOR 4.0's MQ2007 and MQ2008).
    above_threshold_weight : float in (0, 1), default=0.6
        Weight of documents ranked above each threshold (eq. 7; the paper uses 0.6).

    Returns
    -------
    values : ndarray of shape (n,)

    Examples
    --------
    >>> from birank.active_learning import lossmin_multilevel_scores
    >>> lossmin_multilevel_scores([0.0, 1.0, 3.0, 3.5], n_levels=3).round(4).tolist()
    [0.2717, 0.0989, 0.0352, 0.0409]
    """
    if int(n_levels) < 2:
        raise ValueError(f"n_levels must be >= 2; got {n_levels!r}.")
    order, qptr, _ = sort_pool(scores, groups)
    s = np.asarray(scores, dtype=np.float64).reshape(-1)[order]
    out = np.empty_like(s)
    _lossmin_ml_kernel(np.ascontiguousarray(s), qptr, float(above_threshold_weight),
                       int(n_levels) - 1, out)
    return _scatter(order, out)


def uncertain_scores(scores: ArrayLike, groups: ArrayLike | None = None) -> FloatArray:
    """Minus the distance to the closest other score of the same query (Yu 2005).

    Both documents of the closest-scored pair get the largest value, so taking
    the top ``k`` takes the closest pairs first. A lone document gets ``-inf``.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Current ranker's scores of the unlabeled pool.
    groups : array-like of shape (n,), default=None
        Query of each row; None means one query.

    Returns
    -------
    values : ndarray of float64, shape (n,)
        ``-min |scores[i] - scores[j]|`` over the other rows ``j`` of the same
        query (larger = more uncertain); ``-inf`` for a lone document.

    Examples
    --------
    >>> from birank.active_learning import uncertain_scores
    >>> uncertain_scores([0.0, 1.0, 1.25, 3.0]).tolist()
    [-1.0, -0.25, -0.25, -1.75]
    """
    order, qptr, _ = sort_pool(scores, groups)
    s = np.ascontiguousarray(np.asarray(scores, dtype=np.float64).reshape(-1)[order])
    out = np.empty_like(s)
    neighbor_gaps(s, qptr, out)
    return -_scatter(order, out)


def entropy_scores(scores: ArrayLike, groups: ArrayLike | None, labeled_scores: ArrayLike,
                   labeled_relevant: ArrayLike, labeled_groups: ArrayLike | None) -> FloatArray:
    """Entropy of each pool document's label under the bipartite ranking error.

    For a pool document at score ``x`` in query ``q``: if it were relevant, it
    would add ``e_pos`` = the fraction of the query's labeled non-relevant
    documents scored above ``x``; if non-relevant, ``e_neg`` = the fraction of
    labeled relevant documents scored below ``x`` (ties 1/2). Its label then has
    ``P(+1) = 1 / (1 + exp(e_pos - e_neg))`` and the value is the entropy (bits)
    of that distribution: largest where labeled relevant and non-relevant
    documents interleave, i.e. where the current ranker is most confused.

    Parameters
    ----------
    scores, groups : array-like of shape (n,)
        The unlabeled pool.
    labeled_scores, labeled_relevant, labeled_groups : array-like of shape (n_labeled,)
        Scores, binary relevance and queries of the labeled documents.

    Returns
    -------
    values : ndarray of float64, shape (n,)
        Entropy in bits, in [0, 1], of each pool document's label (larger =
        more informative).

    Examples
    --------
    >>> from birank.active_learning import entropy_scores
    >>> entropy_scores([0.5, 2.0], [1, 1], [0.0, 1.0, 3.0], [0, 1, 0], [1, 1, 1]).round(4).tolist()
    [0.9563, 0.9563]
    """
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    ls = np.asarray(labeled_scores, dtype=np.float64).reshape(-1)
    lr = np.asarray(labeled_relevant).reshape(-1).astype(bool)
    g = np.zeros(s.shape[0], np.int64) if groups is None else np.asarray(groups).reshape(-1)
    lg = np.zeros(ls.shape[0], np.int64) if labeled_groups is None else \
        np.asarray(labeled_groups).reshape(-1)
    if not (ls.shape[0] == lr.shape[0] == lg.shape[0]):
        raise ValueError("labeled_scores, labeled_relevant and labeled_groups must have the "
                         f"same length; got {ls.shape[0]}, {lr.shape[0]}, {lg.shape[0]}.")
    order, qptr, _ = sort_pool(s, g)
    # labeled documents in the pool's query numbering (others cannot matter)
    uq = np.unique(g)
    lc = np.searchsorted(uq, lg)
    inside = (lc < uq.shape[0]) & (uq[np.minimum(lc, uq.shape[0] - 1)] == lg)
    pos_s, pos_ptr = _sorted_by_query(ls[lr & inside], lc[lr & inside], uq.shape[0])
    neg_s, neg_ptr = _sorted_by_query(ls[~lr & inside], lc[~lr & inside], uq.shape[0])
    ss = np.ascontiguousarray(s[order])
    out = np.empty_like(ss)
    ranking_error_entropy(ss, qptr, pos_s, pos_ptr, neg_s, neg_ptr, out)
    return _scatter(order, out)


def _sorted_by_query(values, codes, n_queries):
    """Values sorted by (query, value) and the query pointer ``ptr`` (n_queries + 1)."""
    order = np.lexsort((values, codes))
    ptr = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=n_queries))))
    return np.ascontiguousarray(values[order]), ptr.astype(np.int64)


def within_query_ranks(scores: ArrayLike, groups: ArrayLike | None = None) -> FloatArray:
    """Normalized rank ``(r - 1) / (m - 1)`` of each row within its query (0 for ``m = 1``).

    Rank 1 is the lowest score; ties are ranked by row order.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite scores.
    groups : array-like of shape (n,), default=None
        Query of each row; None means one query.

    Returns
    -------
    ranks : ndarray of float64, shape (n,)
        In [0, 1]: 0 for the lowest score of a query, 1 for its highest.

    Examples
    --------
    >>> from birank.active_learning import within_query_ranks
    >>> within_query_ranks([0.3, 0.1, 0.2]).tolist()
    [1.0, 0.0, 0.5]
    """
    order, qptr, codes = sort_pool(scores, groups)
    pos = np.empty(order.shape[0], dtype=np.float64)
    pos[order] = np.arange(order.shape[0]) - qptr[codes[order]]
    m = (qptr[1:] - qptr[:-1])[codes].astype(np.float64)
    return np.where(m > 1, pos / np.maximum(m - 1.0, 1.0), 0.0)


def diverse_scores(scores: ArrayLike, committee_scores: ArrayLike,
                   groups: ArrayLike | None = None) -> FloatArray:
    """Disagreement between the current ranker and randomized ones (Amini et al. 2006).

    Value = mean over the committee of ``|rank_f(x) - rank_h(x)|`` in normalized
    within-query ranks (:func:`within_query_ranks`).

    Parameters
    ----------
    scores : array-like of shape (n,)
        The current ranker on the pool.
    committee_scores : array-like of shape (n_members, n)
        Each randomized hypothesis on the pool.
    groups : array-like of shape (n,), default=None
        Query of each row; None means one query.

    Returns
    -------
    values : ndarray of float64, shape (n,)
        Mean absolute rank difference, in [0, 1] (larger = more disagreement).

    Examples
    --------
    >>> from birank.active_learning import diverse_scores
    >>> diverse_scores([0.1, 0.2, 0.3], [[0.3, 0.2, 0.1]]).tolist()
    [1.0, 0.0, 1.0]
    """
    base = within_query_ranks(scores, groups)
    committee = np.atleast_2d(np.asarray(committee_scores, dtype=np.float64))
    if committee.shape[1] != base.shape[0]:
        raise ValueError(f"committee_scores has {committee.shape[1]} columns; the pool has "
                         f"{base.shape[0]} rows.")
    dis = [np.abs(base - within_query_ranks(h, groups)) for h in committee]
    return np.mean(dis, axis=0)


def random_scores(n: int, *, random_state: RandomStateLike = None) -> FloatArray:
    """Uniform random values in [0, 1) (the *Random* baseline).

    Parameters
    ----------
    n : int
        Number of values (one per pool row).
    random_state : int, numpy Generator, numpy RandomState or None, default=None
        The source of the values, as everywhere in birank
        (:func:`birank._validation.check_random_state`): an int seeds a fresh
        generator (the same int gives the same values); a Generator is drawn
        from as is (``random_state.random(n)``, advancing it); None draws fresh
        entropy.

    Returns
    -------
    values : ndarray of float64, shape (n,)

    Examples
    --------
    >>> from birank.active_learning import random_scores
    >>> s = random_scores(4, random_state=0)
    >>> s.shape, bool(((s >= 0) & (s < 1)).all())
    ((4,), True)
    >>> bool((random_scores(4, random_state=0) == s).all())
    True
    """
    return check_random_state(random_state).random(n)


def select_per_query(values: ArrayLike, groups: ArrayLike, *, k: int) -> IntArray:
    """Row indices of the ``k`` largest values of every query (all rows of a smaller query).

    Ties are broken by row order. The result is sorted by row index.

    Parameters
    ----------
    values : array-like of shape (n,)
        Informativeness of each row (larger = picked first), e.g. from
        :func:`lossmin_scores`.
    groups : array-like of shape (n,)
        Query of each row (numbers or strings; NaN and None are refused).
    k : int >= 0
        Rows to take per query.

    Returns
    -------
    indices : ndarray of int64, sorted
        At most ``k`` rows of every query.

    Examples
    --------
    >>> from birank.active_learning import select_per_query
    >>> select_per_query([0.2, 0.9, 0.5, 0.7, 0.1], [0, 0, 0, 1, 1], k=2).tolist()
    [1, 2, 3, 4]
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    n = v.shape[0]
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"k must be an int >= 0 (rows per query); got {k!r}.")
    if np.isnan(v).any():  # (NaN sorts last: it would never be picked, silently)
        raise ValueError(f"values contains NaN (first at index "
                         f"{int(np.flatnonzero(np.isnan(v))[0])}).")
    codes = group_codes(groups, n)  # one query id per value: shape, NaN and None refused
    if n == 0:
        return np.empty(0, dtype=np.int64)
    order = np.lexsort((np.arange(n), -v, codes))
    counts = np.bincount(codes)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    within = np.arange(n) - starts[codes[order]]
    return np.sort(order[within < k]).astype(np.int64)
