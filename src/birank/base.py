"""Mixins shared by the estimators: linear scoring, binary ranking, general ranking.

Estimators stay thin: ``fit`` validates, hands off to a solver, then stores
``coef_`` (1-D, one weight per feature) and ``intercept_`` (a float).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._linalg import matvec
from ._validation import check_X
from .metrics import best_accuracy_threshold

__all__ = ["LinearScorerMixin", "BinaryRankerMixin", "RankerMixin", "OnlineRankerMixin",
           "warn_if_badly_scaled", "warn_if_worse_than_chance"]


class LinearScorerMixin:
    """``decision_function(X) = X @ coef_ + intercept_``."""

    def decision_function(self, X):
        """Ranking scores.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Higher means ranked higher (more likely positive / more relevant).
        """
        check_is_fitted(self, "coef_")
        X = check_X(self, X, reset=False)
        return matvec(X, self.coef_) + self.intercept_


class BinaryRankerMixin(LinearScorerMixin, ClassifierMixin):
    """Bipartite ranker: two classes, ``score`` is ROC AUC.

    The ranking is given by ``X @ coef_``; a constant shift does not change it.
    Methods that learn a bias (CRC-threshold, shen-lin eq. 8) keep it in
    ``intercept_``. For the others, ``fit`` ends by calling
    :meth:`_set_threshold`, which sets ``intercept_`` to minus the score cut of
    best training accuracy (the optimal ROC operating point), so that, as for
    every scikit-learn classifier, ``predict`` is ``decision_function > 0``.
    """

    def _set_threshold(self, X, y01, learned_bias=False, sample_weight=None):
        """Set ``intercept_`` to minus the best (weighted) accuracy cut, unless learned."""
        if not learned_bias:
            # X was validated by fit: score it directly instead of re-validating
            scores = matvec(X, self.coef_)
            cut, _ = best_accuracy_threshold(y01, scores, sample_weight)
            self.intercept_ = -cut

    def predict(self, X):
        """Class labels: ``classes_[1]`` where ``decision_function(X) > 0``."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]

    def score(self, X, y, sample_weight=None):
        """ROC AUC of the scores on ``(X, y)`` (ties count 1/2)."""
        from .metrics import roc_auc

        y = np.asarray(y)
        return roc_auc(y == self.classes_[1], self.decision_function(X),
                       sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags


class RankerMixin(LinearScorerMixin):
    """Ranker for binary, graded or real-valued labels.

    ``predict`` returns the ranking scores (as LightGBM's ``LGBMRanker`` does);
    ``score`` is the pairwise accuracy, which equals ROC AUC for binary labels.
    """

    def predict(self, X):
        """Ranking scores (same as :meth:`decision_function`)."""
        return self.decision_function(X)

    def score(self, X, y, groups=None):
        """Pairwise accuracy of the scores on ``(X, y)``, within ``groups`` if given."""
        from .metrics import pairwise_accuracy

        return pairwise_accuracy(y, self.decision_function(X), groups=groups)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags


class OnlineRankerMixin:
    """One ``fit`` / ``partial_fit`` path for rankers that learn from chunks.

    As in scikit-learn's SGD estimators, ``fit`` is "forget everything, then one
    ``_partial_fit`` over (X, y)", and ``partial_fit`` continues from the current
    state. The first call is detected one way: ``classes_`` is not set yet.
    Subclasses implement ``_partial_fit(X, y, classes, sample_weight)``, which
    validates with ``reset=self._is_first_call()`` and keeps state bounded per
    chunk (no chunk is stored unless the method needs a buffer of fixed size).

    Fitted state is every attribute ending in ``_`` plus the names listed in
    ``_online_private_state`` (private buffers, accumulators); ``fit`` removes
    them all before starting, so refitting never mixes two datasets.
    """

    #: private attributes (not ending in ``_``) that ``fit`` must forget
    _online_private_state = ("_state",)
    #: ``fit`` passes ``in_place=True`` to ``_partial_fit``: the state may keep
    #: references to fit's X instead of copies (a ``partial_fit`` chunk is copied:
    #: streaming callers reuse their buffers)
    _fit_reads_in_place = False

    def fit(self, X, y, sample_weight=None):
        """Fit on ``(X, y)`` as one stream, in row order, discarding earlier state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._reset_online_state()
        kwargs = {"in_place": True} if self._fit_reads_in_place else {}
        return self._partial_fit(X, y, classes=None, sample_weight=sample_weight, **kwargs)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue learning from one more chunk of rows, in row order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (2,), default=None
            The two label values. Needed on the first call unless ``y`` holds both.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _is_first_call(self):
        return not hasattr(self, "classes_")

    def _reset_online_state(self):
        for name in list(vars(self)):
            if (name.endswith("_") and not name.startswith("__")) or \
                    name in self._online_private_state:
                delattr(self, name)

    def _encode_chunk(self, y, classes):
        """Map a chunk's labels to {0, 1}, fixing ``classes_`` on the first call.

        On the first call ``classes`` (or, if None, the two values in ``y``) sets
        ``classes_``; the larger value is the positive class. Later calls check
        that ``classes`` (if given) agrees and that ``y`` holds no other label.
        A chunk with a single class is fine once ``classes_`` is known.
        """
        name = type(self).__name__
        y = np.asarray(y).reshape(-1)
        if self._is_first_call():
            if classes is None:
                from ._validation import encode_binary

                self.classes_, y01 = encode_binary(y)
                return y01
            classes = np.unique(np.asarray(classes))
            if classes.shape[0] != 2:
                raise ValueError(f"{name}: classes must hold exactly two label values for "
                                 f"bipartite ranking; got {classes!r}.")
            self.classes_ = classes
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"{name}: classes={classes!r} differs from the classes_ "
                             f"{self.classes_!r} of the first call.")
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(f"{name}: y holds label(s) {np.unique(y[unknown])!r} not in "
                             f"classes_ {self.classes_!r}.")
        return (y == self.classes_[1]).astype(np.int8)


# --- warnings for fits that "succeed" but cannot be trusted (issue 15 item 4) ---

#: typical row norm outside [1/_SCALE_RANGE, _SCALE_RANGE] makes SGD steps too small or too large
_SCALE_RANGE = 1e3


def warn_if_badly_scaled(estimator, X):
    """Warn when the rows' typical norm is far from 1 for a scale-sensitive method.

    SGD with step ``1 / (alpha t)`` (CombinedRanking) and the like are not
    invariant to the scale of X: at norms near 1e8 the first steps overshoot
    and at 1e-8 the regularizer and the bias feature dominate; both lose AUC
    without any error. The check is O(nnz).
    """
    import warnings

    from ._kernels.sparse_rows import row_sqnorms

    # one compiled pass over the rows: no squared copy of X (X.multiply(X) doubled
    # the peak memory of a 10^7-row fit)
    sq = row_sqnorms((X.data, X.indices, X.indptr) if hasattr(X, "indptr")
                     else np.ascontiguousarray(X))
    sq = sq[sq > 0]
    if sq.size == 0:
        return
    typical = float(np.sqrt(np.median(sq)))
    if not (1.0 / _SCALE_RANGE <= typical <= _SCALE_RANGE):
        warnings.warn(
            f"{type(estimator).__name__}: the rows of X have a typical norm of {typical:.3g}; "
            "this method's steps are not scale invariant and lose accuracy far from norm 1. "
            "Scale the features first (e.g. sklearn.preprocessing.StandardScaler or "
            "MaxAbsScaler for sparse X).", UserWarning, stacklevel=3)


def warn_if_worse_than_chance(estimator, X, y01, sample_weight=None):
    """Warn when the fitted scores rank the training data below chance (AUC < 0.5).

    A model that learned anything ranks its own training data at least as well
    as chance; below it means the fit was swamped (e.g. 1 positive in 10^5 rows
    without class weights) and should not be used as is. O(N log N).
    """
    import warnings

    from .metrics import roc_auc

    y01 = np.asarray(y01)
    n_pos = int(y01.sum())
    if n_pos == 0 or n_pos == y01.shape[0]:
        return
    scores = matvec(X, estimator.coef_)
    auc = roc_auc(y01, scores, sample_weight=sample_weight)
    if auc < 0.5:
        warnings.warn(
            f"{type(estimator).__name__}: the fitted model ranks its own training data worse "
            f"than chance (training AUC {auc:.4g}, {n_pos} positive(s) in {y01.shape[0]} "
            "rows). With classes this unbalanced use class weights (e.g. "
            "class_weight='balanced') or a pairwise ranker.", UserWarning, stacklevel=3)
