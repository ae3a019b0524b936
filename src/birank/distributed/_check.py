"""Input checks for dask arrays: the in-memory messages, block by block, lazily.

Each block goes through the same ``check_X`` (and so the same message for
NaN, infinity, a non-numeric dtype) as the in-memory ``fit`` /
``decision_function``, inside the task that reads the block: nothing is
computed ahead. Shapes are known without computing, so a wrong feature
count or a row mismatch is refused before any work, with the in-memory
wording.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from .._validation import FLOAT_DTYPES, as_csr_or_dense, check_X
from ._engine import as_dask_rows

__all__ = ["checked_rows", "check_known_rows", "check_n_features"]


def check_block(block, estimator):
    """One row block validated by ``check_X``, the in-memory check of a whole X.

    ``estimator``: an unfitted clone (it only names the estimator in messages
    and receives the block's ``n_features_in_``)."""
    if block.shape[0] == 0:  # (an empty block, e.g. after a filter, has nothing to check)
        return as_csr_or_dense(block)
    return check_X(estimator, block, reset=True)


def check_known_rows(a, name):
    """Refuse a dask array whose row chunk sizes are unknown (NaN): rows cannot be aligned."""
    if any(np.isnan(c) for c in a.chunks[0]):
        raise ValueError(f"{name} has unknown row chunk sizes (e.g. from a dataframe): its "
                         f"rows cannot be aligned with the labels; call "
                         f"{name}.compute_chunk_sizes() first.")
    return a


def checked_rows(estimator, X):
    """``X`` as a row-chunked dask array whose blocks are checked when they are computed."""
    X = check_known_rows(as_dask_rows(X, name="X"), "X")
    if X.ndim != 2:
        raise ValueError(f"Expected 2D array, got {X.ndim}D array instead: X must be 2-D "
                         f"(n_samples, n_features).")
    meta = X._meta
    if not sp.issparse(meta):
        meta = np.empty((0, 0), dtype=meta.dtype if meta.dtype in FLOAT_DTYPES else np.float64)
    return X.map_blocks(check_block, clone(estimator), dtype=meta.dtype, meta=meta)


def check_n_features(estimator, n_features):
    """The in-memory message when a fitted ``estimator`` gets the wrong feature count."""
    # one row of the given width through the in-memory check: the same words, no data read
    check_X(estimator, np.ones((1, int(n_features))), reset=False)
