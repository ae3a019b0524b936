"""ActiveRankLearner: pool-based active learning to rank (donmez-carbonell 2009, Fig. 1).

One ranker is trained on every labeled document of every query, with pairs
formed only inside a query (``groups``), as the paper's SVMlight ranking mode
does (one linear ``w``, evaluated on the test queries). Selection is per query:
each round takes the ``per_query`` most informative unlabeled documents of
every query.
"""

from __future__ import annotations

import inspect
import time
import warnings
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

from .._validation import (Interval, Options, as_csr_or_dense, check_graded_labels,
                           check_groups, check_random_state, check_X, check_X_y, group_codes,
                           validate_params)
from ..base import reset_fitted
from ..metrics import mean_average_precision, ndcg_at_k, roc_auc_per_group
from .oracle import LabelOracle
from .strategies import (
    STRATEGIES,
    diverse_scores,
    entropy_scores,
    lossmin_multilevel_scores,
    lossmin_scores,
    random_scores,
    select_per_query,
    uncertain_scores,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from .._typing import ArrayLike, FloatArray, IntArray, MatrixLike, RandomStateLike, Self

__all__ = ["ActiveRankLearner", "query_metrics", "DIVERSE_FOLDS"]

#: number of random folds of the labeled set behind the *diverse* baseline's
#: randomized hypotheses (one ranker trained on each fold)
DIVERSE_FOLDS = 3


#: float64 values hashed at a time by :func:`_pool_digest` (a dense pool is never copied
#: whole)
_DIGEST_BLOCK = 1 << 16


def _pool_digest(X):
    """A checksum of a validated pool's values (BLAKE2b, O(size), in blocks).

    A dense pool: its values row by row; a CSR pool: its nonzero entries as (row,
    column, value), so explicit zeros do not count. Values are read as float64 and
    -0.0 as 0.0: the same values give the same checksum, whatever their dtype.
    """
    import hashlib

    h = hashlib.blake2b(repr(tuple(X.shape)).encode(), digest_size=16)
    if sp.issparse(X):
        rows = np.repeat(np.arange(X.shape[0], dtype=np.int64), np.diff(X.indptr))
        nz = X.data != 0
        for part in (rows[nz], X.indices[nz].astype(np.int64),
                     X.data[nz].astype(np.float64) + 0.0):
            h.update(part.tobytes())
    else:
        step = max(1, _DIGEST_BLOCK // max(X.shape[1], 1))
        for i in range(0, X.shape[0], step):
            h.update((np.asarray(X[i:i + step], dtype=np.float64) + 0.0).tobytes())
    return h.digest()


def _progress_reporter(progress):
    """``(reporter or None, whether it is birank's own)`` of ``simulate``'s ``progress``."""
    if isinstance(progress, (bool, np.bool_)):
        progress = bool(progress) or None
    if progress is None:
        return None, False
    if progress is True:
        from .._progress import make_progress

        return make_progress(True, "ActiveRankLearner"), True
    if not callable(progress):
        raise ValueError(f"progress must be None, a bool or a callable progress(t, n_rounds, "
                         f"message); got {progress!r}.")
    return progress, False


class _HasDecisionFunction:
    """Parameter constraint: None or an object with ``fit`` and ``decision_function``."""

    def accepts(self, value):
        return all(callable(getattr(value, m, None)) for m in ("fit", "decision_function"))

    def __str__(self):
        return "an estimator with fit and decision_function"


def _real_1d(values, name):
    """``values`` as finite float64 of shape (n,) (a column too); ValueError naming
    ``name`` otherwise (a NaN label would count as non-relevant, silently)."""
    arr = np.asarray(values)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {arr.shape}.")
    try:
        if arr.dtype.kind not in "biufO":  # (strings, complex: refused, not cast)
            raise TypeError
        arr = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold real numbers; got dtype {arr.dtype}.") from None
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values (first at index "
                         f"{int(np.flatnonzero(~np.isfinite(arr))[0])}).")
    return arr


def query_metrics(y_true: ArrayLike, y_score: ArrayLike, groups: ArrayLike | None = None, *,
                  relevance_threshold: float = 1, k: int = 10) -> dict[str, float]:
    """AUC, MAP and NDCG@k of ``y_score`` on labeled queries (the paper's three measures).

    - ``auc``: mean over queries holding both relevant and non-relevant rows of
      the query's ROC AUC (relevant = ``y_true >= relevance_threshold``);
    - ``map``: mean average precision over queries with a relevant row;
    - ``ndcg``: NDCG@k with the graded gains ``2**y_true - 1`` over queries
      with a positive label (binary labels give the binary NDCG).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Graded or binary labels.
    y_score : array-like of shape (n_samples,)
        Finite scores; higher means ranked higher.
    groups : array-like of shape (n_samples,), default=None
        Query id of each row (numbers or strings, as every birank ``groups``);
        None means one query.
    relevance_threshold : float, default=1
        Labels ``>= relevance_threshold`` are relevant (for ``auc`` and ``map``),
        as in :class:`ActiveRankLearner`.
    k : int, default=10
        Cut-off of NDCG (the paper reports NDCG@10).

    Returns
    -------
    metrics : dict
        ``{"auc": float, "map": float, "ndcg": float}``; a value is NaN when
        no query qualifies for it.

    Examples
    --------
    >>> from birank.active_learning import query_metrics
    >>> query_metrics([1, 0, 0, 1], [0.9, 0.1, 0.5, 0.2], [0, 0, 1, 1])["auc"]
    0.5
    """
    y = _real_1d(y_true, "y_true")
    s = _real_1d(y_score, "y_score")
    if s.shape[0] != y.shape[0]:
        raise ValueError(f"y_true and y_score have different lengths: {y.shape[0]} and "
                         f"{s.shape[0]}.")
    # query ids of any comparable type (strings too) as codes 0 .. G-1: equal ids, equal codes
    g = group_codes(groups, y.shape[0])
    rel = (y >= relevance_threshold).astype(np.int8)
    # mean AUC over the queries holding both classes (one pass, not one call per query)
    auc = (roc_auc_per_group(rel, s, g, pos_label=1)[0] if 0 < rel.sum() < rel.shape[0]
           else float("nan"))
    return {
        "auc": auc,
        "map": (mean_average_precision(rel, s, g, relevance_threshold=1) if rel.any()
                else float("nan")),
        "ndcg": ndcg_at_k(np.maximum(y, 0.0), s, g, k=k) if (y > 0).any() else float("nan"),
    }


class ActiveRankLearner(BaseEstimator):
    """Active learning to rank: label the documents whose labels matter most, per query.

    Donmez & Carbonell, *Active Sampling for Rank Learning via Optimizing the
    Area Under the ROC Curve* (ECIR 2009). Each round (Fig. 1): train the ranker
    on the labeled documents, score every query's unlabeled documents, and pick
    the ``per_query`` most informative of each query by ``strategy``:

    - ``"lossmin"`` (the paper's method): rank threshold by the largest score
      gap (Fig. 2), sigmoid posterior calibrated at it (eq. 8), normalized
      expected hinge rank loss (eq. 7) with trade-off
      ``above_threshold_weight``;
    - ``"lossmin-multilevel"`` (the paper's projected extension to multi-level
      ratings, footnote 2): one rank threshold per boundary between the
      relevance levels seen in the labeled set (the largest score gaps), eq. (7)
      for each and their mean;
    - ``"entropy"`` (Rajaram et al. 2007): entropy of the label under the
      bipartite ranking error it would add against the labeled documents;
    - ``"uncertain"`` (Yu 2005): documents of the closest-scored pairs;
    - ``"diverse"`` (Amini et al. 2006): largest rank disagreement between the
      ranker and rankers trained on :data:`DIVERSE_FOLDS` random folds of the
      labeled set;
    - ``"random"``.

    See :mod:`birank.active_learning.strategies` for the exact values.

    The ranker is **one model over all queries**, trained on the pairs of
    labeled documents inside each query (``fit(X, y, groups=...)`` when the
    estimator accepts ``groups``, else ``fit(X, y)``) with binary relevance, as
    the paper trains SVMlight's ranking mode. Labels may be graded: a document
    is relevant when ``label >= relevance_threshold`` (the paper's data is
    binary; LETOR's 0/1/2 with the default 1 makes 1 and 2 relevant; {-1, +1}
    makes +1 relevant).

    Two ways to drive it. By hand (a person labels)::

        learner.teach(seed_rows, seed_labels, X_pool=X, groups=qid)
        rows = learner.query()             # fit, score, select
        learner.teach(rows, labels_of(rows))

    or in simulation: :meth:`simulate` runs the paper's protocol with a
    :class:`~birank.active_learning.LabelOracle`.

    Parameters
    ----------
    estimator : estimator with ``fit`` and ``decision_function``, default=None
        The ranker, cloned for every fit. None means ``birank.RankSVM()``
        (exact all-pairs linear RankSVM, C = 1: RankSVM's own defaults),
        birank's stand-in for the paper's ranker, SVMlight's ranking mode
        with a linear kernel and default parameters (section 3.1).
    strategy : {"lossmin", "lossmin-multilevel", "entropy", "uncertain", "diverse", \
"random"}, default="lossmin"
        How documents are chosen; the default is the paper's method.
    per_query : int >= 1, default=5
        Documents selected per query per round (the paper's l = 5, section 3.1).
    above_threshold_weight : float in (0, 1), default=0.6
        LossMin's weight of documents ranked above the threshold (eq. 7, the
        paper's lambda). The default 0.6 is the paper's value (section 3.1),
        as in :func:`~birank.active_learning.lossmin_scores`.
    relevance_threshold : float, default=1
        Labels ``>= relevance_threshold`` are relevant. The default is not
        from the paper (its data is binary): it makes 1 relevant in 0/1 labels,
        1 and 2 in LETOR's 0/1/2 grades, and +1 in {-1, +1} labels.
    relevance : {"binary", "graded"}, default="binary"
        What the ranker learns from: ``"binary"`` (the paper) the relevant /
        non-relevant split at ``relevance_threshold``; ``"graded"`` the labels
        themselves (pairs between any two levels of a query). ``"graded"`` is
        the natural partner of ``strategy="lossmin-multilevel"``.
    random_state : int, numpy Generator, numpy RandomState or None, default=None
        Seeds the random baseline, the diverse folds and :meth:`simulate`'s
        initial set; the same int gives the same run when the wrapped
        ``estimator`` is deterministic or has its own ``random_state`` set (as in
        scikit-learn's meta-estimators, it does not seed the estimator it
        wraps). None (scikit-learn's default) draws fresh entropy.

    Attributes
    ----------
    estimator_ : estimator or None
        The ranker fitted on the labeled set (None while it has one class only;
        scores are then all 0).
    coef_ : ndarray of shape (n_features,)
        The fitted ranker's weights, when it is linear (zeros while
        ``estimator_`` is None; absent for a kernel ranker). With ``coef_`` a
        fitted learner can be saved as a JSON model file
        (:func:`birank.model_io.save_model`).
    intercept_ : float
        The fitted ranker's intercept (0 for RankSVM), with ``coef_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X has string column names (a pandas DataFrame).
    X_pool_ : ndarray or CSR matrix of shape (n_pool, n_features)
        The pool, validated (the array given when it needed no conversion).
    groups_ : ndarray of shape (n_pool,)
        Query id of each pool row (all 0 without ``groups``).
    labeled_mask_ : ndarray of bool, shape (n_pool,)
    labels_ : ndarray of float, shape (n_pool,)
        Taught labels (NaN where unlabeled).
    timings_ : dict
        Wall-clock seconds of the last ``train``, ``rank`` and ``select`` steps,
        and ``select_cpu``: the CPU seconds of the selection (immune to other
        processes taking the core).

    Examples
    --------
    >>> import numpy as np
    >>> from birank import ActiveRankLearner
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); qid = np.repeat([1, 2, 3], 20)
    >>> y = (X @ [1.0, -1.0, 0.5] > 0.8).astype(int)
    >>> learner = ActiveRankLearner(per_query=2, random_state=0)
    >>> seed = np.concatenate([np.flatnonzero((qid == q) & (y == c))[:2]
    ...                        for q in (1, 2, 3) for c in (0, 1)])
    >>> learner = learner.teach(seed, y[seed], X_pool=X, groups=qid)
    >>> rows = learner.query()
    >>> len(rows), bool(np.intersect1d(rows, seed).size == 0)
    (6, True)
    """

    _parameter_constraints = {
        "estimator": [None, _HasDecisionFunction()],
        "strategy": [Options(*STRATEGIES)],
        "per_query": [Interval("integer", 1, None)],
        "above_threshold_weight": [Interval("real", 0.0, 1.0, closed="neither")],
        "relevance_threshold": [Interval("real", None, None)],
        "relevance": [Options("binary", "graded")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator: BaseEstimator | None = None, *,
                 strategy: Literal["lossmin", "lossmin-multilevel", "entropy", "uncertain",
                                   "diverse", "random"] = "lossmin",
                 per_query: int = 5, above_threshold_weight: float = 0.6,
                 relevance_threshold: float = 1, relevance: Literal["binary", "graded"] = "binary",
                 random_state: RandomStateLike = None) -> None:
        self.estimator = estimator
        self.strategy = strategy
        self.per_query = per_query
        self.above_threshold_weight = above_threshold_weight
        self.relevance_threshold = relevance_threshold
        self.relevance = relevance
        self.random_state = random_state

    # ------------------------------------------------------------------ state
    def reset(self) -> Self:
        """Forget the pool, the taught labels and the fitted ranker.

        Returns
        -------
        self : ActiveRankLearner
            The learner, unfitted (its parameters are kept).
        """
        reset_fitted(self, private=("_rng", "_stale", "_pool_digest"))
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # CSR pools: rows are sliced, the ranker takes CSR
        tags.target_tags.required = True
        return tags

    def _bind_pool(self, X_pool, groups, validated=False):
        validate_params(self)
        X = X_pool if validated else check_X(self, X_pool, reset=True)
        n = X.shape[0]
        g = np.zeros(n, dtype=np.int64) if groups is None else check_groups(groups, n)
        self.X_pool_ = X
        self._pool_digest = _pool_digest(X)  # (a later X_pool must hold the same values)
        self.groups_ = g.copy()
        self.labeled_mask_ = np.zeros(n, dtype=bool)
        self.labels_ = np.full(n, np.nan)
        self._rng = check_random_state(self.random_state)
        self._stale = True
        self.estimator_ = None
        self.timings_ = {"train": 0.0, "rank": 0.0, "select": 0.0, "select_cpu": 0.0}

    def _check_pool(self, X_pool, groups):
        if not hasattr(self, "X_pool_"):
            if X_pool is None:
                raise ValueError("ActiveRankLearner: give X_pool (and groups) on the first "
                                 "call of teach or query.")
            self._bind_pool(X_pool, groups)
            return
        if X_pool is not None:
            shape = getattr(X_pool, "shape", None) or np.shape(X_pool)
            if tuple(shape) != self.X_pool_.shape:
                raise ValueError(f"X_pool has shape {tuple(shape)}, but this learner's pool "
                                 f"has shape {self.X_pool_.shape}; call reset() for a new "
                                 "pool.")
            # the same shape is not the same pool (-X, other rows): its values must be those
            # bound, compared by checksum (an array changed in place since is refused too)
            X: Any = check_X(self, X_pool, reset=False)
            if sp.issparse(X) != sp.issparse(self.X_pool_):  # (the pool's format)
                X = as_csr_or_dense(sp.csr_matrix(X)) if sp.issparse(self.X_pool_) \
                    else X.toarray()
            if _pool_digest(X) != self._pool_digest:
                raise ValueError(f"X_pool holds other values than this learner's pool (both "
                                 f"of shape {self.X_pool_.shape}); call reset() for a new "
                                 "pool.")
        if groups is not None and not np.array_equal(np.asarray(groups).reshape(-1),
                                                     self.groups_):
            raise ValueError("groups differ from the pool's groups; call reset() for a new "
                             "pool.")

    # ------------------------------------------------------------------ loop
    def teach(self, indices: ArrayLike, labels: ArrayLike, X_pool: MatrixLike | None = None,
              groups: ArrayLike | None = None) -> Self:
        """Add the labels of pool rows ``indices`` to the labeled set.

        Parameters
        ----------
        indices : array-like of int
            Pool rows (as returned by :meth:`query`, or a seed set); none may be
            labeled already.
        labels : array-like of shape (len(indices),)
            Their (graded or binary) labels.
        X_pool, groups : pool matrix and query ids
            Needed on the first call of ``teach``/``query`` only; later calls may
            give the same pool again (same values, see :meth:`query`) or None.

        Returns
        -------
        self
        """
        self._check_pool(X_pool, groups)
        n = self.X_pool_.shape[0]
        idx = np.asarray(indices).reshape(-1)
        if idx.size and (idx.dtype.kind not in "iu" or idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"indices must be pool rows in [0, {n}); got {idx!r}.")
        idx = idx.astype(np.int64)
        # numbers only, as fit's (a float64 cast would read "1" as 1 and fail on "high")
        lab = _real_1d(np.asarray(labels).reshape(-1), "labels")
        if lab.shape[0] != idx.shape[0]:
            raise ValueError(f"labels has {lab.shape[0]} entries for {idx.shape[0]} indices.")
        if np.unique(idx).shape[0] != idx.shape[0]:
            raise ValueError("indices holds a row twice.")
        if self.labeled_mask_[idx].any():
            raise ValueError(f"row {int(idx[self.labeled_mask_[idx]][0])} is labeled already.")
        self.labeled_mask_[idx] = True
        self.labels_[idx] = lab
        self._stale = True
        return self

    def query(self, X_pool: MatrixLike | None = None, groups: ArrayLike | None = None) -> IntArray:
        """Rows of the pool to label next: ``per_query`` per query, never a labeled one.

        Fits the ranker on the labeled set first if labels were taught since
        the last fit. Returns an empty array once every row is labeled.

        Parameters
        ----------
        X_pool : {array-like, sparse matrix} of shape (n_pool, n_features), default=None
            The pool; needed only if neither :meth:`teach` nor ``query`` has
            been called since the learner was created or reset. Later calls may
            pass the same pool again or None. The same pool means the same
            values: a later ``X_pool`` is compared with the pool bound first by
            its shape, then by a checksum of its values (a copy or another
            format of the pool passes; ``-X``, other rows, or the pool's own
            array changed in place since are refused: call :meth:`reset` for a
            new pool).
        groups : array-like of shape (n_pool,), default=None
            Query id of each pool row, with ``X_pool`` (None on the first call:
            one query). Later calls may pass the same ids again or None.

        Returns
        -------
        indices : ndarray of int64, sorted
            Unlabeled pool rows, at most ``per_query`` of each query.
        """
        self._check_pool(X_pool, groups)
        if self._stale:
            self.refit()
        unl = np.flatnonzero(~self.labeled_mask_)
        if unl.size == 0:
            self.timings_.update(rank=0.0, select=0.0, select_cpu=0.0)
            return np.empty(0, dtype=np.int64)
        t0 = time.perf_counter()
        # the whole pool scored in place, then indexed: X_pool_[unl] would copy the pool
        pool_scores = self._scores(self.X_pool_)
        scores = pool_scores[unl]
        t1, c1 = time.perf_counter(), time.process_time()
        self._pool_scores = pool_scores  # (read by _informativeness; the hook keeps 2 args)
        try:
            values = self._informativeness(unl, scores)
        finally:
            del self._pool_scores
        picked = unl[select_per_query(values, self.groups_[unl], k=self.per_query)]
        t2, c2 = time.perf_counter(), time.process_time()
        self.timings_.update(rank=t1 - t0, select=t2 - t1, select_cpu=c2 - c1)
        return picked

    def refit(self) -> Self:
        """Fit the ranker on the labeled set now (``query`` does it when needed).

        Returns
        -------
        self : ActiveRankLearner
            With ``estimator_`` (and ``coef_`` / ``intercept_`` for a linear
            ranker) fitted on the labeled rows.
        """
        check_is_fitted(self, "labeled_mask_")
        t0 = time.perf_counter()
        lab = np.flatnonzero(self.labeled_mask_)
        self.estimator_ = self._fit_ranker(lab)
        self._stale = False
        self._expose_linear_model()
        self.timings_["train"] = time.perf_counter() - t0
        return self

    def _expose_linear_model(self):
        """``coef_`` / ``intercept_`` of the fitted ranker (zeros while it has none)."""
        self.__dict__.pop("coef_", None)
        est = self.estimator_
        if est is None:
            self.coef_ = np.zeros(self.X_pool_.shape[1])
            self.intercept_ = 0.0
        elif hasattr(est, "coef_"):  # a linear ranker; a kernel one has no weight vector
            self.coef_ = np.asarray(est.coef_, dtype=np.float64).reshape(-1).copy()
            self.intercept_ = float(np.asarray(getattr(est, "intercept_", 0.0)).reshape(-1)[0])

    def _fit_ranker(self, rows):
        # the labels the ranker learns from: graded ones as taught, else relevant / not
        if self.relevance == "graded":
            rel = self.labels_[rows]
        else:
            rel = (self.labels_[rows] >= self.relevance_threshold).astype(np.float64)
        if rows.size == 0 or rel.min() == rel.max():
            return None  # one label value: no pair to learn from
        est = clone(self._base_estimator())
        X, g = self.X_pool_[rows], self.groups_[rows]
        if "groups" in inspect.signature(est.fit).parameters:
            return est.fit(X, rel, groups=g)
        return est.fit(X, rel)

    def _base_estimator(self):
        if self.estimator is not None:
            return self.estimator
        from ..batch.ranksvm import RankSVM

        return RankSVM()

    def _scores(self, X, estimator="main"):
        est = self.estimator_ if estimator == "main" else estimator
        if est is None:
            return np.zeros(X.shape[0])
        return np.asarray(est.decision_function(X), dtype=np.float64).reshape(-1)

    def _informativeness(self, unl, scores):
        g = self.groups_[unl]
        if self.strategy == "lossmin":
            return lossmin_scores(scores, g, above_threshold_weight=self.above_threshold_weight)
        if self.strategy == "lossmin-multilevel":
            # one threshold per boundary between the levels taught so far (at least one)
            levels = np.unique(self.labels_[self.labeled_mask_])
            return lossmin_multilevel_scores(
                scores, g, n_levels=max(2, levels.shape[0]),
                above_threshold_weight=self.above_threshold_weight)
        if self.strategy == "uncertain":
            return uncertain_scores(scores, g)
        if self.strategy == "random":
            return random_scores(unl.shape[0], random_state=self._rng)
        lab = np.flatnonzero(self.labeled_mask_)
        if self.strategy == "entropy":
            rel = self.labels_[lab] >= self.relevance_threshold
            return entropy_scores(scores, g, self._pool_scores[lab], rel, self.groups_[lab])
        # diverse: randomized hypotheses from random folds of the labeled set
        fold = self._rng.permutation(lab.shape[0]) % DIVERSE_FOLDS
        committee = []
        for f in range(DIVERSE_FOLDS):
            member = self._fit_ranker(lab[fold == f])
            committee.append(self._scores(self.X_pool_, member)[unl])
        return diverse_scores(scores, committee, g)

    # ------------------------------------------------------------------ ranker API
    def fit(self, X: MatrixLike, y: ArrayLike, *, groups: ArrayLike | None = None) -> Self:
        """Forget everything and train the ranker on a fully labeled set.

        The rows become the pool, every one labeled: ``fit(X, y, groups=g)`` is
        ``reset()``, ``teach(all rows, y, X_pool=X, groups=g)``, ``refit()``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Graded or binary labels (relevant: ``y >= relevance_threshold``).
        groups : array-like of shape (n_samples,), default=None
            Query id of each row (keyword-only); pairs are formed within a
            query only. None means one query.

        Returns
        -------
        self : ActiveRankLearner
            The fitted learner.
        """
        self.reset()
        validate_params(self)
        # the same checks (and messages) as every birank estimator: finite X and y,
        # numeric labels, at least one row, one label per row
        X, y = check_X_y(self, X, y, reset=True)
        # (numbers only, strings refused with RankSVM's message: y_numeric=True would cast
        # an object array, a pandas Series of strings, with float()'s)
        y = check_graded_labels(self, y)
        self._bind_pool(X, groups, validated=True)
        self.teach(np.arange(y.shape[0]), y)
        self.refit()
        if self.estimator_ is None:
            warnings.warn(
                f"ActiveRankLearner: no pair of rows has different labels ({y.shape[0]} "
                f"row{'s' * (y.shape[0] != 1)}, relevance_threshold="
                f"{self.relevance_threshold}): there is nothing to "
                "rank and the scores are all 0.", UserWarning, stacklevel=2)
        return self

    def decision_function(self, X: MatrixLike) -> FloatArray:
        """Scores of the ranker fitted on the labeled set (higher = more relevant).

        Refits first if labels were taught since the last fit.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score.

        Returns
        -------
        scores : ndarray of float64, shape (n_samples,)
            All 0 while the labeled set has no pair with different labels.
        """
        if not hasattr(self, "labeled_mask_") and hasattr(self, "coef_"):
            # rebuilt from a JSON model file (birank.model_io): the linear model only
            X = check_X(self, X, reset=False)
            return np.asarray(safe_sparse_dot(X, self.coef_)).reshape(-1) + self.intercept_
        check_is_fitted(self, "labeled_mask_")
        if self._stale:
            self.refit()
        X = check_X(self, X, reset=False)
        return self._scores(X)

    def score(self, X: MatrixLike, y: ArrayLike, *, groups: ArrayLike | None = None,
              sample_weight: ArrayLike | None = None) -> float:
        """Pairwise accuracy of the scores on ``(X, y)`` (ties count 1/2), within ``groups``,
        a pair weighted by ``sample_weight_i * sample_weight_j`` (keyword-only).

        As for :class:`~birank.RankSVM`: the ROC AUC when ``y`` has two values.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score.
        y : array-like of shape (n_samples,)
            Their labels.
        groups : array-like of shape (n_samples,), default=None
            Query id of each row (keyword-only); only pairs within a query
            count. None means one query.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights (keyword-only); a pair weighs their product.

        Returns
        -------
        score : float in [0, 1]
            The (weighted) fraction of correctly ordered pairs.
        """
        from ..metrics import pairwise_accuracy

        return pairwise_accuracy(y, self.decision_function(X), groups=groups,
                                 sample_weight=sample_weight)

    # ------------------------------------------------------------------ simulation
    def simulate(self, X: MatrixLike, y: ArrayLike, groups: ArrayLike, X_test: MatrixLike,
                 y_test: ArrayLike, groups_test: ArrayLike, *, n_rounds: int = 20,
                 n_initial_relevant: int = 1, n_initial_nonrelevant: int = 10,
                 progress: Callable[[int, int, str], object] | bool | None = None,
                 ) -> dict[str, Any]:
        """Run donmez-carbonell's protocol (section 3.1) with a label-counting oracle.

        The initial labeled set is ``n_initial_relevant`` relevant and
        ``n_initial_nonrelevant`` non-relevant random documents per training
        query; then ``n_rounds`` rounds of select (``per_query`` per query),
        label (through a :class:`LabelOracle` holding ``y``: the learner sees
        only the labels it asked for), retrain, evaluate on the test queries.
        The defaults are the paper's protocol (section 3.1): 1 relevant and 10
        non-relevant initial documents per query, 20 rounds.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training pool.
        y : array-like of shape (n_samples,)
            Its labels, hidden in the oracle (read only when asked for).
        groups : array-like of shape (n_samples,)
            Query id of each pool row.
        X_test : {array-like, sparse matrix} of shape (n_test, n_features)
            Test rows, scored after every round.
        y_test : array-like of shape (n_test,)
            Their labels.
        groups_test : array-like of shape (n_test,)
            Their query ids.
        n_rounds : int, default=20
            Rounds of select / label / retrain after the initial set.
        n_initial_relevant : int, default=1
            Relevant documents per training query in the initial set (fewer
            when the query has fewer).
        n_initial_nonrelevant : int, default=10
            Non-relevant documents per training query in the initial set.
        progress : callable, bool or None, default=None
            Called as ``progress(t, n_rounds, message)`` after round ``t``.
            True reports on standard error with birank's own progress line (as
            ``verbose`` does elsewhere); None or False reports nothing. Anything
            else is refused before the first round.

        Returns
        -------
        result : dict
            ``auc``, ``map``, ``ndcg`` (NDCG@10): lists of ``n_rounds + 1``
            test values (index 0 = the initial set); ``n_labeled``;
            ``train_s`` (fit after the round's labels, index 0 = the initial
            fit), ``rank_s`` and ``select_s`` (0 at index 0); ``round_s``: the
            per-iteration time of the paper's Table 2, training + ranking +
            selection of the model used in that round (``train_s[t-1] +
            rank_s[t] + select_s[t]``; ``train_s[0]`` at 0); ``queried``: the
            rows chosen each round; ``oracle_reads``: the number of labels
            read (initial set included); ``oracle_read_mask``: boolean array
            of shape (n_samples,), the pool rows whose label was read.
        """
        report, own_report = _progress_reporter(progress)  # (before any work: a bad one fails fast)
        self.reset()
        oracle = LabelOracle(y)
        g = np.asarray(groups).reshape(-1)
        self._bind_pool(X, g)
        # the test set, checked once before the rounds (its query ids as codes: any type)
        n_test = check_X(self, X_test, reset=False).shape[0]
        y_test = y_values = _real_1d(y_test, "y_test")
        if y_values.shape[0] != n_test:
            raise ValueError(f"X_test has {n_test} rows but y_test has {y_values.shape[0]} "
                             "labels.")
        groups_test = group_codes(groups_test, n_test)
        seed, seed_labels = oracle.seed(g, relevance_threshold=self.relevance_threshold,
                                        n_relevant=n_initial_relevant,
                                        n_nonrelevant=n_initial_nonrelevant,
                                        random_state=self._rng)
        self.teach(seed, seed_labels)
        self.refit()
        out: dict[str, Any] = {k: [] for k in ("auc", "map", "ndcg", "n_labeled", "train_s",
                                               "rank_s", "select_s", "round_s", "queried")}

        def record(rank_s, select_s, round_s, picked):
            m = query_metrics(y_test, self.decision_function(X_test), groups_test,
                              relevance_threshold=self.relevance_threshold)
            for key in ("auc", "map", "ndcg"):
                out[key].append(m[key])
            out["n_labeled"].append(int(self.labeled_mask_.sum()))
            out["train_s"].append(self.timings_["train"])
            out["rank_s"].append(rank_s)
            out["select_s"].append(select_s)
            out["round_s"].append(round_s)
            out["queried"].append(picked)

        record(0.0, 0.0, self.timings_["train"], np.empty(0, dtype=np.int64))
        try:
            for t in range(1, n_rounds + 1):
                train_prev = self.timings_["train"]
                picked = self.query()
                rank_s, select_s = self.timings_["rank"], self.timings_["select"]
                if picked.size:
                    self.teach(picked, oracle.label(picked))
                    self.refit()
                record(rank_s, select_s, train_prev + rank_s + select_s, picked)
                if report is not None:
                    report(t, n_rounds, f"{self.strategy} round {t}")
        finally:
            if own_report:  # (birank's reporter: its terminal line is ended)
                getattr(report, "close", lambda: None)()
        out["oracle_reads"] = oracle.n_reads
        out["oracle_read_mask"] = oracle.read_mask
        return out
