"""Mixins shared by the estimators: linear scoring, binary ranking, general ranking.

Estimators stay thin: ``fit`` validates, hands off to a solver, then stores
``coef_`` (1-D, one weight per feature) and ``intercept_`` (a float).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._linalg import dot, matvec, norm
from ._validation import check_X
from .metrics import best_accuracy_threshold

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, Literal, TypeVar

    from ._typing import ArrayLike, FloatArray, Matrix, MatrixLike, NDArray, Self

    _F = TypeVar("_F", bound=Callable[..., Any])

    def available_if(check: Callable[[Any], bool]) -> Callable[[_F], _F]:
        """scikit-learn's decorator, typed: the method keeps its signature."""
else:
    from sklearn.utils._available_if import available_if

__all__ = ["LinearScorerMixin", "ProbabilityMixin", "BinaryRankerMixin", "RankerMixin",
           "OnlineRankerMixin", "check_known_labels",
           "reset_fitted", "decision_cut", "data_scaled", "warn_if_badly_scaled",
           "warn_if_worse_than_chance"]


def check_known_labels(estimator: Any, y: ArrayLike, *, what: str = "y") -> NDArray[Any]:
    """``y`` as an array, refused when a label is not one of ``estimator.classes_``.

    A label outside ``classes_`` (another value, NaN, None) would otherwise count
    as the negative class, silently: scikit-learn's classifiers refuse it too. The
    one check of a binary ranker's ``score``, ``partial_fit`` chunks and held-out
    labels (``eval_set``, ``phi_risk``).

    Parameters
    ----------
    estimator : fitted binary ranker
        Its ``classes_`` are the labels allowed.
    y : array-like
        Labels to check (any shape).
    what : str, default="y"
        What ``y`` is, for the message.

    Returns
    -------
    y : ndarray
        ``np.asarray(y)``.

    Raises
    ------
    ValueError
        Naming the estimator, ``what`` (``"y"``, ``"eval_set's y"``, ...), the
        unknown labels and ``classes_``.
    """
    y = np.asarray(y)
    classes = estimator.classes_
    unknown = ~np.isin(y, classes)
    if unknown.any():
        bad = y[unknown]
        try:
            shown = np.unique(bad)
        except TypeError:  # None among numbers: values that do not sort
            shown = np.asarray(list(dict.fromkeys(bad.tolist())), dtype=object)
        raise ValueError(f"{type(estimator).__name__}: {what} holds label(s) "
                         f"{shown[:5].tolist()!r} not in classes_ {classes.tolist()!r}; "
                         "every label must be one of the two classes of the fit.")
    return y


def reset_fitted(estimator: object, *, private: Iterable[str] = ()) -> None:
    """The one way to forget a fit: delete every attribute ending in ``_`` (scikit-learn's
    fitted-state convention) and the ``private`` names (buffers, accumulators, rngs)."""
    for name in list(vars(estimator)):
        if (name.endswith("_") and not name.startswith("__")) or name in private:
            delattr(estimator, name)


def decision_cut(scores: FloatArray, y01: NDArray[Any], *,
                 sample_weight: FloatArray | None = None, n_jobs: int | None = None) -> float:
    """The decision threshold of a two-class ranker without a learned bias.

    The score where Platt's sigmoid fitted on these (training) scores is 1/2
    (:func:`birank._calibration.platt_midpoint`): ``predict`` is then the label
    of calibrated probability above 1/2, the most accurate one under the
    calibrated model, and ``argmax(predict_proba) == predict`` by construction.
    When the scores rank no better than chance (no positive slope), the cut of
    best (weighted) accuracy. ``n_jobs``: threads for Platt's passes (the same cut
    for every value).
    """
    return _cut_and_slope(scores, y01, sample_weight, n_jobs)[0]


def _cut_and_slope(scores, y01, sample_weight, n_jobs):
    """:func:`decision_cut` and the slope of Platt's sigmoid there (0.0 without one)."""
    from ._calibration import platt_line

    line = platt_line(scores, y01, sample_weight, n_jobs=n_jobs)
    if line is None:
        cut, _ = best_accuracy_threshold(y01, scores, sample_weight=sample_weight)
        return float(cut), 0.0
    return float(line[0]), float(line[1])


