"""Mixins shared by the estimators: linear scoring, binary ranking, general ranking.

Estimators stay thin: ``fit`` validates, hands off to a solver, then stores
``coef_`` (1-D, one weight per feature) and ``intercept_`` (a float).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._kernels.metrics import best_cut_buckets
from ._linalg import matvec
from ._validation import check_X

__all__ = ["LinearScorerMixin", "BinaryRankerMixin", "RankerMixin", "OnlineRankerMixin",
           "best_accuracy_threshold"]


def best_accuracy_threshold(y01, scores, sample_weight=None):
    """Score cut with the highest (weighted) training accuracy.

    This is the optimal operating point of the ROC curve for accuracy.
    Predicting positive for ``score > threshold``; cuts are only placed between
    distinct score values, halfway. Rows of zero weight take no part, so a
    weight of k is the same as k copies of the row. O(N) expected without
    weights (bucketing, see :func:`birank._kernels.metrics.best_cut_buckets`),
    O(N log N) with them.

    Returns
    -------
    threshold : float
    accuracy : float
        Weighted fraction of rows classified correctly at that cut.
    """
    y01 = np.asarray(y01).reshape(-1) != 0
    scores = np.ascontiguousarray(scores, dtype=np.float64).reshape(-1)
    if not np.isfinite(scores).all():
        raise ValueError("scores must be finite to choose a threshold; got NaN or inf "
                         "(diverged model or non-finite input).")
    if sample_weight is None:
        if scores.shape[0] == 0:
            return 0.0, 0.0
        thr, correct = best_cut_buckets(scores, y01)
        return float(thr), correct / scores.shape[0]
    weight = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    keep = weight > 0
    y01, scores, weight = y01[keep].astype(np.int64), scores[keep], weight[keep]
    n = scores.shape[0]
    if n == 0:
        return 0.0, 0.0
    order = np.argsort(-scores)  # tie order is irrelevant: cuts fall between distinct values
    s, yy, ww = scores[order], y01[order], weight[order]
    total, w_pos = ww.sum(), (ww * yy).sum()
    # predicting the top k as positive: correct = tp(k) + (negative weight beyond k)
    tp = np.concatenate(([0.0], np.cumsum(ww * yy)))
    fp = np.concatenate(([0.0], np.cumsum(ww * (1 - yy))))
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
        return self._partial_fit(X, y, classes=None, sample_weight=sample_weight)

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
