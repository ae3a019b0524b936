"""Synthetic data: lin-jan-lin's linear ranking data and large sparse bipartite data."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from .._progress import make_progress

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

    from .._typing import FloatArray, NDArray, RandomStateLike

__all__ = ["make_linear_ranking", "make_sparse_bipartite"]

_BLOCK = 4096  # rows per generator restart; fixed so chunk_size never changes the data


def _check_int(value, name, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an int >= {low}; got {value!r}.")
    return int(value)


def _check_real(value, name, low=0.0, high=None, closed_low=True):
    ok = (isinstance(value, numbers.Real) and not isinstance(value, bool)
          and bool(np.isfinite(float(value))))
    ok = ok and (value >= low if closed_low else value > low)
    ok = ok and (high is None or value <= high)
    if not ok:
        rng = f"[{low}, {'inf' if high is None else high}]" if closed_low else (
            f"({low}, {'inf' if high is None else high}]")
        raise ValueError(f"{name} must be a float in {rng}; got {value!r}.")
    return float(value)


def make_linear_ranking(n_samples: int = 200, *, n_features: int = 10, noise: float = 0.1,
                        random_state: RandomStateLike = None,
                        ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Real-valued ranking data from a planted linear ranker (lin-jan-lin section III).

    Every feature of ``x`` and of the perfect ranker ``w'`` is uniform in
    ``[-1, 1]``; the label is ``y = w'.x + e`` with ``e ~ N(0, noise)``.
    As in the paper, ``noise`` is the *variance* of the Gaussian noise (they
    use 0, 0.05, 0.1, 0.5 and 1), so its standard deviation is ``sqrt(noise)``.

    Parameters
    ----------
    n_samples : int, default=200
    n_features : int, default=10
    noise : float >= 0, default=0.1
        Variance of the label noise.
    random_state : None, int or numpy Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    w : ndarray of shape (n_features,)
        The perfect ranker ``w'``.

    Examples
    --------
    >>> from birank.datasets import make_linear_ranking
    >>> from birank.metrics import pairwise_accuracy
    >>> X, y, w = make_linear_ranking(200, n_features=5, noise=0.0, random_state=0)
    >>> pairwise_accuracy(y, X @ w)
    1.0
    """
    n_samples = _check_int(n_samples, "n_samples", 1)
    n_features = _check_int(n_features, "n_features", 1)
    noise = _check_real(noise, "noise")
    from .._validation import check_random_state  # here: `birank predict` needs no sklearn

    rng = check_random_state(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, n_features))
    w = rng.uniform(-1.0, 1.0, size=n_features)
    y = X @ w + np.sqrt(noise) * rng.standard_normal(n_samples)  # lin-jan-lin sec. III
    return X, y, w