def set_two_class_output(est: Any, scores: FloatArray, y01: NDArray[Any], *,
                         learned_bias: bool = False, sample_weight: FloatArray | None = None,
                         proba_weight: Any = "same", n_jobs: int | None = None) -> None:
    """The one threshold setter of every two-class ranker (in memory and on Dask).

    ``scores`` are the training scores without ``intercept_``. Unless the bias
    is learned, ``intercept_`` becomes minus :func:`decision_cut` under
    ``sample_weight``; then ``probability_`` (``predict_proba``'s sigmoid) is
    fitted on the shifted scores weighted by ``proba_weight``: the row weights,
    when ``sample_weight`` also holds class weights (a cost-weighted decision,
    as scikit-learn's ``class_weight`` means, that would calibrate to a
    balanced prior). ``n_jobs``: threads for the calibration's passes over the
    scores (the same threshold and sigmoid for every value).
    """
    from ._calibration import platt_fit

    weight = sample_weight if isinstance(proba_weight, str) else proba_weight
    slope = 0.0
    if not learned_bias:
        cut_weight = sample_weight
        if cut_weight is not None and weight is not sample_weight:
            # class weights move the cut, not the rows' total weight (Platt's smoothing
            # counts rows): a C that scales every weight leaves the decision alone
            total = float(scores.shape[0] if weight is None else np.sum(weight))
            cut_weight = cut_weight * (total / float(np.sum(cut_weight)))
        cut, slope = _cut_and_slope(scores, y01, cut_weight, n_jobs)
        est.intercept_ = -cut
    # the two slopes start from Platt's own slope at the cut: fewer passes, same optimum
    est.probability_ = np.array(platt_fit(scores + est.intercept_, y01, weight, n_jobs=n_jobs,
                                          start=slope))


def _own_n_jobs(est):
    """An estimator's ``n_jobs`` for its scores: a joblib context's count for None
    (:func:`birank._parallel.resolve_n_jobs`), resolved here, once a call, and not in the
    products the solvers run in their loops."""
    from ._parallel import resolve_n_jobs

    return resolve_n_jobs(getattr(est, "n_jobs", None))


class LinearScorerMixin:
    """``decision_function(X) = X @ coef_ + intercept_``."""

    # fitted attributes (annotations only: nothing exists before fit, check_is_fitted relies on it)
    coef_: FloatArray
    intercept_: float

    def decision_function(self, X: MatrixLike) -> FloatArray:
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
        return matvec(X, self.coef_, _own_n_jobs(self)) + self.intercept_


