"""The labeler of a simulated active-learning run: hidden labels, every read counted."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .._typing import ArrayLike, FloatArray, IntArray, NDArray, RandomStateLike

__all__ = ["LabelOracle"]


class LabelOracle:
    """Answers label requests from a hidden label vector, counting every read.

    A row's label can be read once; a second read is a bug in the loop and
    raises. ``read_mask`` tells which labels were revealed, ``n_reads`` how many.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        The true labels (graded or binary); copied, never exposed as a whole.

    Examples
    --------
    >>> from birank.active_learning import LabelOracle
    >>> oracle = LabelOracle([0, 2, 1])
    >>> oracle.label([1]).tolist(), oracle.n_reads
    ([2.0], 1)
    """

    def __init__(self, labels: ArrayLike) -> None:
        y = np.asarray(labels, dtype=np.float64).reshape(-1)
        if not np.isfinite(y).all():
            raise ValueError("labels must be finite numbers.")
        self._labels = y.copy()
        self._read = np.zeros(y.shape[0], dtype=bool)
        self.n_reads = 0

    @property
    def n_samples(self) -> int:
        return self._labels.shape[0]

    @property
    def read_mask(self) -> NDArray[np.bool_]:
        """Boolean mask of the rows whose label has been read (a copy)."""
        return self._read.copy()

    def label(self, indices: ArrayLike) -> FloatArray:
        """Reveal the labels of ``indices`` (each row at most once over the oracle's life).

        Parameters
        ----------
        indices : array-like of int
            Row numbers in ``[0, n_samples)``, none read before and none twice.

        Returns
        -------
        labels : ndarray of float64, shape (len(indices),)
            Their labels, in the order of ``indices``; each read is counted in
            ``n_reads`` and ``read_mask``.

        Raises
        ------
        ValueError
            If an index is out of range or not an integer, or a row is
            requested twice.
        """
        idx = np.asarray(indices).reshape(-1)
        if idx.size and (idx.dtype.kind not in "iu" or idx.min() < 0
                         or idx.max() >= self.n_samples):
            raise ValueError(f"indices must be row numbers in [0, {self.n_samples}); "
                             f"got {idx!r}.")
        idx = idx.astype(np.int64)
        if np.unique(idx).shape[0] != idx.shape[0] or self._read[idx].any():
            again = idx[self._read[idx]] if self._read[idx].any() else idx
            raise ValueError(f"label of row {int(again[0])} requested twice; an active "
                             "learner never queries a labeled row again.")
        self._read[idx] = True
        self.n_reads += idx.shape[0]
        return self._labels[idx].copy()

    def seed(self, groups: ArrayLike | None, *, relevance_threshold: float, n_relevant: int = 1,
             n_nonrelevant: int = 10, random_state: RandomStateLike = None,
             ) -> tuple[IntArray, FloatArray]:
        """Draw the initial labeled set of donmez-carbonell section 3.1 and reveal it.

        Per query, ``n_relevant`` relevant (label >= ``relevance_threshold``) and
        ``n_nonrelevant`` non-relevant rows at random (fewer when the query has
        fewer). As in the paper, the draw knows the labels; only the drawn rows'
        labels are revealed and counted as reads.

        Parameters
        ----------
        groups : array-like of shape (n_samples,) or None
            Query id of each row; None means one query.
        relevance_threshold : float
            Labels ``>= relevance_threshold`` are relevant.
        n_relevant : int, default=1
            Relevant rows per query (the paper's 1).
        n_nonrelevant : int, default=10
            Non-relevant rows per query (the paper's 10).
        random_state : int, numpy Generator, numpy RandomState or None, default=None
            The random order within each (query, class); a Generator is drawn
            from as is.

        Returns
        -------
        indices : ndarray of int64 (sorted)
            The drawn rows.
        labels : ndarray of float64
            Their labels (now read).

        Examples
        --------
        >>> from birank.active_learning import LabelOracle
        >>> oracle = LabelOracle([0, 1, 0, 2, 0, 0])
        >>> idx, labels = oracle.seed([1, 1, 1, 2, 2, 2], relevance_threshold=1,
        ...                           n_nonrelevant=1, random_state=0)
        >>> labels.tolist().count(0.0), oracle.n_reads
        (2, 4)
        """
        from .._validation import check_random_state, group_codes

        rng = check_random_state(random_state)
        codes = group_codes(groups, self.n_samples)  # None: one query
        relevant = self._labels >= relevance_threshold
        key = rng.random(self.n_samples)  # a random order within each (query, class)
        chosen = []
        for cls, quota in ((True, n_relevant), (False, n_nonrelevant)):
            rows = np.flatnonzero(relevant == cls)
            order = rows[np.lexsort((key[rows], codes[rows]))]
            counts = np.bincount(codes[order], minlength=codes.max() + 1)
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
            within = np.arange(order.shape[0]) - starts[codes[order]]
            chosen.append(order[within < quota])
        idx = np.sort(np.concatenate(chosen)).astype(np.int64)
        return idx, self.label(idx)
