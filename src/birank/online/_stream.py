"""The shared stream driver of the online bipartite rankers: one ``fit`` / ``partial_fit`` path.

:class:`StreamRanker` is the base of every learner in :mod:`birank.online`. It
validates each chunk, keeps the state across calls, feeds the rows in order to
the subclass's ``_learn`` and, optionally, records a held-out AUC trace:

* ``fit(X, y, eval_set=(X_val, y_val), eval_every=k)`` and the same keywords
  of ``partial_fit`` append ``(n_seen, auc)`` to ``auc_trace_`` after every k-th
  row of the stream (and at the end of each call), for learning-curve plots.
* ``shuffle=True`` (a constructor parameter of the subclass, when it has one)
  makes ``fit`` stream the rows in a random order drawn from ``random_state``;
  ``partial_fit`` always takes the rows in the order given.
* ``sample_weight`` multiplies each row's loss; rows of weight 0 are skipped
  (they enter no buffer and no statistic).
* The state, including the random stream of the buffers, is kept between
  calls: ``partial_fit`` over consecutive chunks gives the same model, bit for
  bit, as ``fit`` over their concatenation.
* ``verbose`` (a constructor parameter of every learner) reports the rows
  streamed on stderr during each ``fit`` / ``partial_fit`` call
  (:func:`birank._progress.make_progress`, throttled). The rows then go to
  ``_learn`` in chunks of about ``REPORT_SECONDS`` each, a report between two
  chunks, never one per row inside a kernel; by the contract above the chunks
  give the same model, bit for bit, as one call.

Threshold. Online learners learn a ranking ``X @ coef_``; ``predict`` needs a
cut. After each call the base sets ``intercept_`` and ``predict_proba``'s sigmoid
from the last ``THRESHOLD_TAIL`` rows of each class, weighted by their sample
weights scaled to the class's weight seen (:class:`birank._threshold_tail.
ThresholdTail`, shared with the batch rankers' ``partial_fit``): for streams with
fewer rows per class it is exactly the training cut of ``fit``.

Subclasses implement ``_init_state(n_features)``, ``_learn(rows, y01, weight,
start, stop)`` (rows ``start .. stop-1`` in order; ``rows`` is what the hook
``_kernel_rows(X)`` returns, X itself by default) and ``_coef()`` (a copy of
the current weights), and list extra private attributes in
``_online_private_state``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.extmath import safe_sparse_dot

from .._progress import make_progress
from .._validation import (check_eval_set, check_random_state, check_sample_weight, check_X_y,
                           validate_params)
from ..base import (BinaryRankerMixin, OnlineRankerMixin, check_known_labels, reset_fitted,
                    warn_if_badly_scaled, warn_if_worse_than_chance)
from .._threshold_tail import THRESHOLD_TAIL, ThresholdTail
from ..metrics import roc_auc
from ._weights import diverged_error

if TYPE_CHECKING:
    from .._typing import ArrayLike, EvalSet, MatrixLike, Self

__all__ = ["StreamRanker", "THRESHOLD_TAIL"]

#: with ``verbose``: rows of the first chunk between two progress reports; each next
#: chunk is sized from the last one's rate to take about ``REPORT_SECONDS`` (at most 4
#: times the last size), so that a call of the kernel costs nothing next to its rows
REPORT_ROWS = 1000
REPORT_SECONDS = 0.1


class StreamRanker(OnlineRankerMixin, BinaryRankerMixin, BaseEstimator):
    """Base class: chunked, ordered, resumable learning of a linear bipartite ranker."""

    _online_private_state = ("_state", "_rng", "_tail")
    #: True for learners whose gradient steps are not normalized by the row norm
    #: (their step size is tuned for rows of norm ~1): ``fit`` and the first
    #: ``partial_fit`` warn when the rows' typical norm is far from 1
    _scale_sensitive = False

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None, *,
            eval_set: EvalSet | None = None, eval_every: int = 1000) -> Self:
        """Learn from ``(X, y)`` as one stream, forgetting earlier calls.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two label values; the larger one is the positive class.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each row's loss; rows of weight 0 are skipped.
        eval_set : tuple (X_val, y_val), default=None
            Held-out data whose AUC (of ``X_val @ coef_``) is appended to
            ``auc_trace_`` during the stream; None (the default): no trace.
        eval_every : int, default=1000
            Rows of the stream between two entries of ``auc_trace_`` (and one
            at the end of the call); only used with ``eval_set``. 1000 is
            birank's choice: a learning curve of ``n_samples / 1000`` points,
            each a pass over ``X_val``.

        Returns
        -------
        self
        """
        reset_fitted(self, private=self._online_private_state)
        return self._partial_fit(X, y, None, sample_weight, refit=True, eval_set=eval_set,
                                 eval_every=eval_every)

    def partial_fit(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None, *, eval_set: EvalSet | None = None,
                    eval_every: int = 1000) -> Self:
        """Continue the stream with the rows of ``(X, y)``, in the order given.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels from ``classes_`` (fixed by the first call); a chunk may hold
            one class only.
        classes : array-like of shape (2,), default=None
            The two label values; needed on the first call unless ``y`` holds both.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each row's loss; rows of weight 0 are skipped. None
            (the default): every row weighs 1.
        eval_set : tuple (X_val, y_val), default=None
            Held-out data whose AUC is appended to ``auc_trace_``, which
            grows over the calls; None (the default): no entries this call.
        eval_every : int, default=1000
            Rows of the stream (counted over all calls, ``n_seen_``) between
            two entries of ``auc_trace_``, and one at the end of the call;
            only used with ``eval_set``. 1000 is birank's choice, as in
            :meth:`fit`.

        Returns
        -------
        self
        """
        return self._partial_fit(X, y, classes, sample_weight, eval_set=eval_set,
                                 eval_every=eval_every)

    # ------------------------------------------------------------------ driver
    def _partial_fit(self, X, y, classes, sample_weight, *, refit=False, eval_set=None,
                     eval_every=1000):
        """OnlineRankerMixin's contract; ``refit`` (from ``fit``): shuffle if asked and
        check the fit against chance."""
        name = type(self).__name__
        shuffle = refit and bool(getattr(self, "shuffle", False))
        first = self._is_first_call()
        if first:
            validate_params(self)
        X, y = check_X_y(self, X, y, reset=first)
        if first:
            self._check_n_features(X.shape[1])
        y01 = self._encode_chunk(y, classes)
        weight = check_sample_weight(sample_weight, X.shape[0], y=y if refit else None,
                                     ones=True)
        if isinstance(eval_every, bool) or not isinstance(eval_every, (int, np.integer)) \
                or eval_every < 1:
            raise ValueError(f"{name}: eval_every must be a positive int; got {eval_every!r}.")
        if eval_set is not None:
            Xv, yv01 = self._check_eval_set(eval_set)
        if first and self._scale_sensitive:
            warn_if_badly_scaled(self, X)
        if first:
            self._rng = check_random_state(self.random_state)
            self._init_state(X.shape[1])
            # from the rows that count: a row of weight 0 enters no statistic (above)
            kept = weight > 0
            self._set_data_scaled_defaults(X if kept.all() or not kept.any() else X[kept])
            self.n_seen_ = 0
            self.class_counts_ = np.zeros(2, dtype=np.int64)
            self.auc_trace_ = np.empty((0, 2))
            self._tail = ThresholdTail()
        if shuffle:
            order = self._rng.permutation(X.shape[0])
            X, y01, weight = X[order], y01[order], weight[order]
        n = X.shape[0]
        rows = self._kernel_rows(X)
        start = 0
        trace = [self.auc_trace_]
        verbose = bool(getattr(self, "verbose", False))
        report = make_progress(verbose, name)
        chunk = REPORT_ROWS
        while start < n:
            stop = n
            if eval_set is not None:
                stop = min(n, start + eval_every - self.n_seen_ % eval_every)
            if verbose:  # (chunks split the stream only: the same model, see above)
                stop = min(stop, start + chunk)
                t0 = time.perf_counter()
            self._learn(rows, y01, weight, start, stop)
            self.n_seen_ += stop - start
            if verbose:
                took = time.perf_counter() - t0
                chunk = max(1, min(4 * chunk, int((stop - start) * REPORT_SECONDS
                                                  / max(took, 1e-6))))
                report(stop, n, f"rows, {self.n_seen_} seen in all")
            if eval_set is not None and (self.n_seen_ % eval_every == 0 or stop == n):
                auc = roc_auc(yv01, np.asarray(safe_sparse_dot(Xv, self._coef())).reshape(-1))
                trace.append(np.array([[self.n_seen_, auc]]))
            start = stop
        report.close()
        self.auc_trace_ = np.concatenate(trace)
        kept = weight > 0
        self.class_counts_ += np.bincount(y01[kept], minlength=2).astype(np.int64)
        self.coef_ = self._coef()
        if not np.all(np.isfinite(self.coef_)):  # (before the cut reads them as scores)
            raise diverged_error(self)
        if refit:  # fit only: one pass can be swamped (1 positive in 10^4 rows)
            warn_if_worse_than_chance(self, X, y01, sample_weight=weight)
        self._tail.update(X, y01, weight)
        self._tail.set_output(self)
        return self

    def _set_data_scaled_defaults(self, X):
        """Hook: resolve ``"auto"`` parameters from the first chunk (see
        :func:`birank.base.data_scaled`); called once, after ``_init_state``."""

    def _kernel_rows(self, X):
        """Hook: the layout ``_learn`` takes (X itself by default; see
        :func:`birank._validation.kernel_rows`)."""
        return X

    # ----------------------------------------------------------- validation
    def _check_n_features(self, n_features):
        """Hook: subclasses with a feature limit raise here (before any state is set)."""

    def _check_eval_set(self, eval_set):
        Xv, yv = check_eval_set(self, eval_set)
        check_known_labels(self, yv, what="eval_set's y")  # (as ActiveRankSVM's eval_set)
        return Xv, (yv == self.classes_[1]).astype(np.int8)