class ProbabilityMixin:
    """``predict_proba`` of a two-class ranker: Platt's sigmoid on the decision scores.

    ``fit`` calls :meth:`_fit_probability` with the training decision scores
    (after the decision threshold is set), which stores ``probability_`` =
    ``(a_neg, a_pos)``; then ``P(classes_[1] | x) = 1 / (1 + exp(-a s))`` with
    ``s = decision_function(x)`` and ``a = a_neg`` below the threshold (s < 0),
    ``a_pos`` above: 1/2 at the threshold, so ``argmax(predict_proba) ==
    predict`` as scikit-learn requires. Why a sigmoid and not isotonic
    regression: it is monotone by construction (slopes >= 0: a higher score
    never gets a lower probability, so the ranking, hence the AUC, is
    unchanged), smooth (no ties created between distinct scores), needs no
    held-out split for ``10^2``-row training sets, and two numbers keep model
    files small. See :mod:`birank._calibration` and docs/conventions.md.
    """

    probability_: FloatArray

    if TYPE_CHECKING:  # provided by LinearScorerMixin in every class that uses this one
        coef_: FloatArray

        def decision_function(self, X: MatrixLike) -> FloatArray: ...

    def _fit_probability(self, scores, y01, sample_weight=None):
        from ._calibration import platt_fit

        self.probability_ = np.array(platt_fit(scores, y01, sample_weight))

    def _training_scores(self, X):
        """Scores of the validated training ``X`` without ``intercept_`` (a kernel model
        overrides this)."""
        return matvec(X, self.coef_, _own_n_jobs(self))

    def _set_threshold(self, X, y01, learned_bias=False, sample_weight=None, *,
                       proba_weight="same"):
        """:func:`set_two_class_output` on the training scores of ``X``; returns them
        (without ``intercept_``), for :func:`warn_if_worse_than_chance`."""
        scores = self._training_scores(X)
        set_two_class_output(self, scores, y01, learned_bias=learned_bias,
                             sample_weight=sample_weight, proba_weight=proba_weight,
                             n_jobs=getattr(self, "n_jobs", None))
        return scores

    def predict_proba(self, X: MatrixLike) -> FloatArray:
        """Calibrated class probabilities (Platt's sigmoid fitted on the training scores).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Columns follow ``classes_``; rows sum to 1; column 1 never
            decreases with ``decision_function(X)``.
        """
        from ._calibration import platt_proba

        check_is_fitted(self, "probability_")
        a_neg, a_pos = self.probability_
        return platt_proba(self.decision_function(X), a_neg, a_pos)

    def predict_log_proba(self, X: MatrixLike) -> FloatArray:
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to give probabilities for.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, 2)
            ``log(predict_proba(X))``, columns in the order of ``classes_``;
            ``-inf`` where a probability is exactly 0.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class BinaryRankerMixin(ProbabilityMixin, LinearScorerMixin, ClassifierMixin):
    """Bipartite ranker: two classes, ``score`` is ROC AUC.

    The ranking is given by ``X @ coef_``; a constant shift does not change it.
    Methods that learn a bias (CRC-threshold, shen-lin eq. 8) keep it in
    ``intercept_``. For the others, ``fit`` ends by calling
    :meth:`_set_threshold`, which sets ``intercept_`` to minus the score where
    Platt's sigmoid fitted on the training scores is 1/2 (the label of higher
    calibrated probability: the most accurate under the calibrated model), so
    that, as for every scikit-learn classifier, ``predict`` is
    ``decision_function > 0`` and ``argmax(predict_proba)``.
    ``predict_proba`` is Platt's sigmoid on the decision scores
    (:class:`ProbabilityMixin`), fitted by the same call.
    """


    classes_: NDArray[Any]

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """Class labels: ``classes_[1]`` where ``decision_function(X) > 0``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to label.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_`` (their dtype): ``classes_[1]`` (the larger
            label value, the positive class) where ``decision_function(X) > 0``,
            ``classes_[0]`` elsewhere; the label of calibrated probability above
            1/2, so ``argmax(predict_proba(X))`` picks the same class.
        """
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]

    def score(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """ROC AUC of the scores on ``(X, y)`` (ties count 1/2).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score.
        y : array-like of shape (n_samples,)
            True labels, each one of ``classes_`` (another value, NaN or None is
            refused: it would count as negative); rows equal to ``classes_[1]``
            are the positive class. Both must occur.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights; a (positive, negative) pair weighs
            ``sample_weight_i * sample_weight_j``.

        Returns
        -------
        score : float in [0, 1]
            :func:`birank.metrics.roc_auc` of ``decision_function(X)``: the
            weighted fraction of (positive, negative) pairs ranked in the right
            order, tied scores counting 1/2.
        """
        from .metrics import roc_auc

        check_is_fitted(self, "classes_")
        y = check_known_labels(self, y)
        # (the labels as given, so that a one-class y is named by its own label)
        return roc_auc(y, self.decision_function(X), sample_weight=sample_weight,
                       pos_label=self.classes_[1])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags


def _proba_available(est):
    """``predict_proba`` exists after a fit on two classes (graded labels have none)."""
    return hasattr(est, "classes_")


class RankerMixin(ProbabilityMixin, LinearScorerMixin):
    """Ranker for binary, graded or real-valued labels.

    Fitted on two label values (``classes_`` is set), it is a bipartite ranker
    like the others: ``fit`` ends with :meth:`_set_threshold` (the score
    where Platt's sigmoid is 1/2 moved into ``intercept_``, and the sigmoid),
    ``predict`` returns labels from ``classes_`` and ``predict_proba`` exists.
    Fitted on graded or real-valued labels there is no class to predict:
    ``predict`` returns the ranking scores (as LightGBM's ``LGBMRanker`` does)
    and ``predict_proba`` is absent. ``score`` is the pairwise accuracy, which
    equals ROC AUC for binary labels.
    """

    classes_: NDArray[Any]

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """Labels after a two-class fit; the ranking scores after a graded one.

        Labels from ``classes_`` (``decision_function(X) > 0``) after a fit on
        two label values; otherwise (graded / real-valued labels) the ranking
        scores.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to label (or score).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            After a fit on two label values: labels from ``classes_`` (their
            dtype), ``classes_[1]`` (the larger value) where
            ``decision_function(X) > 0`` and ``classes_[0]`` elsewhere, as
            ``argmax(predict_proba(X))``. After a fit on more than two values
            (graded or real-valued labels, no ``classes_``): the float64 ranking
            scores, equal to ``decision_function(X)`` (as LightGBM's
            ``LGBMRanker``).
        """
        scores = self.decision_function(X)
        if hasattr(self, "classes_"):
            return self.classes_[(scores > 0).astype(np.intp)]
        return scores

    @available_if(_proba_available)
    def predict_proba(self, X: MatrixLike) -> FloatArray:
        """Calibrated class probabilities, after a fit on two label values only.

        See :meth:`ProbabilityMixin.predict_proba`; graded or real-valued labels
        have no classes, and then this method does not exist.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to give probabilities for.

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Columns follow ``classes_``; rows sum to 1; column 1 (Platt's
            sigmoid of ``decision_function(X)``) is 1/2 at the decision
            threshold and never decreases with the score.
        """
        return super().predict_proba(X)

    @available_if(_proba_available)
    def predict_log_proba(self, X: MatrixLike) -> FloatArray:
        """Logarithm of :meth:`predict_proba`, after a fit on two label values only.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to give probabilities for.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, 2)
            ``log(predict_proba(X))``, columns in the order of ``classes_``;
            ``-inf`` where a probability is exactly 0.
        """
        return super().predict_log_proba(X)

    def score(self, X: MatrixLike, y: ArrayLike, *, groups: ArrayLike | None = None,
              sample_weight: ArrayLike | None = None) -> float:
        """Pairwise accuracy of the scores on ``(X, y)``, within ``groups`` if given.

        A pair is weighted by ``sample_weight_i * sample_weight_j``. Both are
        keyword-only: scikit-learn passes ``sample_weight`` by name, and a
        positional third argument could mean either.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score.
        y : array-like of shape (n_samples,)
            True labels: two classes, graded or real-valued.
        groups : array-like of shape (n_samples,), default=None
            Query id of each row; only pairs within a query are compared. None
            compares every pair of rows.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights; a pair weighs
            ``sample_weight_i * sample_weight_j``.

        Returns
        -------
        score : float in [0, 1]
            :func:`birank.metrics.pairwise_accuracy` of ``decision_function(X)``:
            the weighted fraction of pairs with different labels (within a query)
            ranked in the right order, tied scores counting 1/2. For two label
            values without groups it is the ROC AUC.
        """
        from .metrics import pairwise_accuracy

        return pairwise_accuracy(y, self.decision_function(X), groups=groups,
                                 sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()  # type: ignore[misc]  # BaseEstimator's, later in the MRO
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags


class OnlineRankerMixin:
    """One ``fit`` / ``partial_fit`` path for rankers that learn from chunks.

    As in scikit-learn's SGD estimators, ``fit`` is "forget everything, then one
    ``_partial_fit`` over (X, y)", and ``partial_fit`` continues from the current
    state. The first call is detected one way: ``classes_`` is not set yet.

    The one chunked-learning contract: subclasses implement
    ``_partial_fit(X, y, classes, sample_weight, *, refit=False, **options)``,
    which validates with ``reset=self._is_first_call()`` and keeps state bounded
    per chunk (no chunk is stored unless the method needs a buffer of fixed
    size). ``refit=True`` when ``fit`` calls it: the chunk is the whole training
    set, so the state may reference it instead of copying it (a ``partial_fit``
    chunk is copied: streaming callers reuse their buffers) and the
    zero-weight-class rule of :func:`birank._validation.check_sample_weight`
    applies. ``options`` are a subclass's own keywords (a stream's ``eval_set``).

    Fitted state is every attribute ending in ``_`` plus the names listed in
    ``_online_private_state`` (private buffers, accumulators); ``fit`` removes
    them all (:func:`reset_fitted`) before starting, so refitting never mixes two
    datasets.
    """

    #: private attributes (not ending in ``_``) that ``fit`` must forget
    _online_private_state: tuple[str, ...] = ("_state",)
    classes_: NDArray[Any]

    if TYPE_CHECKING:  # what each subclass implements (see the class docstring)
        def _partial_fit(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None,
                         sample_weight: ArrayLike | None, *, refit: bool = False) -> Self: ...

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit on ``(X, y)`` as one stream, in row order, discarding earlier state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows, learned from in this order.
        y : array-like of shape (n_samples,)
            Two label values; the larger one is the positive class (``classes_[1]``).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights (None: all 1); the estimator's class
            docstring says how they enter its fit.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        reset_fitted(self, private=self._online_private_state)
        return self._partial_fit(X, y, None, sample_weight, refit=True)

    def partial_fit(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None) -> Self:
        """Continue learning from one more chunk of rows, in row order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The chunk's rows, learned from in this order.
        y : array-like of shape (n_samples,)
            Labels of this chunk, each one of the two label values (``classes_``
            after the first call); a chunk may hold one class only once they are
            known.
        classes : array-like of shape (2,), default=None
            The two label values. Needed on the first call unless ``y`` holds both.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights (None: all 1); the estimator's class
            docstring says how they enter its fit.

        Returns
        -------
        self : object
            The estimator, updated.
        """
        return self._partial_fit(X, y, classes, sample_weight)

    def _is_first_call(self):
        return not hasattr(self, "classes_")

    def _reset_online_state(self):
        reset_fitted(self, private=self._online_private_state)

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
        check_known_labels(self, y)
        return (y == self.classes_[1]).astype(np.int8)


# --- warnings for fits that "succeed" but cannot be trusted (docs/reliability.md) ---

#: typical row norm outside [1/_SCALE_RANGE, _SCALE_RANGE] makes SGD steps too small or too large
_SCALE_RANGE = 1e3


def data_scaled(value: float | str, X: Matrix, *, scale: float, power: float = 1.0,
                cap: float = np.inf,
                measure: Literal["norm", "spread", "covariance"] = "norm") -> float:
    """A parameter's value: ``value``, or for ``"auto"`` ``scale / m**power`` with m a
    measure of the size of X's rows (O(nnz) per pass over X).

    Gradient steps on ``w . x`` move the scores by ``step |x|^2``: dividing the
    step by the typical ``|x|^2`` makes the default independent of the features'
    scale (multiplying X by s gives the same scores), which is what a default
    used without tuning needs (benchmarks/bench_defaults.py). ``cap`` bounds
    the result where a term that does not scale with X (an L2 penalty's
    ``1 - step alpha`` shrinkage) would otherwise turn unstable.

    ``measure`` (each scales as ``s**2`` when X is multiplied by s):

    - ``"norm"``: the mean squared row norm (rows of zeros skipped).
    - ``"spread"``: ``v = mean |x|^2 - |mean x|^2`` over all rows, half the mean
      of ``|x_i - x_j|^2`` over pairs of rows: the size of the differences a
      pairwise loss sees, blind to an offset shared by all rows (german.numer's
      non-negative features: the mean squared norm is 4.7 v).
    - ``"covariance"``: the largest eigenvalue of the rows' covariance (of every
      k-th row, at most 20000; power iteration from a fixed start until a step
      changes it by under 1e-3, at most 30 steps: from below, within about
      1 %): the curvature of a square loss in
      the centered rows along its steepest direction, which bounds its stable
      steps (gradient descent on a quadratic diverges beyond 2 / curvature).

    A chunk without spread (one row, equal rows) uses ``"norm"``.
    """
    if not (isinstance(value, str) and value == "auto"):
        return float(value)
    return float(min(scale / _row_size(X, measure) ** power, cap))


def _row_size(X: Matrix, measure: str) -> float:
    from ._kernels.sparse_rows import row_sqnorms
    from ._linalg import rmatvec

    sq = row_sqnorms(np.ascontiguousarray(X) if isinstance(X, np.ndarray)
                     else (X.data, X.indices, X.indptr))
    n = sq.size
    nonzero = sq[sq > 0]
    m = float(nonzero.mean()) if nonzero.size else 1.0
    if measure == "norm" or n < 2:
        return m
    mean_sq = float(sq.mean())
    # a CSR X's column means as sum_i x_i / n in row order, as scipy's X.mean (which
    # copies X's data and indices): float64 sums, the same bits as scipy's for float64
    mu = (np.asarray(X.mean(axis=0), dtype=np.float64).ravel() if isinstance(X, np.ndarray)
          else rmatvec(X, np.full(n, 1.0 / n)))
    v = mean_sq - dot(mu, mu)
    if not v > 1e-8 * mean_sq:  # no spread (or all of it lost to rounding)
        return m
    if measure == "spread":
        return v
    # the covariance of at most 20000 rows, every k-th (a file sorted by label
    # still gives both classes); 30 products, two passes each, bound the cost
    step = -(-n // 20000)
    if step > 1:
        X = X[::step]
        n = X.shape[0]
        mu = np.asarray(X.mean(axis=0), dtype=np.float64).ravel()
    u = np.random.default_rng(0).standard_normal(mu.size)
    lam = 0.0
    for _ in range(30):  # slow convergence: close top eigenvalues, any of them will do
        u /= norm(u)
        cu = np.asarray(X.T @ np.asarray(X @ u).ravel()).ravel() / n - mu * dot(mu, u)
        rayleigh, u = dot(u, cu), cu
        done = abs(rayleigh - lam) <= 1e-3 * abs(rayleigh)
        lam = rayleigh
        if done:
            break
    return lam if lam > 1e-8 * v else v


def warn_if_badly_scaled(estimator: object, X: Matrix) -> None:
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
    sq = row_sqnorms(np.ascontiguousarray(X) if isinstance(X, np.ndarray)
                     else (X.data, X.indices, X.indptr))
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


def warn_if_worse_than_chance(estimator: LinearScorerMixin, X: Matrix, y01: ArrayLike, *,
                              sample_weight: ArrayLike | None = None,
                              scores: FloatArray | None = None) -> None:
    """Warn when the fitted scores rank the training data below chance (AUC < 0.5).

    A model that learned anything ranks its own training data at least as well
    as chance; below it means the fit was swamped (e.g. 1 positive in 10^5 rows
    without class weights) and should not be used as is. O(N log N). ``scores``:
    the training scores ``X @ coef_`` when the caller has them (the threshold's,
    :meth:`ProbabilityMixin._set_threshold`), else computed.
    """
    import warnings

    from .metrics import roc_auc

    y01 = np.asarray(y01)
    n_pos = int(y01.sum())
    if n_pos == 0 or n_pos == y01.shape[0]:
        return
    if scores is None:
        scores = matvec(X, estimator.coef_)
    auc = roc_auc(y01, scores, sample_weight=sample_weight)
    if auc < 0.5:
        warnings.warn(
            f"{type(estimator).__name__}: the fitted model ranks its own training data worse "
            f"than chance (training AUC {auc:.4g}, {n_pos} positive(s) in {y01.shape[0]} "
            "rows). With classes this unbalanced use class weights (e.g. "
            "class_weight='balanced') or a pairwise ranker.", UserWarning, stacklevel=3)