def make_sparse_bipartite(n_samples: int = 100_000, *, n_features: int = 10_000,
                          nnz_per_row: int = 20, pos_fraction: float = 0.1,
                          class_sep: float = 1.0, noise: float = 1.0,
                          chunk_size: int = 1_000_000, random_state: RandomStateLike = None,
                          verbose: bool = False,
                          ) -> tuple[csr_matrix, NDArray[np.int8], FloatArray]:
    """Large sparse binary data with a planted linear ranker, generated chunk by chunk.

    Row i gets a label ``y_i ~ Bernoulli(pos_fraction)``, ``nnz_per_row``
    distinct columns drawn uniformly, and on those columns the values::

        x_ij = class_sep / sqrt(nnz_per_row) * (2 y_i - 1) * w_j + noise * N(0, 1)

    with ``w_true ~ N(0, I)``. Which columns a row has does not depend on its
    label, and the per-column log-likelihood ratio of the two classes is
    linear in ``x_ij``, so ``x . w_true`` is the Bayes-optimal ranking score:
    no ranker has a higher expected AUC. Easier with larger ``class_sep`` or
    smaller ``noise`` (about AUC 0.92 with the defaults).

    Memory: the output (``n_samples * nnz_per_row`` float64 values and int32
    indices, 12 bytes per non-zero) is allocated once and filled in place; the
    extra memory is O(``n_features``). 10^7 rows x 20 non-zeros take about
    2.4 GB and a few seconds.

    Parameters
    ----------
    n_samples, n_features, nnz_per_row : int
        ``nnz_per_row <= n_features``.
    pos_fraction : float in (0, 1), default=0.1
    class_sep : float >= 0, default=1.0
    noise : float >= 0, default=1.0
    chunk_size : int, default=1_000_000
        Rows generated per call of the compiled kernel (progress granularity).
        The data do not depend on it: each block of 4096 rows restarts its own
        generator from a seed drawn up front from ``random_state``.
    random_state : None, int or numpy Generator
    verbose : bool, default=False
        Report progress per chunk.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64
        Sorted int32 indices, exactly ``nnz_per_row`` stored values per row.
    y : ndarray of int8 in {0, 1}
        1 is the positive class.
    w_true : ndarray of shape (n_features,)

    Examples
    --------
    >>> from birank.datasets import make_sparse_bipartite
    >>> from birank.metrics import roc_auc
    >>> X, y, w = make_sparse_bipartite(5000, n_features=100, nnz_per_row=10, pos_fraction=0.3,
    ...                                 random_state=0)
    >>> X.shape, X.nnz
    ((5000, 100), 50000)
    >>> 0.85 < roc_auc(y, X @ w) < 0.98
    True
    """
    n_samples = _check_int(n_samples, "n_samples", 1)
    n_features = _check_int(n_features, "n_features", 1)
    nnz_per_row = _check_int(nnz_per_row, "nnz_per_row", 1)
    if nnz_per_row > n_features:
        raise ValueError(
            f"nnz_per_row must be <= n_features={n_features}; got {nnz_per_row}."
        )
    if n_features >= 2**31:
        raise ValueError(f"n_features must be < 2**31; got {n_features}.")
    pos_fraction = _check_real(pos_fraction, "pos_fraction", 0.0, 1.0, closed_low=False)
    if pos_fraction >= 1.0:
        raise ValueError(f"pos_fraction must be a float in (0, 1); got {pos_fraction!r}.")
    class_sep = _check_real(class_sep, "class_sep")
    noise = _check_real(noise, "noise")
    chunk_size = _check_int(chunk_size, "chunk_size", 1)
    from .._kernels import generators as _kernels  # numba, only when generating
    from .._validation import check_random_state

    rng = check_random_state(random_state)
    w_true = rng.standard_normal(n_features)
    n_blocks = -(-n_samples // _BLOCK)
    seeds = rng.integers(1, _kernels.M2, size=(n_blocks, 6), dtype=np.int64)
    nnz_total = n_samples * nnz_per_row
    idx_dtype = np.int32 if nnz_total < 2**31 else np.int64
    indices = np.empty(nnz_total, dtype=idx_dtype)
    data = np.empty(nnz_total, dtype=np.float64)
    y = np.empty(n_samples, dtype=np.int8)
    blocks_per_chunk = max(1, chunk_size // _BLOCK)
    shift = class_sep / np.sqrt(nnz_per_row)
    report = make_progress(verbose, "make_sparse_bipartite")
    for b0 in range(0, n_blocks, blocks_per_chunk):
        r0 = b0 * _BLOCK
        r1 = min(n_samples, (b0 + blocks_per_chunk) * _BLOCK)
        _kernels.fill_sparse_bipartite(
            seeds, _BLOCK, b0, n_samples, nnz_per_row, w_true, pos_fraction, shift, noise,
            indices[r0 * nnz_per_row:r1 * nnz_per_row], data[r0 * nnz_per_row:r1 * nnz_per_row],
            y[r0:r1],
        )
        report(r1, n_samples, f"{r1} of {n_samples} rows")
    indptr = np.arange(0, nnz_total + 1, nnz_per_row, dtype=idx_dtype)
    X = sp.csr_matrix((data, indices, indptr), shape=(n_samples, n_features), copy=False)
    # distinct sorted indices per row (the kernel's rejection draw): canonical,
    # so validation need not scan the nnz entries again
    X.has_canonical_format = True
    return X, y, w_true
