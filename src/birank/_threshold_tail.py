"""The decision cut of a ranker trained on chunks: a bounded tail of each class.

A ranker fitted in one call sets ``intercept_`` and ``predict_proba``'s sigmoid
from the scores of all its training rows (:func:`birank.base.set_two_class_output`).
A ranker fed by ``partial_fit`` sees each chunk once and keeps no data, so its
cut comes from :class:`ThresholdTail`: the last ``THRESHOLD_TAIL`` rows of each
class with a positive weight (a FIFO, whatever the stream's length), each
weighted by its sample weight times (the class's weight seen) / (its weight
kept). The tail is then an estimate of the whole stream, class by class; while
no class has more than ``THRESHOLD_TAIL`` rows it holds every row with its own
weight, and the cut is exactly the one a single ``fit`` on them would set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from ._typing import FloatArray, Matrix

__all__ = ["ThresholdTail", "THRESHOLD_TAIL"]

#: rows of each class the tail keeps
THRESHOLD_TAIL = 1000


class ThresholdTail:
    """The last ``THRESHOLD_TAIL`` rows of each class of a stream and their weights."""

    def __init__(self) -> None:
        self.rows: list[sp.csr_matrix | None] = [None, None]
        self.weights: list[FloatArray] = [np.zeros(0), np.zeros(0)]
        self.seen = np.zeros(2)  # each class's total weight so far

    def update(self, X: Matrix, y01: Any, sample_weight: FloatArray | None = None) -> None:
        """Add a validated chunk (``y01`` in {0, 1}; rows of weight 0 are not kept)."""
        w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight,
                                                                        dtype=np.float64)
        for c in (0, 1):
            take = np.flatnonzero((w > 0) & (y01 == c))
            self.seen[c] += float(np.sum(w[take]))
            take = take[-THRESHOLD_TAIL:]
            rows, weights = sp.csr_matrix(X[take]), w[take]
            old = self.rows[c]
            if old is not None and rows.shape[0] < THRESHOLD_TAIL:
                rows = sp.vstack([old, rows], format="csr")[-THRESHOLD_TAIL:]
                weights = np.concatenate([self.weights[c], weights])[-THRESHOLD_TAIL:]
            self.rows[c], self.weights[c] = rows, weights

    def set_output(self, est: Any, *, learned_bias: bool = False) -> None:
        """``est._set_threshold`` on the weighted tail: ``intercept_`` (unless the bias is
        learned) and ``probability_``; with no row kept, no cut (0) and the prior's
        sigmoid."""
        rows, labels, weights = [], [], []
        for c in (0, 1):
            tail = self.rows[c]
            if tail is None or tail.shape[0] == 0:
                continue
            rows.append(tail)
            labels.append(np.full(tail.shape[0], c, dtype=np.int8))
            # (unit weights: count seen / count kept, in floats that are whole numbers)
            weights.append(self.weights[c] * (self.seen[c] / float(np.sum(self.weights[c]))))
        if not rows:
            if not learned_bias:
                est.intercept_ = 0.0
            est._fit_probability(np.zeros(0), np.zeros(0, dtype=np.int8))
            return
        est._set_threshold(sp.vstack(rows, format="csr"), np.concatenate(labels),
                           learned_bias=learned_bias, sample_weight=np.concatenate(weights))
