"""The shared fit / partial_fit path of the linear streaming AUC learners.

OPAUC, OnlineUniExp, SPAM and PGD differ only in their state and their kernel;
this base validates a chunk, encodes its labels, checks the weights, hands the
rows to ``_run_chunk`` (one kernel call over the chunk, in row order) and
publishes ``coef_`` and ``intercept_``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from .._validation import check_X_y, validate_params
from ..base import BinaryRankerMixin, OnlineRankerMixin
from ..solvers.dual_cd import xargs

__all__ = ["LinearStreamRanker", "check_sample_weight"]


def check_sample_weight(name, sample_weight, n):
    """Row weights as float64 (ones when None); finite, non-negative, one per row."""
    if sample_weight is None:
        return np.ones(n)
    sw = np.asarray(sample_weight, dtype=np.float64)
    if sw.ndim != 1 or sw.shape[0] != n:
        raise ValueError(f"{name}: sample_weight must have shape ({n},) (one weight per row "
                         f"of X); got shape {sw.shape}.")
    if not np.all(np.isfinite(sw)) or np.any(sw < 0):
        raise ValueError(f"{name}: sample_weight must be finite and non-negative.")
    return np.ascontiguousarray(sw)


class LinearStreamRanker(OnlineRankerMixin, BinaryRankerMixin, BaseEstimator):
    """Base of the one-instance-at-a-time linear AUC learners (not public).

    Subclasses set ``_parameter_constraints`` and implement
    ``_init_state(n_features, X)`` (returns a dict of arrays, ``"w"`` included) and
    ``_run_chunk(xa, y01, sw, state)`` (one kernel call). The stream order is
    the row order; ``fit`` equals ``partial_fit`` over any split of the rows
    into consecutive chunks (``coef_`` bit for bit).

    ``intercept_`` is minus the best-accuracy score cut (the OPTROC operating
    point) on the last chunk that held both classes, so that ``predict`` is
    ``decision_function > 0``; it does not affect the ranking.
    """

    _online_private_state = ("_state",)

    def _partial_fit(self, X, y, classes=None, sample_weight=None):
        validate_params(self)
        first = self._is_first_call()
        X, y = check_X_y(self, X, y, reset=first)
        y01 = self._encode_chunk(y, classes)
        sw = check_sample_weight(type(self).__name__, sample_weight, X.shape[0])
        if first:
            self._state = self._init_state(X.shape[1], X)
            self.intercept_ = 0.0
            self.n_seen_ = np.zeros(2, dtype=np.int64)
        self._prepare_chunk(X, self._state)
        self._run_chunk(xargs(X), np.ascontiguousarray(y01, dtype=np.int8), sw, self._state)
        w = self._state["w"]
        if not np.all(np.isfinite(w)):
            raise FloatingPointError(
                f"{type(self).__name__}: the weights diverged (inf/NaN); lower the learning "
                f"rate (eta={getattr(self, 'eta', None)!r}).")
        kept = sw > 0
        self.n_seen_ += np.bincount(y01[kept], minlength=2)
        self.coef_ = w.copy()
        if y01[kept].min(initial=1) == 0 and y01[kept].max(initial=0) == 1:
            self._set_threshold(X, y01, sample_weight=None if sample_weight is None else sw)
        return self

    def _prepare_chunk(self, X, state):
        """Hook: grow state before a chunk (e.g. buffer slots for wider sparse rows)."""

    def _init_state(self, n_features, X):  # pragma: no cover - abstract
        raise NotImplementedError

    def _run_chunk(self, xa, y01, sw, state):  # pragma: no cover - abstract
        raise NotImplementedError
